// How an OSS's ticket refusals are seen: each is counted in
// stripefs_oss_ticket_refused_total{code, door}, sent to the MDS's audit log
// (ReportAudit, through `report`: rate-limited there per address, the OSS's
// queue bounded), and logged as a warning, at most one line per
// TICKET_LOG_INTERVAL_MS with the count of those left out.
import type { RefusalReport } from '../common/auth/audit-reporter.js';
import type { Logger } from '../common/logging.js';
import { Counter, type Registry } from '../common/metrics.js';
import type { TicketGuard } from './tickets.js';

/** Refusals logged at most once per this many milliseconds (the counter counts them all). */
export const TICKET_LOG_INTERVAL_MS = 1_000;

export function watchTicketRefusals(
  guard: TicketGuard,
  registry: Registry,
  logger: Logger,
  nowMs: () => number,
  report: (report: RefusalReport) => void = () => undefined,
): void {
  const refused = new Counter({
    name: 'stripefs_oss_ticket_refused_total',
    help: 'Object requests this OSS refused for their data-path ticket, by code and door (grpc, bulk)',
    labelNames: ['code', 'door'] as const,
    registers: [registry],
  });
  let lastLogMs = -Infinity;
  let unlogged = 0;
  guard.onRefused = (code, door, error, context) => {
    refused.inc({ code, door });
    const identity = error.details.identity;
    report({
      identity: typeof identity === 'string' ? identity : '',
      address: context.address ?? '',
      op: context.op ?? door,
      paths: typeof error.details.objectId === 'string' ? [`object:${error.details.objectId}`] : [],
      result: code,
      door: `oss-${door}`,
    });
    const now = nowMs();
    if (now - lastLogMs < TICKET_LOG_INTERVAL_MS) {
      unlogged += 1;
      return;
    }
    lastLogMs = now;
    logger.warn(
      { code, door, identity: error.details.identity, objectId: error.details.objectId, unlogged },
      `ticket refused: ${error.message}`,
    );
    unlogged = 0;
  };
}
