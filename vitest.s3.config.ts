// `npm run test:s3` (scripts/test-s3.sh): the S3 gateway with the real clients (awscli, s3cmd,
// rclone, boto3), apart from `npm test`, which must not need them.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/s3-clients/**/*.e2e.ts'],
    // The build check, and the run's admin keyring (auth is on in every test cluster).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
