// The chaos run's history: every operation's invoke and its ok or fail, in the
// order they happened in the one process that runs every client, and the
// faults between them. Writes carry their write id (the op id) and range;
// a read's ok carries the size it saw, where it began (chosen once the size
// was known) and, per stripe unit from there,
// the write id every byte of the unit names (0: zeros, -1: corrupt or a mix,
// with `details`). The checker (checker.ts) reads nothing else.
import { appendFileSync, writeFileSync } from 'node:fs';

export interface FileEvent {
  type: 'file';
  file: string;
  layout: string;
  unitBytes: number;
}
export interface WriteInvoke {
  type: 'invoke';
  op: number;
  kind: 'write';
  file: string;
  offsetBytes: number;
  lengthBytes: number;
}
export interface ReadInvoke {
  type: 'invoke';
  op: number;
  kind: 'read';
  file: string;
  /** A read after the faults stopped and the cluster was clean: it must succeed. */
  final?: boolean;
}
export interface OkEvent {
  type: 'ok';
  op: number;
  /** Reads: the file's size at open, where the read began (a unit boundary), and per unit from there what it held. */
  sizeBytes?: number;
  offsetBytes?: number;
  units?: number[];
  details?: Record<number, string>;
}
export interface FailEvent {
  type: 'fail';
  op: number;
  error: string;
}
export interface FaultEvent {
  type: 'fault';
  what: string;
}
export type HistoryEvent = FileEvent | WriteInvoke | ReadInvoke | OkEvent | FailEvent | FaultEvent;

/** Records events in memory and, when given a path, appends each as a JSON line (a crash keeps the history). */
export class History {
  readonly events: HistoryEvent[] = [];
  private nextOp = 1;

  constructor(private readonly path?: string) {
    if (path) writeFileSync(path, '');
  }

  add(event: HistoryEvent): void {
    this.events.push(event);
    if (this.path) appendFileSync(this.path, `${JSON.stringify(event)}\n`);
  }

  /** A fresh op id (also the write id of a write). */
  op(): number {
    return this.nextOp++;
  }
}

/** One line per event, with its index: how a slice is printed. */
export function formatEvents(events: { seq: number; event: HistoryEvent }[]): string {
  return events.map(({ seq, event }) => `  #${seq} ${JSON.stringify(event)}`).join('\n');
}
