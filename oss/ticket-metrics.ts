// How an OSS's ticket refusals are seen: the OSS keeps no audit log of its
// own (the MDS's is the namespace's), so every refusal is counted in
// stripefs_oss_ticket_refused_total{code, door} and logged as a warning, at
// most one line per TICKET_LOG_INTERVAL_MS with the count of those left out.
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
): void {
  const refused = new Counter({
    name: 'stripefs_oss_ticket_refused_total',
    help: 'Object requests this OSS refused for their data-path ticket, by code and door (grpc, bulk)',
    labelNames: ['code', 'door'] as const,
    registers: [registry],
  });
  let lastLogMs = -Infinity;
  let unlogged = 0;
  guard.onRefused = (code, door, error) => {
    refused.inc({ code, door });
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
