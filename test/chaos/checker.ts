// The chaos history checker. Pure: a function of the recorded events.
//
// Writes are stripe-unit aligned, so a correct store returns each unit of a
// read whole from one write. For a read R and a unit at offset o, a write W
// covering o may be what R returned when
//   - W was invoked before R ended (else R saw the future), and
//   - W is not superseded: no acknowledged write W2 covering o was invoked
//     after W ended (acknowledged or failed) and acknowledged before R was
//     invoked. A write that never ended (the run stopped first) is never
//     superseded.
// Zeros may be returned only while no acknowledged write covering o ended
// before R was invoked. A unit whose cells name several writes, or none, is a
// mix or corruption. The size R saw may not be below the end of a write
// acknowledged before R started (sizes only grow: writers commit grow-only)
// nor beyond every write invoked before R ended. A final read (after the
// faults stopped and every PG was clean) must succeed, and by the same rule
// returns the last acknowledged write of every unit (or a later failed one):
// every acknowledged write is there. This is a regular register per unit,
// the guarantee stripefs states for writers that do not overlap in time on
// the same bytes (docs/ARCHITECTURE.md, "Versioned copies").
import { CELL_BAD, CELL_ZEROS } from './contents.js';
import { formatEvents, type HistoryEvent, type ReadInvoke, type WriteInvoke } from './history.js';

interface Op<I> {
  invoke: I;
  invokeSeq: number;
  /** Index of the ok or fail event; undefined while it never ended. */
  endSeq?: number;
  ok: boolean;
}
type WriteOp = Op<WriteInvoke>;

export interface Violation {
  kind: 'stale' | 'future' | 'misplaced' | 'lost' | 'corrupt' | 'size' | 'unavailable' | 'malformed';
  op: number;
  file: string;
  message: string;
  /** The smallest part of the history that shows it, as event indexes. */
  sliceSeqs: number[];
}

export interface CheckResult {
  violations: Violation[];
  counts: {
    writesOk: number;
    writesFailed: number;
    readsOk: number;
    readsFailed: number;
    unitsChecked: number;
  };
}

interface Parsed {
  writes: Map<number, WriteOp>;
  reads: (Op<ReadInvoke> & {
    units: number[];
    details: Record<number, string>;
    sizeBytes: number;
    offsetBytes: number;
    error?: string;
  })[];
  unitBytes: Map<string, number>;
  malformed: Violation[];
}

function parse(events: HistoryEvent[]): Parsed {
  const writes = new Map<number, WriteOp>();
  const reads: Parsed['reads'] = [];
  const readsByOp = new Map<number, Parsed['reads'][number]>();
  const unitBytes = new Map<string, number>();
  const malformed: Violation[] = [];
  events.forEach((event, seq) => {
    if (event.type === 'file') unitBytes.set(event.file, event.unitBytes);
    else if (event.type === 'invoke') {
      if (event.kind === 'write') writes.set(event.op, { invoke: event, invokeSeq: seq, ok: false });
      else {
        const read: Read = {
          invoke: event,
          invokeSeq: seq,
          ok: false,
          units: [],
          details: {},
          sizeBytes: 0,
          offsetBytes: 0,
        };
        reads.push(read);
        readsByOp.set(event.op, read);
      }
    } else if (event.type === 'ok' || event.type === 'fail') {
      const op = writes.get(event.op) ?? readsByOp.get(event.op);
      if (!op || op.endSeq !== undefined) {
        malformed.push({
          kind: 'malformed',
          op: event.op,
          file: '',
          message: `event #${seq} ends op ${event.op}, which ${op ? 'had ended' : 'was never invoked'}`,
          sliceSeqs: [seq],
        });
        return;
      }
      op.endSeq = seq;
      op.ok = event.type === 'ok';
      const read = readsByOp.get(event.op);
      if (read && event.type === 'ok') {
        read.units = event.units ?? [];
        read.details = event.details ?? {};
        read.sizeBytes = event.sizeBytes ?? 0;
        read.offsetBytes = event.offsetBytes ?? 0;
      }
      if (read && event.type === 'fail') read.error = event.error;
    }
  });
  return { writes, reads, unitBytes, malformed };
}

