// Tests too large for `npm test` (several GiB through a real cluster): `npm run test:ckpt-large`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.large.ts'],
    exclude: ['dist/**', 'node_modules/**', 'data/**'],
    // The build check, and the run's admin keyring (auth is on in every test cluster).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
