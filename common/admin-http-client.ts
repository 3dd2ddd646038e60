// The CLI's requests to the admin HTTP APIs (the MDS's, each OSS's) and to the
// local launcher's control API. Where this process speaks TLS (tls.ca, or
// ./data/tls/ca.pem: common/tls-settings.ts) it uses https:// and checks the
// server's certificate against that CA under tls.serverName, as its gRPC calls
// do, whatever address it dials; otherwise plain http://. A refusal for TLS's
// sake comes back as its code: the certificate does not verify
// (TLS_UNTRUSTED), the server speaks plain HTTP (TLS_NOT_SERVED); a plain
// request at an HTTPS port is answered TLS_REQUIRED by the server itself
// (common/admin-https.ts).
import { type IncomingHttpHeaders, type IncomingMessage, request as plainRequest } from 'node:http';
import { request as tlsRequest } from 'node:https';
import { StripeError } from './errors.js';
import { isCertificateError, resolveTls, type TlsSource } from './tls-settings.js';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface HttpRequestInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** The scheme of this process's admin URLs: https when it speaks TLS. */
export function adminScheme(source?: TlsSource): 'https' | 'http' {
  return resolveTls(source) ? 'https' : 'http';
}

/** What a failed connection means: TLS_UNTRUSTED, TLS_NOT_SERVED, or REQ_UNAVAILABLE. */
function failureOf(err: Error, url: string): StripeError {
  const code = (err as NodeJS.ErrnoException).code ?? err.message;
  if (isCertificateError(err))
    return new StripeError(
      'TLS_UNTRUSTED',
      `${url}: its certificate does not verify against tls.ca (${code}): use the CA that signed the cluster's certificate (tls/ca.pem in the data folder of stripefs cluster up --tls)`,
      { url },
    );
  if (code === 'EPROTO' || /wrong version number|packet length too long/i.test(err.message))
    return new StripeError(
      'TLS_NOT_SERVED',
      `${url} does not speak TLS and this client does (tls.ca is set): unset tls.ca (STRIPEFS_TLS_CA, or remove ./data/tls), or start the cluster with TLS`,
      { url },
    );
  return new StripeError('REQ_UNAVAILABLE', `cannot reach ${url} (${code})`, { url });
}

/** One request; its status and body, whatever the status (failures to connect are coded errors). */
export function httpRequest(url: string, init: HttpRequestInit, source?: TlsSource): Promise<HttpAnswer> {
  const target = new URL(url);
  const tls = resolveTls(source);
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const answer = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (err) => reject(failureOf(err, url)));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    };
    const options = { method: init.method, headers: init.headers ?? {}, timeout: init.timeoutMs };
    const request = secure
      ? tlsRequest(target, { ...options, ...(tls ? { ca: tls.ca, servername: tls.serverName } : {}) }, answer)
      : plainRequest(target, options, answer);
    request.on('timeout', () =>
      request.destroy(new StripeError('REQ_UNAVAILABLE', `${url} did not answer in ${init.timeoutMs} ms`)),
    );
    request.on('error', (err) => reject(err instanceof StripeError ? err : failureOf(err, url)));
    request.end(init.body);
  });
}
