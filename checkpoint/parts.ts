// What a save accepts as parts: named buffers or streams (any Readable or
// async iterable of bytes), in a plain object, a Map or a list of pairs. The
// order given is the order they are packed in (and a stream is read only
// when its turn comes).
import { StripeError } from '../common/errors.js';
import { CHECKPOINT_BOUNDS } from './limits.js';
import { checkPartName } from './names.js';

export type PartSource = Uint8Array | AsyncIterable<Uint8Array | string>;
export type Parts =
  | Readonly<Record<string, PartSource>>
  | ReadonlyMap<string, PartSource>
  | Iterable<readonly [string, PartSource]>;

function isIterable(value: unknown): value is Iterable<readonly [string, PartSource]> {
  return typeof (value as Iterable<unknown>)?.[Symbol.iterator] === 'function';
}

function isSource(value: unknown): value is PartSource {
  return (
    value instanceof Uint8Array ||
    typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function'
  );
}

/** The parts as [name, source] pairs in order, every name checked and unique. */
export function partEntries(parts: Parts): [string, PartSource][] {
  const pairs: [string, PartSource][] =
    parts instanceof Map || (isIterable(parts) && !(parts instanceof Uint8Array))
      ? [...(parts as Iterable<readonly [string, PartSource]>)].map(([n, s]) => [n, s])
      : Object.entries(parts as Record<string, PartSource>);
  if (pairs.length > CHECKPOINT_BOUNDS.partsMax)
    throw new StripeError('REQ_INVALID', `${pairs.length} parts: at most ${CHECKPOINT_BOUNDS.partsMax}`);
  const seen = new Set<string>();
  for (const [name, source] of pairs) {
    checkPartName(name);
    if (seen.has(name)) throw new StripeError('REQ_INVALID', `part ${name} is given twice`, { part: name });
    seen.add(name);
    if (!isSource(source))
      throw new StripeError(
        'REQ_INVALID',
        `part ${name} is neither bytes (Uint8Array, Buffer) nor a stream of bytes`,
        {
          part: name,
        },
      );
  }
  return pairs;
}

/** Memory a load fills in place, by part name (Checkpoints.load's `into`). */
export type LoadTargets =
  | Readonly<Record<string, Uint8Array>>
  | ReadonlyMap<string, Uint8Array>
  | Iterable<readonly [string, Uint8Array]>;

/** The targets by name, each checked to be bytes; their sizes are checked against the manifest. */
export function loadTargets(into: LoadTargets): Map<string, Uint8Array> {
  const pairs =
    into instanceof Map || isIterable(into)
      ? [...(into as Iterable<readonly [string, Uint8Array]>)]
      : Object.entries(into as Record<string, Uint8Array>);
  const out = new Map<string, Uint8Array>();
  for (const [name, target] of pairs) {
    if (!(target instanceof Uint8Array))
      throw new StripeError(
        'REQ_INVALID',
        `the memory given for part ${name} is not bytes (Uint8Array, Buffer)`,
        {
          part: name,
        },
      );
    if (out.has(name))
      throw new StripeError('REQ_INVALID', `part ${name} is given memory twice`, { part: name });
    out.set(name, target);
  }
  return out;
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The chunks of one source: a buffer as itself, a stream as what it yields (strings refused). */
export async function* chunksOf(name: string, source: PartSource): AsyncGenerator<Buffer> {
  if (source instanceof Uint8Array) {
    yield asBuffer(source);
    return;
  }
  for await (const chunk of source) {
    if (!(chunk instanceof Uint8Array))
      throw new StripeError(
        'REQ_INVALID',
        `part ${name}: its stream yielded ${typeof chunk}, not bytes (no encoding)`,
        {
          part: name,
        },
      );
    yield asBuffer(chunk);
  }
}
