// One way to start a TCP (or TLS) server and to stop it: the MDS's framed
// calls (mds/frame-server.ts) and the OSS's bulk path (oss/bulk-server.ts)
// listen the same way. The caller keeps the set of connections it serves;
// close stops accepting and destroys those still open, so a stop never waits
// on a client that keeps its connection.
import type { Server, Socket } from 'node:net';

export interface ListeningServer {
  /** The port bound (the one asked for, or the one picked for 0). */
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port (0: any free port); `what` names the server in the error if no port is bound. */
export async function listenTcp(
  server: Server,
  host: string,
  port: number,
  sockets: ReadonlySet<Socket>,
  what: string,
): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error(`${what} has no port`);
  return {
    port: address.port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
