// The contract from day one: load the .proto, serve a trivial service from it
// on 127.0.0.1, call it over real gRPC, and check that a coded error survives
// the round trip.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindServer,
  CLIENT_OPTIONS,
  call,
  SERVER_OPTIONS,
  StripeError,
  shutdownServer,
  unary,
} from '../../common/index.js';
import type { HealthServiceClient } from '../../proto/gen/stripefs/v1/HealthService.js';
import { contract, type PingRequest__Output, type PingResponse } from '../../proto/index.js';

describe('stripefs.v1 contract', () => {
  const server = new grpc.Server(SERVER_OPTIONS);
  let client: HealthServiceClient;

  beforeAll(async () => {
    const v1 = contract();
    server.addService(v1.HealthService.service, {
      Ping: unary<PingRequest__Output, PingResponse>(async (request) => {
        if (request.payload === 'missing')
          throw new StripeError('NS_NOT_FOUND', 'no such thing', { path: '/x' });
        if (request.payload === 'crash') throw new Error('boom');
        return { payload: request.payload.toUpperCase(), server: 'test', mapEpoch: 7 };
      }),
    });
    const port = await bindServer(server, '127.0.0.1', 0);
    client = new v1.HealthService(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
  });

  afterAll(async () => {
    client.close();
    await shutdownServer(server, 1000);
  });

  it('answers a call over real gRPC with typed fields', async () => {
    const response = await call(client, 'Ping', { payload: 'hello' });
    expect(response).toEqual({ payload: 'HELLO', server: 'test', mapEpoch: 7 });
  });

  it('carries a stable error code and details across the wire', async () => {
    const err = await call(client, 'Ping', { payload: 'missing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StripeError);
    const stripeErr = err as StripeError;
    expect(stripeErr.code).toBe('NS_NOT_FOUND');
    expect(stripeErr.errno).toBe('ENOENT');
    expect(stripeErr.message).toBe('no such thing');
    expect(stripeErr.details).toEqual({ path: '/x' });
  });

  it('reports an unexpected server failure as REQ_INTERNAL and stays up', async () => {
    const err = await call(client, 'Ping', { payload: 'crash' }).catch((e: unknown) => e);
    expect((err as StripeError).code).toBe('REQ_INTERNAL');
    const again = await call(client, 'Ping', { payload: 'still' });
    expect(again.payload).toBe('STILL');
  });
});

// Compile-time check: `call` infers the typed response of an overloaded
// generated method (a wrong field name here fails `npm run typecheck`).
async function typedCallExample(client: HealthServiceClient): Promise<number> {
  const response = await call(client, 'Ping', { payload: 'x' });
  return response.mapEpoch + response.payload.length;
}
void typedCallExample;
