// `npm run test:compose` (scripts/test-compose.sh): the end-to-end test against a real docker
// engine, apart from `npm test`, which must not need docker.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/compose/**/*.e2e.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
