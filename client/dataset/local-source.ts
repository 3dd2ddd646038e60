// The samples of a local folder, for packing: every regular file under it,
// keyed by its path relative to the folder ('/' separated). Anything else (a
// symlink, a socket, a device) is refused by name rather than skipped, so a
// pack never silently leaves a sample out.
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StripeError } from '../../common/errors.js';
import { DATASET_LIMITS } from './limits.js';
import type { PackSample } from './writer.js';

function kindOf(entry: Dirent): string {
  if (entry.isSymbolicLink()) return 'a symlink';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'a device';
  return 'not a regular file';
}

/** Every regular file under `dir`, with its size; DATASET_SOURCE_INVALID for a missing, empty or odd folder. */
export async function localSamples(dir: string): Promise<PackSample[]> {
  const top = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
    throw new StripeError(
      'DATASET_SOURCE_INVALID',
      `${dir}: ${err.code === 'ENOENT' ? 'no such folder' : err.message}`,
      { path: dir },
    );
  });
  if (!top.isDirectory())
    throw new StripeError(
      'DATASET_SOURCE_INVALID',
      `${dir} is not a folder: pack takes a folder of samples`,
      { path: dir },
    );
  const samples: PackSample[] = [];
  // Folders still to list, as paths relative to `dir` (an explicit stack: no recursion depth limit).
  const pending = [''];
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    const entries = await readdir(join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const key = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const path = join(dir, key);
      if (entry.isDirectory()) pending.push(key);
      else if (entry.isFile()) {
        const { size } = await lstat(path);
        samples.push({ key, sizeBytes: size, read: () => readFile(path) });
      } else
        throw new StripeError(
          'DATASET_SOURCE_INVALID',
          `${path} is ${kindOf(entry)}: pack takes regular files only`,
          { path },
        );
      if (samples.length > DATASET_LIMITS.samplesMax)
        throw new StripeError(
          'DATASET_SOURCE_INVALID',
          `${dir} holds more than ${DATASET_LIMITS.samplesMax} files`,
          { path: dir },
        );
    }
  }
  if (samples.length === 0)
    throw new StripeError('DATASET_SOURCE_INVALID', `${dir} holds no files: nothing to pack`, { path: dir });
  return samples;
}
