// What an operation answers: a status, headers and a body (XML text, bytes,
// or a stream), and the S3 error document every failure becomes.
import type { Readable, Writable } from 'node:stream';
import { type ErrorSubject, wireOf } from './errors.js';
import { escapeXml, type XmlNode, xmlDocument } from './xml.js';

/**
 * A body the gateway writes to the response itself (large GETs): `pump` writes every byte of it
 * to `out`, honouring its write callbacks, and settles when done; a rejection cuts the response.
 */
export interface BodyPump {
  pump(out: Writable): Promise<void>;
}

export interface S3Reply {
  status: number;
  headers: Record<string, string | number>;
  body?: string | Buffer | Readable | BodyPump;
}

export function isPump(body: S3Reply['body']): body is BodyPump {
  return typeof (body as BodyPump | undefined)?.pump === 'function';
}

/** An XML answer; `text` is the root's own text when it has no children (LocationConstraint). */
export function xmlReply(root: string, body: XmlNode, status = 200, text?: string): S3Reply {
  const document =
    text === undefined
      ? xmlDocument(root, body)
      : xmlDocument(root, {}).replace(`></${root}>`, `>${escapeXml(text)}</${root}>`);
  return { status, headers: { 'content-type': 'application/xml' }, body: document };
}

export function emptyReply(status = 200, headers: Record<string, string | number> = {}): S3Reply {
  return { status, headers };
}

/** The S3 error document for `err`; HEAD answers carry no body. */
export function errorReply(
  err: unknown,
  subject: ErrorSubject,
  context: { method: string; resource: string; requestId: string },
): S3Reply {
  const wire = wireOf(err, subject);
  const message = err instanceof Error ? err.message : String(err);
  const headers: Record<string, string | number> = { 'x-stripefs-code': wire.code };
  if (context.method === 'HEAD') return { status: wire.http, headers };
  const details = (err as { details?: Record<string, unknown> }).details ?? {};
  const extra: XmlNode = {};
  if (typeof details.canonicalRequest === 'string') extra.CanonicalRequest = details.canonicalRequest;
  if (typeof details.key === 'string') extra.Key = details.key;
  if (typeof details.bucket === 'string') extra.BucketName = details.bucket;
  return {
    status: wire.http,
    headers: { ...headers, 'content-type': 'application/xml' },
    body: xmlDocument(
      'Error',
      {
        Code: wire.s3Code,
        Message: message,
        Resource: context.resource,
        RequestId: context.requestId,
        StripefsCode: wire.code,
        ...extra,
      },
      false,
    ),
  };
}
