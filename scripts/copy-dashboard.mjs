// Part of `npm run build`: puts the dashboard's static files next to the
// compiled MDS (dist/mds/dashboard/public/), with uPlot vendored from its npm
// package, so the MDS serves the page from its own files (the Docker image
// ships dist/ only) and the page fetches nothing from the internet.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const source = 'mds/dashboard/public';
const target = 'dist/mds/dashboard/public';
mkdirSync(join(target, 'vendor'), { recursive: true });
for (const name of readdirSync(source)) copyFileSync(join(source, name), join(target, name));
const uplot = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));
for (const name of ['uPlot.iife.min.js', 'uPlot.min.css'])
  copyFileSync(join(uplot, name), join(target, 'vendor', name));
