// What a chaos run writes once more after the faults stop, before the deep
// scrub: per file, the range from the first unit whose last write was not
// acknowledged (it failed, or never ended) to the end of every write. A
// failed write may have reached some copies and not others (or some chunks
// of an ec stripe and not others): stripefs keeps no log to undo it, so its
// copies differ until the bytes are written again or a deep scrub repairs
// them, and a read may return either (the checker allows both). Units whose
// last write was acknowledged are on every copy, so the scrub still requires
// them equal: only what a failed write could explain is written over. Pure.
import type { HistoryEvent } from './history.js';

export interface SettleRange {
  file: string;
  offsetBytes: number;
  lengthBytes: number;
}

/**
 * The range to write once more in `file` (units of `unitBytes`, overwrites starting at a multiple
 * of `overwriteBytes`: ec writes whole stripes), or undefined when every unit's last write was
 * acknowledged.
 */
export function settleRange(
  events: readonly HistoryEvent[],
  file: string,
  unitBytes: number,
  overwriteBytes: number,
): SettleRange | undefined {
  const outcome = new Map<number, boolean>();
  for (const e of events) if (e.type === 'ok' || e.type === 'fail') outcome.set(e.op, e.type === 'ok');
  /** Per unit index, whether its last write (in invoke order) was acknowledged. */
  const lastOk = new Map<number, boolean>();
  let end = 0;
  for (const e of events) {
    if (e.type !== 'invoke' || e.kind !== 'write' || e.file !== file) continue;
    end = Math.max(end, e.offsetBytes + e.lengthBytes);
    for (let at = e.offsetBytes; at < e.offsetBytes + e.lengthBytes; at += unitBytes)
      lastOk.set(Math.floor(at / unitBytes), outcome.get(e.op) === true);
  }
  const unsettled = [...lastOk].filter(([, ok]) => !ok).map(([unit]) => unit);
  if (unsettled.length === 0) return undefined;
  const offsetBytes = Math.floor((Math.min(...unsettled) * unitBytes) / overwriteBytes) * overwriteBytes;
  const endBytes = Math.ceil(end / unitBytes) * unitBytes;
  return { file, offsetBytes, lengthBytes: endBytes - offsetBytes };
}
