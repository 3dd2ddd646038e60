// Requests to the admin HTTP APIs (the MDS's and each OSS's) as the CLI makes
// them: signed by the run's admin keyring (STRIPEFS_KEYRING, from
// test/global-setup.ts), so they pass the gates of mds/auth/http.ts and
// oss/http-auth.ts. A server that runs without auth ignores the signature.
import { adminHttpHeaders } from '../../common/auth/http-auth.js';

export function adminFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = {
    ...(init.headers as Record<string, string> | undefined),
    ...adminHttpHeaders(init.method ?? 'GET', url),
  };
  return fetch(url, { ...init, headers });
}
