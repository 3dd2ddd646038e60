// How the bulk server takes over an accepted connection. net.Server has no
// `onread` option, so the fast path ("user-buffer") wraps the accepted socket's
// handle, which is private (`_handle`), in a new Socket whose reads land in one
// reused 64 KiB buffer per connection, or straight in a write's staging buffer
// (SocketReader.nextBuffer), as Node's own servers wrap accepted handles. The
// plain path reads the accepted socket's 'data' events: a fresh buffer per
// socket read, which the collector then chases.
//
// This is the only code that touches Node's internals, and it checks them
// once at start (checkUserBuffer): a loopback connection is adopted, a probe
// must arrive through the reused buffer and an echo go back. If anything is
// not as expected (a Node upgrade), the server runs the plain path and the OSS
// says so loudly: a warning, the ready line, /healthz and the metric
// stripefs_oss_bulk_socket_path.
import { connect, createServer, type Server, Socket } from 'node:net';
import { SocketReader } from '../common/bulk/socket-reader.js';
import { BULK_SERVER_HIGH_WATER_BYTES, BULK_SOCKET_CHECK_TIMEOUT_MS } from './limits.js';

export type BulkSocketPath = 'user-buffer' | 'plain';

export interface AdoptedSocket {
  socket: Socket;
  reader: SocketReader;
}

/** Takes over an accepted connection (paused by pauseOnConnect). */
export type Adopt = (accepted: Socket) => AdoptedSocket;

/** The reused buffer each connection's socket reads into on the user-buffer path. */
const SOCKET_READ_BYTES = 64 * 1024;

/** The plain path: the accepted socket as it is, read through 'data' events. */
export const adoptPlain: Adopt = (accepted) => {
  const reader = new SocketReader(accepted, BULK_SERVER_HIGH_WATER_BYTES);
  accepted.resume();
  return { socket: accepted, reader };
};

/**
 * The user-buffer path: a socket over the accepted one's handle reading into a reused buffer,
 * with its reader; the accepted one is released without closing the handle. Throws when the
 * accepted socket has no handle of the expected shape.
 */
export const adoptWithUserBuffer: Adopt = (accepted) => {
  const inner = accepted as unknown as { _handle: unknown };
  const handle = inner._handle;
  if (!handle || typeof (handle as { useUserBuffer?: unknown }).useUserBuffer !== 'function')
    throw new Error('the accepted socket has no _handle with useUserBuffer');
  let reader: SocketReader | undefined;
  const spare = Buffer.allocUnsafe(SOCKET_READ_BYTES);
  // `handle` and a server-side `onread` are not in the published types.
  const options = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: () => reader?.nextBuffer(spare) ?? spare,
      callback: (bytes: number, buf: Uint8Array): boolean => {
        return (reader as SocketReader).push(Buffer.from(buf.buffer, buf.byteOffset, bytes), true);
      },
    },
  };
  const socket = new Socket(options as ConstructorParameters<typeof Socket>[0]);
  reader = new SocketReader(socket, BULK_SERVER_HIGH_WATER_BYTES, { external: true });
  inner._handle = null;
  accepted.destroy();
  socket.setNoDelay(true);
  return { socket, reader };
};

/**
 * How the server adopts each connection on `path`. On the user-buffer path a connection whose
 * handle is not as the start-up check found it (never seen) is read the plain way, and counted.
 */
export function adopterOf(path: BulkSocketPath, onFallback: () => void = () => undefined): Adopt {
  if (path === 'plain') return adoptPlain;
  return (accepted) => {
    try {
      return adoptWithUserBuffer(accepted);
    } catch {
      onFallback();
      return adoptPlain(accepted);
    }
  };
}

const PROBE = Buffer.from('stripefs bulk socket check: bytes must arrive through the reused buffer');

/**
 * Adopts one loopback connection with `adopt` and requires a probe to arrive through its reader
 * (with the user-buffer path nothing else delivers bytes) and an echo to come back. Resolves
 * undefined when it does, else what went wrong.
 */
export async function checkUserBuffer(
  adopt: Adopt = adoptWithUserBuffer,
  timeoutMs = BULK_SOCKET_CHECK_TIMEOUT_MS,
): Promise<string | undefined> {
  const sockets: Socket[] = [];
  let server: Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  const served = new Promise<void>((resolve, reject) => {
    server = createServer({ pauseOnConnect: true }, (accepted) => {
      sockets.push(accepted); // closed below even if the adoption fails half way
      try {
        const { socket, reader } = adopt(accepted);
        sockets.push(socket);
        reader.readExact(PROBE.length).then((bytes) => {
          if (!bytes.equals(PROBE)) reject(new Error('the probe arrived altered'));
          else socket.write(bytes, () => resolve());
        }, reject);
      } catch (err) {
        reject(err);
      }
    });
  });
  try {
    const listening = server as unknown as Server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (listening.address() as { port: number }).port;
    const client = connect({ host: '127.0.0.1', port });
    sockets.push(client);
    const echoed = new Promise<void>((resolve, reject) => {
      let got = Buffer.alloc(0);
      client.on('data', (chunk: Buffer) => {
        got = Buffer.concat([got, chunk]);
        if (got.length >= PROBE.length) {
          if (got.equals(PROBE)) resolve();
          else reject(new Error('the echo came back altered'));
        }
      });
      client.on('error', reject);
    });
    client.write(PROBE);
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([Promise.all([served, echoed]), late]);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

/** The path the bulk server runs: user-buffer when wanted and the check passes, else plain with the reason. */
export async function chooseBulkSocketPath(
  wantUserBuffer: boolean,
  check: () => Promise<string | undefined> = () => checkUserBuffer(),
): Promise<{ path: BulkSocketPath; problem?: string }> {
  if (!wantUserBuffer) return { path: 'plain' };
  const problem = await check();
  return problem === undefined ? { path: 'user-buffer' } : { path: 'plain', problem };
}
