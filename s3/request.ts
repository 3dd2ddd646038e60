// One S3 request as the operations see it: who signed it, the bucket and key
// (path style /bucket/key, or virtual-hosted bucket.DOMAIN/key when the
// gateway has a domain), the decoded query and the raw message for the body.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { parseQuery } from './sigv4/canonical.js';
import type { Authenticated } from './sigv4/verify.js';

export interface S3Request {
  method: string;
  bucket: string | undefined;
  key: string | undefined;
  /** Decoded query: the first value of each name ('' for a bare `?uploads`). */
  query: Map<string, string>;
  headers: IncomingHttpHeaders;
  raw: IncomingMessage;
  auth: Authenticated;
  requestId: string;
  /** For error documents: /bucket/key as the client named it. */
  resource: string;
}

export interface RawTarget {
  rawPath: string;
  rawQuery: string;
}

export function splitUrl(url: string): RawTarget {
  const q = url.indexOf('?');
  return q < 0 ? { rawPath: url, rawQuery: '' } : { rawPath: url.slice(0, q), rawQuery: url.slice(q + 1) };
}

export function queryMap(rawQuery: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of parseQuery(rawQuery)) if (!map.has(name)) map.set(name, value);
  return map;
}

/** The bucket and key a request names; undefined parts are absent (ListBuckets has neither). */
export function targetOf(
  rawPath: string,
  host: string | undefined,
  domain: string,
): { bucket: string | undefined; key: string | undefined; fromHost: boolean } {
  const path = decodeURIComponent(rawPath);
  const hostname = (host ?? '').replace(/:\d+$/, '').toLowerCase();
  if (domain !== '' && hostname.endsWith(`.${domain}`)) {
    const bucket = hostname.slice(0, -domain.length - 1);
    const key = path.slice(1);
    return { bucket, key: key === '' ? undefined : key, fromHost: true };
  }
  const rest = path.slice(1);
  if (rest === '') return { bucket: undefined, key: undefined, fromHost: false };
  const slash = rest.indexOf('/');
  if (slash < 0) return { bucket: rest, key: undefined, fromHost: false };
  const key = rest.slice(slash + 1);
  return { bucket: rest.slice(0, slash), key: key === '' ? undefined : key, fromHost: false };
}
