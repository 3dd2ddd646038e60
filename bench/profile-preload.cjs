// A preload for profiling the processes of a bench cluster one phase at a time:
//   PROF_DIR=/tmp/prof NODE_OPTIONS="--require ./bench/profile-preload.cjs" node dist/bench/smallops.js
// Each process (client, MDS, OSSs inherit NODE_OPTIONS) starts its CPU profile on its first
// SIGUSR2 and writes it to $PROF_DIR/<folder>-<script>-<pid>-<n>.cpuprofile on the next one.
// bench/smallops.ts sends the signals around the phase STRIPEFS_SMALLOPS_PROFILE names.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  let running = false;
  let written = 0;
  process.on('SIGUSR2', () => {
    if (!running) {
      session.post('Profiler.start');
      running = true;
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      if (err) return;
      const script = process.argv[1] || 'node';
      const name = `${path.basename(path.dirname(script))}-${path.basename(script, '.js')}-${process.pid}-${written++}`;
      fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
