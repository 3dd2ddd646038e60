// Coalesces concurrent metadata calls into one batched RPC (StatMany,
// CreateMany, UnlinkMany). A gRPC unary call costs the client far more CPU
// than the MDS spends on a stat or a create, so callers that are in flight
// together share one round trip. Calls queue until the event loop's check
// phase (setImmediate): everything issued in the same turn goes in one batch,
// and a call issued after another one resolved always goes in a later batch,
// so batching never reorders what a caller could observe. A lone call goes out
// as the plain single RPC. Each item settles on its own: with the answer, or
// with the StripeError the single call would have raised.
import { type ErrorCode, isErrorCode, StripeError } from '../common/errors.js';
import type { ItemError__Output } from '../proto/index.js';

interface Waiter<Item, Res> {
  item: Item;
  resolve: (value: Res) => void;
  reject: (err: unknown) => void;
}

export interface BatchTransport<Item, Res> {
  /** Items one batched RPC may carry. */
  itemsMax: number;
  /**
   * Bytes of payload (bytesOf) one batched RPC may carry, so the request stays under the gRPC
   * message bound; an item alone may carry more (it goes as its single call).
   */
  bytesMax?: number;
  bytesOf?: (item: Item) => number;
  one(item: Item): Promise<Res>;
  /** One answer per item, in item order: the value or the item's error. */
  many(items: Item[]): Promise<(Res | StripeError)[]>;
}

export class CallBatcher<Item, Res> {
  private queue: Waiter<Item, Res>[] = [];
  private scheduled = false;
  /** Batched RPCs sent and items they carried (client stats and tests). */
  batchesSent = 0;
  itemsBatched = 0;

  constructor(private readonly transport: BatchTransport<Item, Res>) {
    if (!Number.isInteger(transport.itemsMax) || transport.itemsMax < 1)
      throw new Error(`batch itemsMax must be >= 1, got ${transport.itemsMax}`);
  }

  submit(item: Item): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const waiting = this.queue;
    this.queue = [];
    const { itemsMax, bytesMax = Number.POSITIVE_INFINITY, bytesOf = () => 0 } = this.transport;
    let group: Waiter<Item, Res>[] = [];
    let groupBytes = 0;
    for (const waiter of waiting) {
      const bytes = bytesOf(waiter.item);
      if (group.length > 0 && (group.length >= itemsMax || groupBytes + bytes > bytesMax)) {
        this.send(group);
        group = [];
        groupBytes = 0;
      }
      group.push(waiter);
      groupBytes += bytes;
    }
    if (group.length > 0) this.send(group);
  }

  private send(group: Waiter<Item, Res>[]): void {
    if (group.length === 1) {
      const only = group[0]!;
      this.transport.one(only.item).then(only.resolve, only.reject);
      return;
    }
    this.batchesSent++;
    this.itemsBatched += group.length;
    this.transport.many(group.map((w) => w.item)).then(
      (answers) => {
        if (answers.length !== group.length) {
          const err = new StripeError(
            'REQ_INTERNAL',
            `batched MDS call answered ${answers.length} items of ${group.length}`,
          );
          for (const w of group) w.reject(err);
          return;
        }
        group.forEach((w, i) => {
          const answer = answers[i]!;
          if (answer instanceof StripeError) w.reject(answer);
          else w.resolve(answer);
        });
      },
      // The whole call failed (transport, server down): every item fails as its single call would have.
      (err: unknown) => {
        for (const w of group) w.reject(err);
      },
    );
  }
}

/** The StripeError a batched item carries; unknown codes become REQ_INTERNAL. */
export function errorOfItem(error: ItemError__Output): StripeError {
  const code: ErrorCode = isErrorCode(error.code) ? error.code : 'REQ_INTERNAL';
  let details: Record<string, unknown> = {};
  if (error.detailsJson) {
    try {
      details = JSON.parse(error.detailsJson) as Record<string, unknown>;
    } catch {
      details = {};
    }
  }
  return new StripeError(code, error.message, details);
}
