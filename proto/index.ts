// Typed access to the stripefs.v1 contract. The .proto file is loaded at run
// time with @grpc/proto-loader; the types in proto/gen/ are generated from
// the same file (npm run proto:gen) so no `any` crosses a process boundary.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from './gen/stripefs.js';

export type * from './gen/index.js';

/** Loader options; they must match the flags in scripts/gen-proto.mjs. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

const PROTO_RELATIVE_PATH = join('proto', 'stripefs', 'v1', 'stripefs.proto');

/** Finds the contract from source (proto/) or from the build (dist/proto/). */
export function protoPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, PROTO_RELATIVE_PATH);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`stripefs contract not found above ${fileURLToPath(import.meta.url)}`);
}

let cached: ProtoGrpcType['stripefs']['v1'] | undefined;

/** The stripefs.v1 package: service definitions and client constructors. */
export function contract(): ProtoGrpcType['stripefs']['v1'] {
  if (cached) return cached;
  const definition = protoLoader.loadSync(protoPath(), PROTO_LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  cached = loaded.stripefs.v1;
  return cached;
}
