// `put --stats` / `get --stats`: the client's own numbers after a copy
// (throughput, latency per request kind, cache and readahead, bytes and the
// wait for an answer per OST with the ones read last as slow or suspect,
// retries and degraded reads), as a text report or as JSON.
import type { ClientStats } from '../client/index.js';
import { formatBytes, formatRate, table } from './format.js';

/** The report printed on stderr after a copy (stdout may carry the data). */
export function clientStatsText(s: ClientStats): string {
  const seconds = s.elapsedMs / 1000;
  const lines: string[] = [];
  lines.push(
    `read ${formatBytes(s.bytesRead)}, wrote ${formatBytes(s.bytesWritten)} in ${seconds.toFixed(2)} s` +
      ` (read ${formatRate(s.readBytesPerSec)}, write ${formatRate(s.writeBytesPerSec)})`,
  );
  const kinds = Object.entries(s.latency).filter(([, v]) => v !== undefined && v.count > 0);
  if (kinds.length > 0) {
    const rows = kinds.map(([kind, v]) => [
      kind,
      String(v?.count ?? 0),
      (v?.p50Ms ?? 0).toFixed(2),
      (v?.p99Ms ?? 0).toFixed(2),
      (v?.meanMs ?? 0).toFixed(2),
    ]);
    lines.push(table(['LATENCY', 'COUNT', 'P50 MS', 'P99 MS', 'MEAN MS'], rows));
  }
  const c = s.cache;
  lines.push(
    `cache: hit rate ${(c.hitRate * 100).toFixed(1)}% (${c.hits} hits, ${c.misses} misses), ` +
      `${formatBytes(c.sizeBytes)} held, ${c.evictions} evictions, ${c.staleDrops} stale drops, ` +
      `${c.blocksAllocated} blocks allocated`,
  );
  lines.push(
    `readahead: ${formatBytes(s.readahead.hitBytes)} read from it, ${formatBytes(s.readahead.wasteBytes)} wasted`,
  );
  const d = s.diskCache;
  if (d)
    lines.push(
      `disk cache: ${d.hits} hits (${formatBytes(d.hitBytes)}), ${d.misses} misses, ${formatBytes(d.sizeBytes)} of ` +
        `${formatBytes(d.bytesMax)} held in ${d.files} files, ${d.evictions} evictions, ${d.corrupt} failed their check`,
    );
  const perOst = ostTable(s);
  if (perOst) lines.push(perOst);
  lines.push(
    `requests: ${s.requests.bulk} bulk, ${s.requests.grpc} gRPC; retries ${s.retries}, ` +
      `degraded reads ${s.degradedReads}, bad chunks reported ${s.badChunksReported}, ` +
      `checksum rechecks ${s.checksumRechecks}, slow OST verdicts ${s.osts.slowVerdicts}, ` +
      `timeouts ${s.osts.timeouts}, requests given up on OSTs marked down ${s.ostDownAborts}, waits for the MDS to decide on an OST ${s.mapWaits}`,
  );
  return `${lines.join('\n')}\n`;
}

/** One row per OST the client touched or knows to be down: bytes, answer time and state. */
function ostTable(s: ClientStats): string | undefined {
  const osts = [
    ...new Set([
      ...Object.keys(s.bytesReadPerOst),
      ...Object.keys(s.bytesWrittenPerOst),
      ...Object.keys(s.osts.answerMs),
      ...s.osts.slow.map(String),
      ...s.osts.suspect.map(String),
      ...s.osts.down.map(String),
    ]),
  ]
    .map(Number)
    .sort((a, b) => a - b);
  if (osts.length === 0) return undefined;
  const state = (id: number): string =>
    s.osts.down.includes(id)
      ? 'down'
      : s.osts.suspect.includes(id)
        ? 'suspect'
        : s.osts.slow.includes(id)
          ? 'slow'
          : 'ok';
  const rows = osts.map((id) => [
    `ost${id}`,
    formatBytes(s.bytesReadPerOst[id] ?? 0),
    formatBytes(s.bytesWrittenPerOst[id] ?? 0),
    s.osts.answerMs[id] === undefined ? '-' : (s.osts.answerMs[id] as number).toFixed(2),
    state(id),
  ]);
  return table(['OST', 'READ', 'WRITTEN', 'ANSWER MS', 'STATE'], rows);
}
