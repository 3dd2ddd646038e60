// The MDS's framed path (common/mds-frames.ts, mds/frame-server.ts) on a real
// MDS process: GetMap names its port; a framed OpenMany and StatMany, and a
// lone Open and Stat, answer exactly what the gRPC calls answer; every frame passes the checks a gRPC
// call passes (no signature, a wrong key, a replayed signature, one signed for
// another method, per-item caps) with the same codes, and changes nothing it
// may not; a broken frame closes only its own connection. A client whose port
// answers nothing sends the batch over gRPC; with mds.frames off GetMap names
// no port and a client's batches go over gRPC.

import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { generateIdentity, readKeyring } from '../../common/auth/keyring.js';
import { AUTH_METADATA_KEY, CallSigner } from '../../common/auth/proof.js';
import { call } from '../../common/grpc.js';
import {
  decodeFrameError,
  encodeFrameHeader,
  encodeMeta,
  FRAME_REQUEST_MAGIC,
  FRAME_RESPONSE_MAGIC,
  FRAMED_METHODS,
  FrameCutter,
  type FramedMethod,
  FrameStatus,
} from '../../common/mds-frames.js';
import { contract } from '../../proto/index.js';
import { runCli } from '../helpers/cli.js';
import { codeOf } from '../helpers/errors.js';
import { type MdsUnderTest, registerOss, startMds, stopMds, tempDir } from './helpers.js';

/** A raw framed connection: one call at a time, its answer's status and body. */
class RawFrames {
  private readonly socket: Socket;
  private readonly answers: { status: number; body: Buffer }[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    const cutter = new FrameCutter(FRAME_RESPONSE_MAGIC, (header, _meta, body) => {
      this.answers.push({ status: header.kind, body: Buffer.from(body) });
      this.wake?.();
    });
    this.socket.on('data', (chunk: Buffer) => cutter.push(chunk));
    this.socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    this.socket.on('error', () => undefined);
  }

  send(raw: Buffer): void {
    this.socket.write(raw);
  }

