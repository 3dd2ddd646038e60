// The bulk path's hello: the first frame a tagged client sends on each new
// connection, naming the job and client session of every request that follows
// on it (common/jobs/job-id.ts). Once per connection instead of once per
// request: a connection belongs to one StripeClient's pool, and its requests
// carry the same tag for its whole life, so the per-request header stays 48
// bytes and the OSS looks the tag up once. A connection without a hello is
// untagged (the MDS, the OSSs' recovery, tools).
//
// Hello (48 bytes + text): magic u32 'SFBH' | 0 u8 | 0 u8 | textLen u16 | 40 zero bytes |
//                          text = jobId '\n' session (ASCII)
// It has the fixed size of a request, so the OSS reads the fixed part of every frame alike and
// tells the two apart by the magic. No answer: the request after it follows at once, and a
// malformed hello is answered as a broken frame (REQ_INVALID) before the connection closes.
import { StripeError } from '../errors.js';
import {
  JOB_ID_BYTES_MAX,
  JOB_ID_METADATA_KEY,
  parseTag,
  type RequestTag,
  SESSION_BYTES,
  SESSION_METADATA_KEY,
} from '../jobs/job-id.js';
import { REQUEST_FIXED_BYTES } from './frame.js';

export const HELLO_MAGIC = 0x48424653; // 'SFBH'
const HELLO_TEXT_BYTES_MAX = JOB_ID_BYTES_MAX + 1 + SESSION_BYTES;

export function isHello(fixed: Buffer): boolean {
  return fixed.length >= REQUEST_FIXED_BYTES && fixed.readUInt32LE(0) === HELLO_MAGIC;
}

export function encodeHello(tag: RequestTag): Buffer {
  const text = Buffer.from(`${tag.jobId}\n${tag.session}`, 'latin1');
  if (text.length > HELLO_TEXT_BYTES_MAX) throw new StripeError('REQ_INVALID', 'bulk hello: job id too long');
  const buf = Buffer.alloc(REQUEST_FIXED_BYTES + text.length);
  buf.writeUInt32LE(HELLO_MAGIC, 0);
  buf.writeUInt16LE(text.length, 6);
  text.copy(buf, REQUEST_FIXED_BYTES);
  return buf;
}

/** Bytes of text after a hello's fixed part. */
export function helloTextBytes(fixed: Buffer): number {
  const bytes = fixed.readUInt16LE(6);
  if (bytes > HELLO_TEXT_BYTES_MAX) throw new StripeError('REQ_TOO_LARGE', 'bulk hello: text too long');
  return bytes;
}

/** The tag a hello names; REQ_INVALID when it is malformed. */
export function decodeHello(text: Buffer): RequestTag {
  const [jobId, session, ...rest] = text.toString('latin1').split('\n');
  if (rest.length > 0) throw new StripeError('REQ_INVALID', 'bulk hello: expected "jobId\\nsession"');
  const fields: Record<string, string | undefined> = {
    [JOB_ID_METADATA_KEY]: jobId,
    [SESSION_METADATA_KEY]: session,
  };
  const tag = parseTag((key) => fields[key]);
  if (!tag) throw new StripeError('REQ_INVALID', 'bulk hello: no job id');
  return tag;
}
