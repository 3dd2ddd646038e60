// One retry loop for the data path: MAP_STALE refreshes the map and retries
// at once; transient failures back off (capped, jittered); anything else is
// final. The caller's attempt function sees the map view to use.
import { StripeError } from '../common/errors.js';
import type { Random } from '../common/random.js';
import { backoffMs, sleepMs } from './backoff.js';
import type { ClientCounters } from './counters.js';
import type { ClientLimits } from './limits.js';
import type { MapView } from './map.js';
import type { MdsClient } from './mds-client.js';

/** Failures of one request to one server that a later attempt may not see. */
const TRANSIENT_REQUEST_CODES: ReadonlySet<string> = new Set([
  'REQ_UNAVAILABLE',
  'REQ_TIMEOUT',
  'REQ_INTERNAL',
  'OST_DOWN',
  'FAULT_INJECTED',
  'OBJ_WRITE_CHECKSUM',
  'MAP_STALE',
]);
/** The client's own summaries of transient request failures are transient too. */
const TRANSIENT = new Set([...TRANSIENT_REQUEST_CODES, 'IO_DEGRADED', 'IO_FAILED']);

export function isTransient(err: unknown): boolean {
  return err instanceof StripeError && TRANSIENT.has(err.code);
}

export function isTransientRequestCode(code: string): boolean {
  return TRANSIENT_REQUEST_CODES.has(code);
}

/** New maps one operation waits for before it fails (each may change one OST's state). */
const MAP_WAITS_MAX = 3;

export interface RetryDeps {
  mds: MdsClient;
  limits: ClientLimits;
  random: Random;
  counters: ClientCounters;
}

/** Failures that say an OST cannot be reached now: the MDS will mark it down if it stays so. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['REQ_UNAVAILABLE', 'REQ_TIMEOUT']);

/**
 * The OSTs an exhausted retry failed to reach that the map still shows up: the MDS has not decided
 * yet (its heartbeat timeout is longer than the retries), and its next map may let the attempt
 * leave them out (min_size) or read elsewhere.
 */
export function undecidedOsts(err: unknown, view: MapView): number[] {
  if (!(err instanceof StripeError)) return [];
  const failures = err.details.failures;
  if (!Array.isArray(failures)) return [];
  return failures
    .filter((f: { ost?: unknown; code?: unknown }) => UNREACHABLE_CODES.has(String(f.code)))
    .map((f: { ost?: unknown }) => Number(f.ost))
    .filter((ost) => view.osts.get(ost)?.up === true);
}

export async function withRetries<T>(deps: RetryDeps, attempt: (view: MapView) => Promise<T>): Promise<T> {
  let last: unknown;
  let mapWaits = 0;
  for (let n = 0; n <= deps.limits.retriesMax; n++) {
    try {
      return await attempt(deps.mds.mapView);
    } catch (err) {
      last = err;
      if (!isTransient(err)) throw err;
      if (n === deps.limits.retriesMax) {
        // Out of retries against OSTs the MDS still calls up: wait for its verdict, then retry anew.
        if (mapWaits >= MAP_WAITS_MAX || undecidedOsts(err, deps.mds.mapView).length === 0) break;
        mapWaits++;
        const view = await deps.mds.newerMap(deps.mds.mapView.epoch, deps.limits.ostVerdictWaitMs);
        if (!view) break;
        deps.counters.mapWaits++;
        n = -1;
        continue;
      }
      deps.counters.retries++;
      if (err instanceof StripeError && (err.code === 'MAP_STALE' || err.details.mapStale === true)) {
        // No new map: the retry runs on the old one and fails or refreshes again.
        await deps.mds.refreshMap().catch(() => undefined);
      } else {
        await sleepMs(
          backoffMs(n, { baseMs: deps.limits.backoffMsBase, maxMs: deps.limits.backoffMsMax }, deps.random),
        );
      }
    }
  }
  throw last;
}
