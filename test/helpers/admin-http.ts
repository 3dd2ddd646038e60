// Requests to the admin HTTP APIs (the MDS's and each OSS's) as the CLI makes
// them: signed by the run's admin keyring (STRIPEFS_KEYRING, from
// test/global-setup.ts), so they pass the gates of mds/auth/http.ts and
// oss/http-auth.ts. A server that runs without auth ignores the signature.
// The admin ports of a cluster with TLS speak HTTPS: a cluster's helper names
// their origins with its CA (trustAdminOrigin), and requests there check the
// certificate with it, as the CLI does (common/admin-http-client.ts).
import { httpRequest } from '../../common/admin-http-client.js';
import { adminHttpHeaders } from '../../common/auth/http-auth.js';
import type { TlsSettings } from '../../common/tls.js';

/** The CA of each HTTPS origin a test cluster serves (its MDS's and OSSs' admin ports). */
const trusted = new Map<string, TlsSettings>();

/** Requests to `url`'s origin check its certificate with `tls`'s CA. */
export function trustAdminOrigin(url: string, tls: TlsSettings): void {
  trusted.set(new URL(url).origin, tls);
}

export async function adminFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = {
    ...(init.headers as Record<string, string> | undefined),
    ...adminHttpHeaders(init.method ?? 'GET', url),
  };
  const tls = trusted.get(new URL(url).origin);
  if (!tls) return fetch(url, { ...init, headers });
  const answer = await httpRequest(
    url,
    {
      method: init.method ?? 'GET',
      headers,
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
      timeoutMs: 30_000,
    },
    tls,
  );
  return new Response(answer.status === 204 ? null : answer.text, { status: answer.status });
}

/** Calls of one MDS operation so far (`open`, `openMany`, `commit` ...), from its Prometheus histogram. */
export async function mdsCalls(mdsAdminUrl: string, op: string): Promise<number> {
  const text = await (await adminFetch(`${mdsAdminUrl}/metrics`)).text();
  if (!text.includes('stripefs_mds_request_seconds_count'))
    throw new Error('no MDS request counts in /metrics');
  const pattern = new RegExp(`^stripefs_mds_request_seconds_count\\{[^}]*\\bop="${op}"[^}]*\\} (\\d+)$`, 'm');
  return Number(pattern.exec(text)?.[1] ?? 0);
}
