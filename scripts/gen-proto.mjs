// Regenerates proto/gen/ (TypeScript types for the contract) from
// proto/stripefs/v1/stripefs.proto. The output is committed; a test checks
// that it is current. Run with `npm run proto:gen`.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

// An optional argument writes elsewhere (the freshness test uses it).
const outDir = process.argv[2] ?? 'proto/gen';
rmSync(outDir, { recursive: true, force: true });
execFileSync(
  'node',
  [
    'node_modules/@grpc/proto-loader/build/bin/proto-loader-gen-types.js',
    '--longs=Number',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--grpcLib=@grpc/grpc-js',
    '--importFileExtension=.js',
    `--outDir=${outDir}`,
    'stripefs/v1/stripefs.proto',
    '--includeDirs',
    'proto',
  ],
  { stdio: 'inherit' },
);
