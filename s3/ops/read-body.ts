// Small request bodies (XML documents), read whole within a limit and
// checked like any other body (signature, Content-MD5, checksums).

import { RequestBody } from '../body.js';
import { s3Error } from '../errors.js';
import { S3_LIMITS } from '../limits.js';
import type { S3Request } from '../request.js';

export async function readBody(request: S3Request): Promise<string> {
  const body = new RequestBody(request.raw, { payload: request.auth.payload, headers: request.headers });
  const pieces: Buffer[] = [];
  let bytes = 0;
  for await (const piece of body) {
    bytes += piece.length;
    if (bytes > S3_LIMITS.xmlBodyBytesMax)
      throw s3Error('MalformedXML', `the request body is over ${S3_LIMITS.xmlBodyBytesMax} bytes`);
    pieces.push(piece);
  }
  return Buffer.concat(pieces).toString('utf8');
}
