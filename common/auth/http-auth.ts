// Signed requests to the admin HTTP APIs (the MDS's and each OSS's): the
// Authorization header `Stripefs <signed call>` carries the same proof as a
// gRPC call (common/auth/proof.ts), over `HTTP <METHOD> <host><path?query>`,
// so a captured request cannot be sent to another server, path or method,
// nor twice (the sequence window). The dashboard, which holds no keyring,
// uses a read-only bearer ticket from the MDS instead (mds/auth/http.ts).

import { resolveIdentity } from './identity-source.js';
import { type Identity, readKeyring } from './keyring.js';
import { CallSigner } from './proof.js';

export const HTTP_AUTH_SCHEME = 'Stripefs';
export const BEARER_SCHEME = 'Bearer';

/** What the signature of an HTTP request covers. */
export function httpSignedMethod(method: string, host: string, target: string): string {
  return `HTTP ${method.toUpperCase()} ${host}${target}`;
}

/** The Authorization header of one request to `url`, signed by `signer`. */
export function httpAuthorization(signer: CallSigner, method: string, url: string | URL): string {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return `${HTTP_AUTH_SCHEME} ${signer.sign(httpSignedMethod(method, parsed.host, `${parsed.pathname}${parsed.search}`))}`;
}

/** The credential an Authorization header carries: a signed call, a bearer ticket, or none. */
export function credentialOf(
  header: string | undefined,
): { kind: 'signed'; value: string } | { kind: 'bearer'; value: string } | { kind: 'none' } {
  if (header === undefined || header === '') return { kind: 'none' };
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === HTTP_AUTH_SCHEME) return { kind: 'signed', value };
  if (scheme.toLowerCase() === BEARER_SCHEME.toLowerCase()) return { kind: 'bearer', value };
  return { kind: 'signed', value: header };
}

let processSigner: { identity: Identity; signer: CallSigner } | undefined;

/**
 * Headers that sign one admin HTTP request as this process's identity (resolveIdentity's: a
 * keyring path, STRIPEFS_KEYRING, ./data/admin.keyring); none when it has no identity. One signer
 * per process and identity: one session at each server, its sequence rising.
 */
export function adminHttpHeaders(
  method: string,
  url: string | URL,
  keyring?: string | Identity,
): Record<string, string> {
  const identity =
    typeof keyring === 'string' ? readKeyring(keyring) : (keyring ?? resolveIdentity(undefined));
  if (!identity) return {};
  if (
    !processSigner ||
    processSigner.identity.name !== identity.name ||
    !processSigner.identity.secret.equals(identity.secret)
  )
    processSigner = { identity, signer: CallSigner.of(identity) };
  return { authorization: httpAuthorization(processSigner.signer, method, url) };
}

/** The registry code of an admin HTTP API's error answer (its JSON body), for the audit record. */
export function errorCodeOfPayload(payload: unknown): string | undefined {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined; // not JSON after all: the audit says REQ_INTERNAL
  }
}
