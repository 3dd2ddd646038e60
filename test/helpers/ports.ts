// Free port ranges for tests that need fixed ports (the launcher numbers
// every port after a base port).
import { createServer } from 'node:net';

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const PORT_RANGE_FIRST = 20_000;
const PORT_RANGE_END = 32_768;

/** A base port with `count` consecutive free ports after it. */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Below Linux's ephemeral range (32768..60999): a port checked free here may be bound much
    // later (a launcher's added hosts), and outgoing connections take ephemeral ports meanwhile.
    const base = PORT_RANGE_FIRST + Math.floor(Math.random() * (PORT_RANGE_END - PORT_RANGE_FIRST - count));
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => isFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
