// Where the CLI finds the cluster: --mds HOST:PORT, else STRIPEFS_MDS, else
// 127.0.0.1:7070. The MDS admin HTTP API is at the MDS port + 1 (the launcher
// and docker compose both lay ports out that way) unless --admin is given.
// gRPC and the protocol are loaded only by the commands that speak it: every
// CLI call pays for what it imports (see cli/program.ts).
import { loadConfig } from '../common/config.js';
import { isErrorCode, StripeError } from '../common/errors.js';
import type { ClusterMap__Output } from '../proto/index.js';

export interface ConnectFlags {
  mds?: string;
  admin?: string;
}

export function mdsAddressOf(flags: ConnectFlags): string {
  const overrides = flags.mds ? { 'mds.address': flags.mds } : {};
  return loadConfig({ env: process.env, overrides })['mds.address'];
}

export function adminUrlOf(flags: ConnectFlags): string {
  if (flags.admin) return flags.admin.replace(/\/$/, '');
  const address = mdsAddressOf(flags);
  const colon = address.lastIndexOf(':');
  return `http://${address.slice(0, colon)}:${Number(address.slice(colon + 1)) + 1}`;
}

const ADMIN_TIMEOUT_MS = 10_000;

/** GET or POST to an admin API; coded errors from the server come back as StripeError. */
export async function adminRequest<T>(
  url: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' = 'GET',
  body?: unknown,
): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
  }).catch((err: unknown) => {
    throw new StripeError(
      'REQ_UNAVAILABLE',
      `cannot reach ${url} (${(err as Error).message}); is the cluster up? (stripefs cluster up)`,
    );
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text, e.g. /metrics
  }
  if (!response.ok) {
    const coded = parsed as { code?: string; message?: string };
    const code = isErrorCode(coded.code) ? coded.code : 'REQ_INTERNAL';
    throw new StripeError(code, coded.message ?? `${method} ${url}: HTTP ${response.status}`);
  }
  return parsed as T;
}

/** The current cluster map over gRPC, with usage and addresses per OST. */
export async function fetchMap(flags: ConnectFlags): Promise<ClusterMap__Output> {
  const [grpc, { CLIENT_OPTIONS, call, deadlineIn }, { contract }] = await Promise.all([
    import('@grpc/grpc-js'),
    import('../common/grpc.js'),
    import('../proto/index.js'),
  ]);
  const v1 = contract();
  const client = new v1.MdsService(mdsAddressOf(flags), grpc.credentials.createInsecure(), CLIENT_OPTIONS);
  try {
    const response = await call(client, 'GetMap', { epoch: 0 }, deadlineIn(ADMIN_TIMEOUT_MS));
    if (!response.map) throw new StripeError('REQ_INTERNAL', 'the MDS returned no map');
    return response.map;
  } finally {
    client.close();
  }
}
