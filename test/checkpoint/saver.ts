// A checkpoint saver in a process of its own, as a training rank is: it saves
// parts cut from a local data file (as buffers or as file streams) through the
// built library, prints every progress event as a JSON line, and can be
// SIGKILLed at any of them. Tests hand it what to save and read what it did.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Layout } from '../../client/index.js';

export interface SaverConfig {
  mds: string;
  dir: string;
  layout: Layout;
  step: number;
  /** Saves as this rank (saveRank) instead of a whole checkpoint. */
  rank?: number;
  async?: boolean;
  stagingDir?: string;
  keepLast?: number;
  /** The local file the parts are cut from. */
  dataPath: string;
  /** [name, offset, bytes, as a stream] */
  parts: [string, number, number, boolean][];
}

export interface SaverEvent {
  phase: string;
  stagedBytes?: number;
  uploadedBytes?: number;
  error?: string;
  code?: string;
}

const CHILD_SCRIPT = `
import { createReadStream, readFileSync } from 'node:fs';
const cfg = JSON.parse(process.env.STRIPEFS_TEST_SAVER);
const { StripeClient } = await import(cfg.clientUrl);
const { checkpoints } = await import(cfg.checkpointUrl);
const print = (e) => process.stdout.write(JSON.stringify(e) + '\\n');
const client = await StripeClient.connect({ mds: cfg.mds, seed: 1 });
try {
  const ck = checkpoints(client, cfg.dir, {
    layout: cfg.layout,
    ...(cfg.keepLast ? { keepLast: cfg.keepLast } : {}),
    ...(cfg.stagingDir ? { stagingDir: cfg.stagingDir } : {}),
  });
  const data = readFileSync(cfg.dataPath);
  const parts = cfg.parts.map(([name, offset, bytes, stream]) => [
    name,
    stream && bytes > 0
      ? createReadStream(cfg.dataPath, { start: offset, end: offset + bytes - 1, highWaterMark: 100003 })
      : data.subarray(offset, offset + bytes),
  ]);
  const options = { onProgress: (e) => print({ phase: e.phase, stagedBytes: e.stagedBytes, uploadedBytes: e.uploadedBytes }) };
  const save = (o) => (cfg.rank === undefined ? ck.save(cfg.step, parts, o) : ck.saveRank(cfg.step, cfg.rank, parts, o));
  if (cfg.async) {
    const handle = await save({ ...options, async: true });
    print({ phase: 'returned' });
    await handle.durable;
  } else await save(options);
  print({ phase: 'done' });
} catch (err) {
  print({ phase: 'failed', error: String(err && err.message), code: err && err.code });
  process.exitCode = 1;
} finally {
  await client.close();
}
`;

export interface RunningSaver {
  child: ChildProcess;
  events: SaverEvent[];
  /** Settles when the process has exited, with its exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a saver; `onEvent` hears every event as it is printed (and may kill the child). */
export function startSaver(
  config: SaverConfig,
  onEvent: (e: SaverEvent, saver: RunningSaver) => void = () => {},
): RunningSaver {
  const env = {
    ...process.env,
    STRIPEFS_TEST_SAVER: JSON.stringify({
      ...config,
      clientUrl: new URL('../../dist/client/index.js', import.meta.url).href,
      checkpointUrl: new URL('../../dist/checkpoint/index.js', import.meta.url).href,
    }),
  };
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD_SCRIPT], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: SaverEvent[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const saver: RunningSaver = {
    child,
    events,
    exited: once(child, 'exit').then(([code, signal]) => {
      if (code !== 0 && signal === null && !events.some((e) => e.phase === 'failed'))
        throw new Error(`saver exited with ${code}: ${stderr}`);
      return { code: code as number | null, signal: signal as NodeJS.Signals | null };
    }),
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const event = JSON.parse(line) as SaverEvent;
    events.push(event);
    onEvent(event, saver);
  });
  return saver;
}