/** Per file and unit offset, the writes covering that unit, in invoke order. */
function writesByUnit(parsed: Parsed): Map<string, Map<number, WriteOp[]>> {
  const byFile = new Map<string, Map<number, WriteOp[]>>();
  for (const w of parsed.writes.values()) {
    const { file, offsetBytes, lengthBytes } = w.invoke;
    const unit = parsed.unitBytes.get(file) ?? 1;
    const units = byFile.get(file) ?? new Map<number, WriteOp[]>();
    byFile.set(file, units);
    for (let o = Math.floor(offsetBytes / unit) * unit; o < offsetBytes + lengthBytes; o += unit) {
      const list = units.get(o) ?? [];
      list.push(w);
      units.set(o, list);
    }
  }
  return byFile;
}

type Read = Parsed['reads'][number];

/** The acknowledged write, covering the unit, that was invoked last among those acknowledged before `read` began. */
function lastAcknowledged(covering: WriteOp[], read: Read): WriteOp | undefined {
  let last: WriteOp | undefined;
  for (const w of covering)
    if (w.ok && (w.endSeq as number) < read.invokeSeq && (!last || w.invokeSeq > last.invokeSeq)) last = w;
  return last;
}

function checkUnit(
  read: Read,
  index: number,
  unitBytes: number,
  covering: WriteOp[],
  writes: Map<number, WriteOp>,
): Violation | undefined {
  const offset = read.offsetBytes + index * unitBytes;
  const value = read.units[index] as number;
  const file = read.invoke.file;
  const at = `${file} unit at ${offset}`;
  const readSeqs = [read.invokeSeq, read.endSeq as number];
  const last = lastAcknowledged(covering, read);
  const lastSeqs = last ? [last.invokeSeq, last.endSeq as number] : [];
  const base = { op: read.invoke.op, file };
  if (value === CELL_BAD)
    return {
      ...base,
      kind: 'corrupt',
      message: `read ${read.invoke.op}: ${at}: ${read.details[index] ?? 'corrupt'}`,
      sliceSeqs: [...readSeqs, ...lastSeqs],
    };
  if (value === CELL_ZEROS) {
    if (!last) return undefined;
    return {
      ...base,
      kind: 'lost',
      message: `read ${read.invoke.op}: ${at} is zeros, but write ${last.invoke.op} there was acknowledged before the read began`,
      sliceSeqs: [...readSeqs, ...lastSeqs],
    };
  }
  const w = writes.get(value);
  if (!w || !covering.includes(w))
    return {
      ...base,
      kind: 'misplaced',
      message: `read ${read.invoke.op}: ${at} holds write ${value}, which never wrote there`,
      sliceSeqs: w ? [...readSeqs, w.invokeSeq] : readSeqs,
    };
  const wSeqs = w.endSeq === undefined ? [w.invokeSeq] : [w.invokeSeq, w.endSeq];
  if (w.invokeSeq > (read.endSeq as number))
    return {
      ...base,
      kind: 'future',
      message: `read ${read.invoke.op}: ${at} holds write ${value}, invoked after the read ended`,
      sliceSeqs: [...readSeqs, ...wSeqs],
    };
  if (last && w.endSeq !== undefined && w.endSeq < last.invokeSeq)
    return {
      ...base,
      kind: 'stale',
      message: `read ${read.invoke.op}: ${at} holds write ${value} (${w.ok ? 'acknowledged' : 'failed'}), but write ${last.invoke.op} replaced it and was acknowledged before the read began`,
      sliceSeqs: [...readSeqs, ...wSeqs, ...lastSeqs],
    };
  return undefined;
}

