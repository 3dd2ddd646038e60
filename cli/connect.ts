// Where the CLI finds the cluster: --mds HOST:PORT, else STRIPEFS_MDS, else
// 127.0.0.1:7070. The MDS admin HTTP API is at the MDS port + 1 (the launcher
// and docker compose both lay ports out that way) unless --admin is given.
// gRPC and the protocol are loaded only by the commands that speak it: every
// CLI call pays for what it imports (see cli/program.ts).

import type { StripeClient } from '../client/index.js';
import { adminScheme, httpRequest } from '../common/admin-http-client.js';
import { loadConfig } from '../common/config.js';
import { isErrorCode, StripeError } from '../common/errors.js';
import { resolveJobId } from '../common/jobs/job-id.js';
import type { ClusterMap__Output, StatfsResponse__Output } from '../proto/index.js';

export interface ConnectFlags {
  mds?: string;
  admin?: string;
}

/**
 * The job the CLI's requests are counted under: STRIPEFS_JOBID, else SLURM_JOB_ID, else
 * `stripefs.<uid>` (the client library would name the script, dist/cli/main.js).
 */
export function cliJobId(): string {
  return resolveJobId({ processName: 'stripefs' }).jobId;
}

/** Which OSS addresses this CLI uses (client.network, STRIPEFS_CLIENT_NETWORK). */
export function clientNetworkOf(): 'public' | 'cluster' {
  return loadConfig({ env: process.env })['client.network'];
}

export function mdsAddressOf(flags: ConnectFlags): string {
  const overrides = flags.mds ? { 'mds.address': flags.mds } : {};
  return loadConfig({ env: process.env, overrides })['mds.address'];
}

/** Where the MDS address came from, for messages. */
function addressSource(flags: ConnectFlags): string {
  if (flags.mds) return '--mds';
  if (process.env.STRIPEFS_MDS) return 'STRIPEFS_MDS';
  return 'the default; set --mds or STRIPEFS_MDS for another';
}

/**
 * An MDS that does not answer, said with what to do: TLS on one side only or the wrong CA
 * becomes its TLS_ code; a connection refused or timed out becomes REQ_UNAVAILABLE naming the address, where it came from, and how to start or name a cluster.
 */
export async function mdsUnreachable(
  err: unknown,
  flags: ConnectFlags,
  what = `the MDS at ${mdsAddressOf(flags)}`,
): Promise<unknown> {
  if (!(err instanceof StripeError) || (err.code !== 'REQ_UNAVAILABLE' && err.code !== 'REQ_TIMEOUT'))
    return err;
  // TLS on one side only, or the wrong CA, says so (TLS_REQUIRED, TLS_UNTRUSTED, TLS_NOT_SERVED).
  const { tlsMismatch } = await import('../common/tls.js');
  const mismatch = await tlsMismatch(mdsAddressOf(flags));
  if (mismatch) return mismatch;
  return new StripeError(
    'REQ_UNAVAILABLE',
    `cannot reach ${what} (${addressSource(flags)}): ${err.message}. Start a local cluster with \`stripefs cluster up\` (or \`docker compose up -d\` in the stripefs folder), or point --mds HOST:PORT or STRIPEFS_MDS at a running MDS`,
    { ...err.details, mds: mdsAddressOf(flags) },
  );
}

/** The MDS's admin URL: --admin, else the MDS port + 1, over https when this CLI speaks TLS. */
export function adminUrlOf(flags: ConnectFlags): string {
  if (flags.admin) return flags.admin.replace(/\/$/, '');
  const address = mdsAddressOf(flags);
  const colon = address.lastIndexOf(':');
  return `${adminScheme()}://${address.slice(0, colon)}:${Number(address.slice(colon + 1)) + 1}`;
}

const ADMIN_TIMEOUT_MS = 10_000;

/**
 * GET or POST to an admin API, signed as the CLI's identity (common/auth/http-auth.ts), over
 * HTTPS with the cluster's CA when the URL says so (common/admin-http-client.ts); coded errors
 * from the server come back as StripeError.
 */
export async function adminRequest<T>(
  url: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' = 'GET',
  body?: unknown,
): Promise<T> {
  const { adminHttpHeaders } = await import('../common/auth/http-auth.js');
  const { status, text } = await httpRequest(url, {
    method,
    headers: {
      ...adminHttpHeaders(method, url),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: ADMIN_TIMEOUT_MS,
  });
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text, e.g. /metrics
  }
  if (status < 200 || status > 299) {
    const coded = parsed as { code?: string; message?: string };
    const code = isErrorCode(coded.code) ? coded.code : 'REQ_INTERNAL';
    throw new StripeError(code, coded.message ?? `${method} ${url}: HTTP ${status}`);
  }
  return parsed as T;
}

/** The current cluster map over gRPC, with usage and addresses per OST. */
export async function fetchMap(flags: ConnectFlags): Promise<ClusterMap__Output> {
  return (await fetchMapAndStatfs(flags)).map;
}

/** The map and the MDS's statfs (entries, bytes it keeps for data on the MDS), over one connection. */
export async function fetchMapAndStatfs(
  flags: ConnectFlags,
): Promise<{ map: ClusterMap__Output; statfs: StatfsResponse__Output }> {
  const [
    { CLIENT_OPTIONS, call, deadlineIn },
    { contract },
    { resolveIdentity, signingOptions },
    { channelCredentials, channelTlsOptions },
  ] = await Promise.all([
    import('../common/grpc.js'),
    import('../proto/index.js'),
    import('../common/auth/signing.js'),
    import('../common/tls.js'),
  ]);
  const v1 = contract();
  const client = new v1.MdsService(mdsAddressOf(flags), channelCredentials(), {
    ...CLIENT_OPTIONS,
    ...channelTlsOptions(),
    ...signingOptions(resolveIdentity(undefined)),
  });
  try {
    const [response, statfs] = await Promise.all([
      call(client, 'GetMap', { epoch: 0 }, deadlineIn(ADMIN_TIMEOUT_MS)),
      call(client, 'Statfs', {}, deadlineIn(ADMIN_TIMEOUT_MS)),
    ]).catch(async (err: unknown) => {
      throw await mdsUnreachable(err, flags);
    });
    if (!response.map) throw new StripeError('REQ_INTERNAL', 'the MDS returned no map');
    return { map: response.map, statfs };
  } finally {
    client.close();
  }
}

/**
 * Runs `work` with a client connected as the CLI connects (the MDS of --mds, the OSS network of
 * client.network, the CLI's job id; an MDS it cannot reach is a CliError saying what to check),
 * closed after. The client library (gRPC, the protocol, the bulk path) loads only here, for the
 * commands that use it.
 */
export async function withClient<T>(
  flags: ConnectFlags,
  work: (client: StripeClient) => Promise<T>,
): Promise<T> {
  const { StripeClient } = await import('../client/index.js');
  const client = await StripeClient.connect({
    mds: mdsAddressOf(flags),
    network: clientNetworkOf(),
    jobId: cliJobId(),
  }).catch(async (err: unknown) => {
    throw await mdsUnreachable(err, flags);
  });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
