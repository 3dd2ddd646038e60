// Per-mount numbers: every FUSE operation's count, errors (by errno) and the
// time stripefs spent answering it (from the request reaching this process to
// the answer). What a program measures around its system call minus this time
// is the FUSE round trip (bench/mount.ts reports both). Served at /stats and
// /metrics of the mount's admin address, and by `stripefs mount --stats`.

export interface OpStats {
  count: number;
  errors: number;
  totalMs: number;
  maxMs: number;
}

export interface MountStatsSnapshot {
  mountpoint: string;
  uptimeMs: number;
  ops: Record<string, OpStats>;
  errnos: Record<string, number>;
  bytesRead: number;
  bytesWritten: number;
  openFiles: number;
  attrCache: { entries: number; hits: number; misses: number };
  /** The binding was rebuilt with correct utimens (scripts/build-fuse.mjs). */
  bindingRebuilt: boolean;
}

export class MountStats {
  private readonly ops = new Map<string, OpStats>();
  private readonly errnos = new Map<string, number>();
  private readonly startedMs = performance.now();
  bytesRead = 0;
  bytesWritten = 0;

  record(op: string, ms: number, errnoName: string | undefined): void {
    let entry = this.ops.get(op);
    if (!entry) {
      entry = { count: 0, errors: 0, totalMs: 0, maxMs: 0 };
      this.ops.set(op, entry);
    }
    entry.count++;
    entry.totalMs += ms;
    entry.maxMs = Math.max(entry.maxMs, ms);
    if (errnoName !== undefined) {
      entry.errors++;
      this.errnos.set(errnoName, (this.errnos.get(errnoName) ?? 0) + 1);
    }
  }

  snapshot(
    extra: Omit<MountStatsSnapshot, 'uptimeMs' | 'ops' | 'errnos' | 'bytesRead' | 'bytesWritten'>,
  ): MountStatsSnapshot {
    return {
      ...extra,
      uptimeMs: performance.now() - this.startedMs,
      ops: Object.fromEntries([...this.ops].map(([op, s]) => [op, { ...s }])),
      errnos: Object.fromEntries(this.errnos),
      bytesRead: this.bytesRead,
      bytesWritten: this.bytesWritten,
    };
  }
}

/** Prometheus text of a snapshot. */
export function statsToMetrics(s: MountStatsSnapshot): string {
  const label = `mountpoint=${JSON.stringify(s.mountpoint)}`;
  const lines = [
    '# HELP stripefs_mount_ops_total FUSE operations answered, by operation',
    '# TYPE stripefs_mount_ops_total counter',
    ...Object.entries(s.ops).map(([op, o]) => `stripefs_mount_ops_total{${label},op="${op}"} ${o.count}`),
    '# HELP stripefs_mount_op_errors_total FUSE operations answered with an error, by operation',
    '# TYPE stripefs_mount_op_errors_total counter',
    ...Object.entries(s.ops).map(
      ([op, o]) => `stripefs_mount_op_errors_total{${label},op="${op}"} ${o.errors}`,
    ),
    '# HELP stripefs_mount_op_seconds_total Time stripefs spent answering, by operation',
    '# TYPE stripefs_mount_op_seconds_total counter',
    ...Object.entries(s.ops).map(
      ([op, o]) => `stripefs_mount_op_seconds_total{${label},op="${op}"} ${(o.totalMs / 1000).toFixed(6)}`,
    ),
    '# HELP stripefs_mount_errno_total Errors answered, by errno',
    '# TYPE stripefs_mount_errno_total counter',
    ...Object.entries(s.errnos).map(([e, n]) => `stripefs_mount_errno_total{${label},errno="${e}"} ${n}`),
    '# TYPE stripefs_mount_read_bytes_total counter',
    `stripefs_mount_read_bytes_total{${label}} ${s.bytesRead}`,
    '# TYPE stripefs_mount_written_bytes_total counter',
    `stripefs_mount_written_bytes_total{${label}} ${s.bytesWritten}`,
    '# TYPE stripefs_mount_open_files gauge',
    `stripefs_mount_open_files{${label}} ${s.openFiles}`,
  ];
  return `${lines.join('\n')}\n`;
}
