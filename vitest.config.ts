import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', '{placement,common,mds,oss,client,s3,cli}/**/*.test.ts'],
    // test/mount needs root, /dev/fuse and outside programs: npm run test:mount runs it.
    exclude: [
      'dist/**',
      'node_modules/**',
      'data/**',
      ...(process.env.STRIPEFS_TEST_MOUNT ? [] : ['test/mount/**']),
    ],
    // A missing or stale dist/ fails the run before any test (tests spawn the built servers).
    globalSetup: ['test/global-setup.ts'],
    // Generous: the machines are shared (load averages of 30 to 100 were seen while
    // several suites ran), and a test that starts a cluster can be slow without being
    // wrong. A timeout only bounds a hang; speed is measured by the benchmarks.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One module graph per worker, not per file: the pure files' imports load once. Nothing
    // shares state through modules (no vi.mock, no env writes; registries are per instance).
    isolate: false,
    // Two cores: tests that start clusters run one file at a time per worker.
    maxWorkers: 2,
  },
});
