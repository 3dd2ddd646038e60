// Which disk cache a client opens: the one ConnectOptions names, else the
// configuration's client.diskCacheDir (STRIPEFS_CLIENT_DISK_CACHE_DIR) and
// client.diskCacheBytes, so the CLI, the mount and the gateway get it too.
import { loadConfig } from '../common/config.js';
import { DiskCache } from './disk-cache.js';

export async function openDiskCache(
  given: { dir: string; bytesMax: number } | null | undefined,
  mdsAddress: string,
): Promise<DiskCache | undefined> {
  if (given === null) return undefined;
  if (given) return DiskCache.open(given.dir, given.bytesMax, mdsAddress);
  const config = loadConfig({ env: process.env });
  const dir = config['client.diskCacheDir'];
  return dir === '' ? undefined : DiskCache.open(dir, config['client.diskCacheBytes'], mdsAddress);
}
