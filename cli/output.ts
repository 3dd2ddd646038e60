// How the CLI speaks: JSON when asked, one-line reasons on failure, and exit
// codes (0 ok, 1 a failed operation, 2 bad usage).
import { ERROR_CODES, type ErrorCode, StripeError } from '../common/errors.js';

/** A failure the CLI reports in one line; the code comes from the registry. */
export class CliError extends StripeError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function intOption(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new CliError('REQ_INVALID', `${name} expects a whole number, got ${raw}`);
  return Number(raw);
}

/** Prints `stripefs: CODE (ERRNO): message` and returns the exit code. */
export function reportError(err: unknown): number {
  if (err instanceof StripeError) {
    process.stderr.write(`stripefs: ${err.code} (${ERROR_CODES[err.code].errno}): ${err.message}\n`);
    return err.code === 'REQ_INVALID' || err.code === 'CONFIG_INVALID' ? 2 : 1;
  }
  if (err instanceof RangeError) {
    process.stderr.write(`stripefs: REQ_INVALID (EINVAL): ${err.message}\n`);
    return 2;
  }
  process.stderr.write(`stripefs: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
