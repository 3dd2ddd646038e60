// A TCP relay between one process and a server, for partitions that cut only
// that one path: an OSS given the relay's address as its MDS reaches the MDS
// through it, and `cut()` stops every byte both ways (held, as a partition's
// retransmissions are, until `heal()`) while clients still reach the OSS.
// Needs no root, unlike a network namespace (test/helpers/netns.ts), which
// cuts the process off from everyone.
import { connect, createServer, type Server, type Socket } from 'node:net';

export class PauseProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private cutOff = false;
  private port = 0;

  /** `target`: host:port of the server every connection is relayed to. */
  constructor(private readonly target: string) {
    this.server = createServer((down) => this.relay(down));
  }

  /** Listens on 127.0.0.1 and returns the address to give the process instead of the server's. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return `127.0.0.1:${this.port}`;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Holds every byte either way, on open connections and on those opened meanwhile. */
  cut(): void {
    this.cutOff = true;
    for (const s of this.sockets) s.pause();
  }

  /** Lets the held bytes and every later one through. */
  heal(): void {
    this.cutOff = false;
    for (const s of this.sockets) s.resume();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(down: Socket): void {
    const [host, port] = [
      this.target.slice(0, this.target.lastIndexOf(':')),
      this.target.slice(this.target.lastIndexOf(':') + 1),
    ];
    const up = connect(Number(port), host);
    for (const [from, to] of [
      [down, up],
      [up, down],
    ] as const) {
      this.sockets.add(from);
      if (this.cutOff) from.pause();
      from.on('data', (bytes) => to.write(bytes));
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}