  async call(method: FramedMethod, request: object, meta: [string, string][]): Promise<unknown> {
    const definition = contract().MdsService.service[method];
    const body = definition.requestSerialize(request);
    const metaBytes = encodeMeta(meta);
    this.send(
      Buffer.concat([
        encodeFrameHeader({
          magic: FRAME_REQUEST_MAGIC,
          kind: FRAMED_METHODS[method],
          metaBytes: metaBytes.length,
          callId: 7,
          bodyBytes: body.length,
        }),
        metaBytes,
        body,
      ]),
    );
    while (this.answers.length === 0 && !this.closed)
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    const answer = this.answers.shift();
    if (!answer) throw new Error('connection closed without an answer');
    if (answer.status !== FrameStatus.ok) throw decodeFrameError(answer.body);
    return definition.responseDeserialize(answer.body);
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('the MDS framed path', () => {
  let mds: MdsUnderTest;
  let address: string;
  let framePort: number;
  let admin: MdsClient;
  const dir = tempDir('frames');
  const identity = () => readKeyring(process.env.STRIPEFS_KEYRING as string);
  const signed = (signer: CallSigner, method: FramedMethod): [string, string][] => [
    [AUTH_METADATA_KEY, signer.sign(`/stripefs.v1.MdsService/${method}`)],
  ];

  beforeAll(async () => {
    mds = await startMds(join(dir, 'mds'));
    address = `127.0.0.1:${mds.proc.ready.grpcPort}`;
    framePort = mds.proc.ready.framePort as number;
    await registerOss(mds.client, { ossId: 'oss-a', host: 'h0' });
    admin = new MdsClient(address);
    await admin.start();
    for (const path of ['/a', '/b']) await admin.mkdir(path, false);
    for (const path of ['/a/f', '/b/g']) await admin.create(path, { exclusive: true, truncate: false });
  });

  afterAll(async () => {
    admin?.close();
    await stopMds(mds);
  });

  it('GetMap names the port; framed batches answer what gRPC answers', async () => {
    expect(framePort).toBeGreaterThan(0);
    expect((await call(mds.client, 'GetMap', { epoch: 0 })).framePort).toBe(framePort);
    const paths = ['/a/f', '/b/g', '/a/none'];
    const raw = new RawFrames(framePort);
    try {
      const signer = CallSigner.of(identity());
      const framed = (await raw.call(
        'OpenMany',
        { items: paths.map((path) => ({ path })) },
        signed(signer, 'OpenMany'),
      )) as {
        results: { open: { attr: { inode: number } } | null; error: { code: string } | null }[];
      };
      const viaGrpc = await call(mds.client, 'OpenMany', { items: paths.map((path) => ({ path })) });
      expect(framed.results.map((r) => r.open?.attr.inode ?? r.error?.code)).toEqual(
        viaGrpc.results.map((r) => r.open?.attr?.inode ?? r.error?.code),
      );
      expect(framed.results[2]?.error?.code).toBe('NS_NOT_FOUND');
      const stats = (await raw.call('StatMany', { paths }, signed(signer, 'StatMany'))) as {
        results: { found: boolean }[];
      };
      expect(stats.results.map((r) => r.found)).toEqual([true, true, false]);
      // A lone Open and a lone Stat answer what gRPC answers, refusals with the same codes.
      const inodeOf = (answer: unknown) => Number((answer as { attr: { inode: number } }).attr.inode);
      const open = await raw.call('Open', { path: '/a/f' }, signed(signer, 'Open'));
      expect(inodeOf(open)).toBe(inodeOf(await call(mds.client, 'Open', { path: '/a/f' })));
      const stat = await raw.call('Stat', { path: '/b/g' }, signed(signer, 'Stat'));
      expect(inodeOf(stat)).toBe(inodeOf(await call(mds.client, 'Stat', { path: '/b/g' })));
      expect(await codeOf(raw.call('Stat', { path: '/a/none' }, signed(signer, 'Stat')))).toBe(
        'NS_NOT_FOUND',
      );
      expect(await codeOf(raw.call('Open', { path: '/a/f' }, []))).toBe('AUTH_REQUIRED');
      expect(await codeOf(raw.call('Open', { path: '/a/f' }, signed(signer, 'Stat')))).toBe('AUTH_INVALID');
    } finally {
      raw.close();
    }
    // A client's batches take the framed path once GetMap named it.
    const before = admin.frames.calls;
    const answers = await Promise.all(['/a/f', '/b/g'].map((path) => admin.open(path)));
    expect(answers.map((a) => a.attr.size)).toEqual([0, 0]);
    expect(admin.frames.calls).toBe(before + 1);
    // So do its lone opens and stats (nothing in flight to batch them with).
    expect((await admin.open('/a/f')).attr.size).toBe(0);
    expect((await admin.stat('/b/g')).size).toBe(0);
    expect(admin.frames.calls).toBe(before + 3);
    expect(admin.frames.fallbacks).toBe(0);
  });

  it('refuses what gRPC refuses, with the same codes', async () => {
    const raw = new RawFrames(framePort);
    const items = { items: [{ path: '/a/f' }] };
    try {
      expect(await codeOf(raw.call('OpenMany', items, []))).toBe('AUTH_REQUIRED');
      const stranger = CallSigner.of(generateIdentity('stranger'));
      expect(await codeOf(raw.call('OpenMany', items, signed(stranger, 'OpenMany')))).toBe('AUTH_INVALID');
      const signer = CallSigner.of(identity());
      const once = signed(signer, 'OpenMany');
      expect(await codeOf(raw.call('OpenMany', items, once))).toBe('OK');
      expect(await codeOf(raw.call('OpenMany', items, once))).toBe('AUTH_REPLAYED');
      // Signed for another method: the framed method's path is what must have been signed.
      expect(await codeOf(raw.call('OpenMany', items, signed(signer, 'StatMany')))).toBe('AUTH_INVALID');
      const late = new CallSigner(identity().name, identity().secret, () => Date.now() - 3_600_000);
      expect(await codeOf(raw.call('OpenMany', items, signed(late, 'OpenMany')))).toBe('AUTH_EXPIRED');
      // The connection still serves after each refusal.
      expect(await codeOf(raw.call('StatMany', { paths: ['/a/f'] }, signed(signer, 'StatMany')))).toBe('OK');
    } finally {
      raw.close();
    }
  });

  it("checks each item against the caller's caps, as the gRPC batch does", async () => {
    expect(
      (await runCli(['auth', 'add', 'reader', '--caps', 'r /a', '--mds', address], { cwd: dir })).code,
    ).toBe(0);
    const reader = new MdsClient(address, { keyring: join(dir, 'reader.keyring') });
    await reader.start();
    try {
      const [inside, outside] = await reader.openMany(['/a/f', '/b/g']);
      expect(inside).toMatchObject({ attr: { size: 0 } });
      expect((outside as { code?: string }).code).toBe('AUTH_DENIED');
      const stats = await Promise.all(['/a/f', '/b/g'].map((path) => codeOf(reader.stat(path))));
      expect(stats).toEqual(['OK', 'AUTH_DENIED']);
      expect(reader.frames.calls).toBe(2);
      expect(reader.frames.fallbacks).toBe(0);
    } finally {
      reader.close();
    }
  });

  it('a port nothing answers at: the batch goes over gRPC, framed again once the port is right', async () => {
    const client = new MdsClient(address);
    await client.start();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      client.frames.setPort(deadPort);
      const answers = await Promise.all(['/a/f', '/b/g'].map((path) => client.open(path)));
      expect(answers.map((a) => a.attr.size)).toEqual([0, 0]);
      expect(client.frames.fallbacks).toBe(1);
      expect(client.frames.calls).toBe(0);
      client.frames.setPort(framePort);
      await Promise.all(['/a/f', '/b/g'].map((path) => client.open(path)));
      expect(client.frames.calls).toBe(1);
      expect(client.frames.fallbacks).toBe(1);
    } finally {
      client.close();
    }
  });

  it('a broken frame closes its connection only; the MDS serves the next one', async () => {
    const broken = new RawFrames(framePort);
    broken.send(Buffer.alloc(16, 0xab));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (broken.closed) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    expect(broken.closed).toBe(true);
    const unknown = new RawFrames(framePort);
    try {
      unknown.send(
        encodeFrameHeader({ magic: FRAME_REQUEST_MAGIC, kind: 99, metaBytes: 0, callId: 1, bodyBytes: 0 }),
      );
      const answers = await Promise.all([admin.open('/a/f'), admin.open('/b/g')]);
      expect(answers).toHaveLength(2);
    } finally {
      unknown.close();
    }
  });
});

describe('an MDS with mds.frames off', () => {
  let mds: MdsUnderTest;
  const dir = tempDir('frames-off');

  beforeAll(async () => {
    mds = await startMds(join(dir, 'mds'), { STRIPEFS_MDS_FRAMES: 'false' });
  });
  afterAll(async () => {
    await stopMds(mds);
  });

  it('names no port; batches go over gRPC', async () => {
    expect(mds.proc.ready.framePort).toBe(0);
    expect((await call(mds.client, 'GetMap', { epoch: 0 })).framePort ?? 0).toBe(0);
    const client = new MdsClient(`127.0.0.1:${mds.proc.ready.grpcPort}`);
    await client.start();
    try {
      await client.mkdir('/x', false);
      const answers = await Promise.all(['/x', '/'].map((path) => client.open(path)));
      expect(answers).toHaveLength(2);
      expect(client.frames.calls).toBe(0);
      expect(client.frames.fallbacks).toBe(1);
    } finally {
      client.close();
    }
  });
});
