// `npm run test:prometheus` (scripts/test-prometheus.sh): monitoring/ with Debian's prometheus and
// promtool, apart from `npm test`, which must not need them.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/monitoring/**/*.e2e.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
