// A client against an MDS whose framed path does not serve a method (an MDS from before lone Open
// and Stat were framed answers their frames "no method N here"): the call goes over gRPC, and so
// does every later call of that method, while the methods the MDS serves stay framed. The server
// is a stand-in that answers as such an MDS does; the framed path against a real MDS is
// test/mds/frames.test.ts and test/client/mds-frames.test.ts.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framedOr, MdsFrameChannel } from '../../client/mds-frames.js';
import { StripeError } from '../../common/errors.js';
import {
  encodeFrameError,
  encodeFrameHeader,
  FRAME_REQUEST_MAGIC,
  FRAME_RESPONSE_MAGIC,
  FRAMED_METHODS,
  FrameReader,
  FrameStatus,
} from '../../common/mds-frames.js';

/** Answers OpenMany frames "ok" and refuses every other method as an older MDS does. */
async function olderMds(): Promise<{ server: Server; port: number; kinds: number[]; sockets: Socket[] }> {
  const kinds: number[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const reader = new FrameReader(FRAME_REQUEST_MAGIC, (header) => {
      kinds.push(header.kind);
      const served = header.kind === FRAMED_METHODS.OpenMany;
      const body = served
        ? Buffer.from('ok')
        : encodeFrameError(new StripeError('REQ_INVALID', `MDS frame: no method ${header.kind} here`));
      socket.write(
        encodeFrameHeader({
          magic: FRAME_RESPONSE_MAGIC,
          kind: served ? FrameStatus.ok : FrameStatus.error,
          metaBytes: 0,
          callId: header.callId,
          bodyBytes: body.length,
        }),
      );
      socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => reader.push(chunk, 0, chunk.length));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, kinds, sockets };
}

describe('a framed method the MDS does not serve', () => {
  let mds: Awaited<ReturnType<typeof olderMds>>;
  let channel: MdsFrameChannel;

  beforeAll(async () => {
    mds = await olderMds();
    channel = new MdsFrameChannel(
      `127.0.0.1:${mds.port}`,
      null,
      () => [],
      () => {},
    );
    channel.setPort(mds.port);
  });
  afterAll(async () => {
    channel?.close();
    for (const socket of mds?.sockets ?? []) socket.destroy();
    await new Promise<void>((resolve) => mds.server.close(() => resolve()));
  });

  const viaFrames = (method: 'Open' | 'OpenMany', grpcAnswer: string) =>
    framedOr(
      channel,
      method,
      `/stripefs.v1.MdsService/${method}`,
      () => Buffer.from('request'),
      (body) => body.toString(),
      async () => grpcAnswer,
    );

  it('goes over gRPC, and stays there, while the methods the MDS serves stay framed', async () => {
    expect(await viaFrames('Open', 'over gRPC')).toBe('over gRPC');
    expect(mds.kinds).toEqual([FRAMED_METHODS.Open]);
    expect(channel.fallbacks).toBe(1);
    // The next Open is not tried on the framed path at all.
    expect(await viaFrames('Open', 'over gRPC again')).toBe('over gRPC again');
    expect(mds.kinds).toEqual([FRAMED_METHODS.Open]);
    expect(channel.fallbacks).toBe(2);
    // OpenMany, which it serves, is framed.
    expect(await viaFrames('OpenMany', 'not used')).toBe('ok');
    expect(mds.kinds).toEqual([FRAMED_METHODS.Open, FRAMED_METHODS.OpenMany]);
    expect(channel.calls).toBe(1);
  });

  it('an MDS that moved its framed path (a new port) is asked again', async () => {
    const moved = await olderMds();
    try {
      channel.setPort(moved.port);
      expect(await viaFrames('Open', 'over gRPC')).toBe('over gRPC');
      expect(moved.kinds).toEqual([FRAMED_METHODS.Open]);
    } finally {
      for (const socket of moved.sockets) socket.destroy();
      await new Promise<void>((resolve) => moved.server.close(() => resolve()));
    }
  });
});
