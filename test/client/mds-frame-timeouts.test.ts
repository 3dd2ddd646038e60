// The framed path gives up on a connection that cannot carry calls, so its calls go over gRPC
// instead of waiting: a TLS connect whose handshake never finishes (the shape of a port a
// firewall drops: nothing comes back), and a connection that accepted calls and then went
// silent (an MDS stopped, or a partition cut without a reset). The servers here are stand-ins
// that accept and never answer, since what is under test is the client's channel; the framed
// path against a real MDS is test/client/mds-frames.test.ts. Each failure in a row doubles the
// rest before the path is tried again, and an answer ends the row.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameUnavailable, MdsFrameChannel } from '../../client/mds-frames.js';
import {
  encodeFrameHeader,
  FRAME_REQUEST_MAGIC,
  FRAME_RESPONSE_MAGIC,
  FrameReader,
  FrameStatus,
} from '../../common/mds-frames.js';
import { eventually } from '../helpers/eventually.js';

const TIMEOUTS = { connectMs: 300, silentMs: 300, restMs: 100, restMaxMs: 1_000 };

interface StandIn {
  server: Server;
  port: number;
  /** Requests that arrived whole, by call id. */
  requests: number[];
  sockets: Socket[];
  /** Bytes that were no frame, by read. */
  heard: number[];
}

/** A TCP server that reads frames and answers only when `answer` says so. */
async function standIn(answer: (callId: number) => boolean = () => false): Promise<StandIn> {
  const requests: number[] = [];
  const sockets: Socket[] = [];
  const heard: number[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const reader = new FrameReader(FRAME_REQUEST_MAGIC, (header) => {
      requests.push(header.callId);
      if (!answer(header.callId)) return;
      const body = Buffer.from('ok');
      socket.write(
        encodeFrameHeader({
          magic: FRAME_RESPONSE_MAGIC,
          kind: FrameStatus.ok,
          metaBytes: 0,
          callId: header.callId,
          bodyBytes: body.length,
        }),
      );
      socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk, 0, chunk.length);
      } catch {
        // Not a frame (a TLS client's hello): heard, never answered.
        heard.push(chunk.length);
      }
    });
    socket.on('error', () => {
      // The client gave up on this connection: what the test expects.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, requests, sockets, heard };
}

const channels: MdsFrameChannel[] = [];
const servers: StandIn[] = [];

function channel(
  port: number,
  tls: ConstructorParameters<typeof MdsFrameChannel>[1] = null,
): MdsFrameChannel {
  const ch = new MdsFrameChannel(
    `127.0.0.1:${port}`,
    tls,
    () => [],
    () => {},
    TIMEOUTS,
  );
  ch.setPort(port);
  channels.push(ch);
  return ch;
}

afterEach(async () => {
  for (const ch of channels.splice(0)) ch.close();
  for (const s of servers.splice(0)) {
    for (const socket of s.sockets) socket.destroy();
    await new Promise<void>((resolve) => s.server.close(() => resolve()));
  }
});

describe('the framed path gives up on a connection that cannot carry calls', () => {
  it('a TLS handshake that never finishes: the call is refused to the caller as FrameUnavailable and the path rests', async () => {
    const server = await standIn();
    servers.push(server);
    const tls = {
      ca: Buffer.from('no handshake reaches the certificate'),
      cert: undefined,
      key: undefined,
      serverName: 'stripefs',
    };
    const ch = channel(server.port, tls);
    const err = await ch.call('StatMany', '/stripefs.v1.MdsService/StatMany', Buffer.from('x')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FrameUnavailable);
    expect((err as Error).message).toMatch(/no connection within 300 ms/);
    expect(ch.usable).toBe(false);
    expect(server.requests).toEqual([]);
    expect(server.heard.length, 'the client said hello and got nothing back').toBeGreaterThan(0);
  });

  it('a connection that goes silent while calls wait: every waiting call is handed back, each failure in a row rests longer', async () => {
    let answering = false;
    const server = await standIn(() => answering);
    servers.push(server);
    const ch = channel(server.port);
    const call = () =>
      ch.call('OpenMany', '/stripefs.v1.MdsService/OpenMany', Buffer.from('x')).then(
        (body) => body.toString(),
        (e: unknown) => (e instanceof FrameUnavailable ? e.message : String(e)),
      );
    const outcomes = await Promise.all([call(), call(), call()]);
    expect(outcomes).toEqual(Array(3).fill(expect.stringMatching(/no answer for 300 ms while calls waited/)));
    expect(server.requests).toHaveLength(3);
    expect([ch.usable, ch.lastRestMs]).toEqual([false, TIMEOUTS.restMs]);

    // Tried again after its rest, still silent: the next rest is twice as long.
    await eventually(() => ch.usable || undefined, { timeoutMs: 10_000, what: 'the first rest to end' });
    expect(await call()).toMatch(/no answer/);
    expect(ch.lastRestMs).toBe(2 * TIMEOUTS.restMs);

    // The MDS answers again: the call is answered, and the next failure rests the first rest again.
    answering = true;
    await eventually(() => ch.usable || undefined, { timeoutMs: 10_000, what: 'the second rest to end' });
    expect(await call()).toBe('ok');
    expect(ch.calls).toBe(1);
    answering = false;
    expect(await call()).toMatch(/no answer/);
    expect(ch.lastRestMs).toBe(TIMEOUTS.restMs);
  });
});
