// A gRPC call to an address where nothing listens fails with a connection
// error that names the call and the address (common/grpc.ts), so a log says
// which server was out of reach, not only grpc-js's "No connection established".
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { call, deadlineIn } from '../../common/grpc.js';
import { contract } from '../../proto/index.js';
import { errorCode } from '../helpers/errors.js';
import { freePortRange } from '../helpers/ports.js';

describe('gRPC call errors', () => {
  it('a call to an address with no server names the method and the address', async () => {
    const address = `127.0.0.1:${await freePortRange(1)}`;
    const client = new (contract().MdsService)(address, grpc.credentials.createInsecure());
    try {
      const err = await call(client, 'Stat', { path: '/' }, deadlineIn(10_000)).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/^no connection: .*\(Stat to 127\.0\.0\.1:\d+\)$/);
      expect(err?.message).toContain(`(Stat to ${address})`);
      expect(errorCode(err)).toBe('REQ_UNAVAILABLE');
    } finally {
      client.close();
    }
  });
});
