// OSS composition root: configuration, builder, ready line, signals.
import { loadConfig } from '../common/config.js';
import { watchParent } from '../common/parent-watch.js';
import { buildOss } from './build.js';

const oss = await buildOss(loadConfig({ env: process.env }));
const { grpcPort, bulkPort, bulkSocketPath, adminPort, ossId, osts } = oss;
const ready = { event: 'ready', server: 'oss', grpcPort, bulkPort, bulkSocketPath, adminPort, ossId, osts };
process.stdout.write(`${JSON.stringify(ready)}\n`);
const stop = (): void => void oss.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
watchParent(process.env, stop);
