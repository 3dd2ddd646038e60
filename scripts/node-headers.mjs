// Where Node's C headers are (node_api.h, uv.h), for the addons built with the
// system compiler (scripts/build-native.mjs, scripts/build-fuse.mjs): npm's
// nodedir, the folder above this node binary, or the system's.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The first folder holding every one of `files`, or undefined. */
export function nodeHeaders(files = ['node_api.h']) {
  const prefix = dirname(dirname(process.execPath));
  return [
    process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, 'include/node'),
    join(prefix, 'include/node'),
    '/usr/include/node',
    '/usr/local/include/node',
  ].find((dir) => dir && files.every((file) => existsSync(join(dir, file))));
}