function checkSize(read: Read, writes: WriteOp[]): Violation | undefined {
  let lowest = 0;
  let highest = 0;
  let lowestBy: WriteOp | undefined;
  for (const w of writes) {
    const end = w.invoke.offsetBytes + w.invoke.lengthBytes;
    if (w.ok && (w.endSeq as number) < read.invokeSeq && end > lowest) {
      lowest = end;
      lowestBy = w;
    }
    if (w.invokeSeq < (read.endSeq as number)) highest = Math.max(highest, end);
  }
  const base = { kind: 'size' as const, op: read.invoke.op, file: read.invoke.file };
  const seqs = [read.invokeSeq, read.endSeq as number];
  if (read.sizeBytes < lowest && lowestBy)
    return {
      ...base,
      message: `read ${read.invoke.op} saw size ${read.sizeBytes}, but write ${lowestBy.invoke.op} to ${lowest} was acknowledged before it began`,
      sliceSeqs: [...seqs, lowestBy.invokeSeq, lowestBy.endSeq as number],
    };
  if (read.sizeBytes > highest)
    return {
      ...base,
      message: `read ${read.invoke.op} saw size ${read.sizeBytes}, beyond every write invoked before it ended (${highest})`,
      sliceSeqs: seqs,
    };
  return undefined;
}

/** Checks every read of the history; returns the violations, each with the slice that shows it. */
export function checkHistory(events: HistoryEvent[]): CheckResult {
  const parsed = parse(events);
  const byUnit = writesByUnit(parsed);
  const writesOfFile = new Map<string, WriteOp[]>();
  for (const w of parsed.writes.values()) {
    const list = writesOfFile.get(w.invoke.file) ?? [];
    list.push(w);
    writesOfFile.set(w.invoke.file, list);
  }
  const violations = [...parsed.malformed];
  let unitsChecked = 0;
  for (const read of parsed.reads) {
    const file = read.invoke.file;
    if (read.endSeq === undefined) continue;
    if (!read.ok) {
      if (read.invoke.final)
        violations.push({
          kind: 'unavailable',
          op: read.invoke.op,
          file,
          message: `final read ${read.invoke.op} of ${file} failed after the cluster was clean: ${read.error}`,
          sliceSeqs: [read.invokeSeq, read.endSeq],
        });
      continue;
    }
    const sized = checkSize(read, writesOfFile.get(file) ?? []);
    if (sized) violations.push(sized);
    const unitBytes = parsed.unitBytes.get(file) ?? 1;
    for (let i = 0; i < read.units.length; i++) {
      const covering = byUnit.get(file)?.get(read.offsetBytes + i * unitBytes) ?? [];
      const found = checkUnit(read, i, unitBytes, covering, parsed.writes);
      unitsChecked++;
      if (found) violations.push(found);
    }
  }
  const all = [...parsed.writes.values()];
  return {
    violations,
    counts: {
      writesOk: all.filter((w) => w.ok).length,
      writesFailed: all.filter((w) => !w.ok && w.endSeq !== undefined).length,
      readsOk: parsed.reads.filter((r) => r.ok).length,
      readsFailed: parsed.reads.filter((r) => !r.ok && r.endSeq !== undefined).length,
      unitsChecked,
    },
  };
}

/**
 * The events that show a violation: its slice, plus every fault event between the slice's first
 * and last event (what the cluster went through meanwhile), in history order.
 */
export function sliceOf(
  events: HistoryEvent[],
  violation: Violation,
): { seq: number; event: HistoryEvent }[] {
  const seqs = new Set(violation.sliceSeqs);
  const from = Math.min(...seqs);
  const to = Math.max(...seqs);
  for (let seq = from; seq <= to; seq++) if (events[seq]?.type === 'fault') seqs.add(seq);
  return [...seqs].sort((a, b) => a - b).map((seq) => ({ seq, event: events[seq] as HistoryEvent }));
}

/** A violation as printed: what, the seed to replay, and its slice. */
export function describeViolation(events: HistoryEvent[], violation: Violation): string {
  return `${violation.kind}: ${violation.message}\n${formatEvents(sliceOf(events, violation))}`;
}
