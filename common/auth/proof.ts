// Signed per-call metadata, shaped like SCRAM (RFC 5802): the client holds
// clientKey = HMAC(secret, "stripefs client key"); the MDS holds only
// storedKey = SHA-256(clientKey). A call carries
//   proof = clientKey XOR HMAC(storedKey, message)
// over (name, client id, sequence number, time, method). The MDS recomputes the
// HMAC, recovers clientKey and checks that it hashes to storedKey. So the MDS
// database (storedKey) is not enough to sign a call, and the proof, seen on the
// wire, gives away neither key. The sequence number lets the MDS refuse a replay
// (common/auth/sessions.ts) and the time bounds how long a session is remembered.
// The request body is not signed: on an untrusted network, use TLS.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { StripeError } from '../errors.js';
import type { Identity } from './keyring.js';

export const AUTH_METADATA_KEY = 'stripefs-auth';
const VERSION = 'v1';
const KEY_BYTES = 32;

export function clientKeyOf(secret: Buffer): Buffer {
  return createHmac('sha256', secret).update('stripefs client key').digest();
}

export function storedKeyOf(secret: Buffer): Buffer {
  return createHash('sha256').update(clientKeyOf(secret)).digest();
}

function messageOf(name: string, clientId: string, seq: number, timeMs: number, method: string): string {
  return `${VERSION}\n${name}\n${clientId}\n${seq}\n${timeMs}\n${method}`;
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(KEY_BYTES);
  for (let i = 0; i < KEY_BYTES; i++) out[i] = (a[i] as number) ^ (b[i] as number);
  return out;
}

/** Signs the calls of one client session (one id, one rising sequence). */
export class CallSigner {
  readonly clientId = randomBytes(12).toString('hex');
  private readonly clientKey: Buffer;
  private readonly storedKey: Buffer;
  private seq = 0;

  constructor(
    readonly name: string,
    secret: Buffer,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.clientKey = clientKeyOf(secret);
    this.storedKey = createHash('sha256').update(this.clientKey).digest();
  }

  static of(identity: Identity): CallSigner {
    return new CallSigner(identity.name, identity.secret);
  }

  /** The metadata value for one call of `method` (a gRPC path such as /stripefs.v1.MdsService/Stat). */
  sign(method: string): string {
    this.seq += 1;
    const timeMs = this.nowMs();
    const signature = createHmac('sha256', this.storedKey)
      .update(messageOf(this.name, this.clientId, this.seq, timeMs, method))
      .digest();
    const proof = xor(this.clientKey, signature).toString('base64');
    return `${VERSION} ${this.name} ${this.clientId} ${this.seq} ${timeMs} ${proof}`;
  }
}

export interface SignedCall {
  name: string;
  clientId: string;
  seq: number;
  timeMs: number;
  proof: Buffer;
}

/** Splits the metadata value; anything malformed is AUTH_INVALID. */
export function parseSignedCall(value: string): SignedCall {
  const parts = value.split(' ');
  const [version, name, clientId, seqText, timeText, proofText] = parts;
  const seq = Number(seqText);
  const timeMs = Number(timeText);
  const proof = Buffer.from(proofText ?? '', 'base64');
  if (
    parts.length !== 6 ||
    version !== VERSION ||
    !name ||
    !clientId ||
    !/^[0-9a-f]{1,64}$/.test(clientId) ||
    !Number.isSafeInteger(seq) ||
    seq < 1 ||
    !Number.isSafeInteger(timeMs) ||
    proof.length !== KEY_BYTES
  )
    throw new StripeError('AUTH_INVALID', `malformed ${AUTH_METADATA_KEY} metadata`);
  return { name, clientId, seq, timeMs, proof };
}

/** Whether `call` was signed by the holder of the secret whose stored key is `storedKey`. */
export function verifySignedCall(call: SignedCall, storedKey: Buffer, method: string): boolean {
  const signature = createHmac('sha256', storedKey)
    .update(messageOf(call.name, call.clientId, call.seq, call.timeMs, method))
    .digest();
  const clientKey = xor(call.proof, signature);
  return timingSafeEqual(createHash('sha256').update(clientKey).digest(), storedKey);
}
