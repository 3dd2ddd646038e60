// The registry code a call failed with, for tests that check refusals.
import { StripeError } from '../../common/errors.js';

/**
 * The registry code of a refusal (or an S3 error's code rebuilt from the wire). Anything that is
 * not a coded error is thrown again: a TypeError is a bug, not a refusal. Shaped for a promise's
 * rejection handler: `read().then(() => 'served', errorCode)`.
 */
export function errorCode(err: unknown): string {
  if (err instanceof StripeError) return err.code;
  // Errors rebuilt from a wire answer (the bulk path, HTTP) carry the code without the class.
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  throw err;
}

/**
 * 'OK' when `work` (a promise, or a function called here, sync or async)
 * succeeds, else the registry code it failed with. Anything that is not a
 * coded error is thrown again: a TypeError is a bug, not a refusal.
 */
export async function codeOf(work: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof work === 'function' ? work() : work);
    return 'OK';
  } catch (err) {
    return errorCode(err);
  }
}

export type Settled<T> = { ok: true; value: T } | { ok: false; err: Error; code: string };

/** Settles a call into its value or its error and code (for workloads that go on after failures). */
export async function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    return { ok: false, err: err as Error, code: errorCode(err) };
  }
}
