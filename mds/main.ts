// The MDS composition root: configuration in, ready line out, clean exit on SIGTERM/SIGINT.
import { loadConfig } from '../common/index.js';
import { watchParent } from '../common/parent-watch.js';
import { buildMds } from './build.js';

const mds = await buildMds(loadConfig({ env: process.env }));
process.stdout.write(
  `${JSON.stringify({ event: 'ready', server: 'mds', grpcPort: mds.grpcPort, adminPort: mds.adminPort, framePort: mds.framePort })}\n`,
);
const shutdown = (): void => void mds.close().then(() => process.exit(0));
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
watchParent(process.env, shutdown);
