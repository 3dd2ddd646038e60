// `npm run test:dashboard` (scripts/test-dashboard.sh): the dashboard in Debian's chromium, apart
// from `npm test`, which must not need a browser.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/dashboard/**/*.e2e.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
