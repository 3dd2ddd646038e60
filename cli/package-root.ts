// The folder of the installed stripefs package (where package.json and dist/ are), found from
// this module's own location, never from the working folder: `stripefs cluster up` run from any
// folder, by `npx stripefs` in another project or by a global install, starts the servers that
// ship beside it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folders climbed from this module to the package root at most (dist/cli/ is two deep). */
const PACKAGE_ROOT_DEPTH_MAX = 4;

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth <= PACKAGE_ROOT_DEPTH_MAX; depth++) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'stripefs'
    )
      return dir;
    dir = dirname(dir);
  }
  throw new Error(`no stripefs package.json above ${fileURLToPath(import.meta.url)}`);
}

let root: string | undefined;

export function packageRoot(): string {
  root ??= findPackageRoot();
  return root;
}

/** A server entry point such as dist/mds/main.js, as an absolute path inside the package. */
export function packagePath(relative: string): string {
  return resolve(packageRoot(), relative);
}
