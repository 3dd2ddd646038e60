// One gRPC client (one HTTP/2 channel) per server address for a whole process.
// The MDS's recovery, scrub and destroy workers, the OSS's recovery and scrub,
// and the client's data path each reach every OSS; built once per process at
// its composition root and handed to them, they share one channel to each OSS
// instead of holding one apiece. Closed by the composition root, after the
// workers that use it have stopped.
import type * as grpc from '@grpc/grpc-js';
import { CLIENT_OPTIONS } from './grpc.js';
import { channelCredentials, channelTlsOptions, type TlsSource } from './tls.js';

/** A generated client class (e.g. `contract().OssService`). */
export type GrpcClientClass<C> = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => C;

export class ChannelCache<C extends grpc.Client> {
  private readonly clients = new Map<string, C>();

  constructor(
    private readonly Client: GrpcClientClass<C>,
    /** Added to every client's options (the service ticket's interceptor). */
    private readonly extra: grpc.ClientOptions = {},
    /** TLS to the servers (common/tls.ts; undefined: as this process is configured). */
    private readonly tls?: TlsSource,
  ) {}

  /** The client of the server at `address` (host:port), made on first use and kept. */
  get(address: string): C {
    let client = this.clients.get(address);
    if (!client) {
      client = new this.Client(address, channelCredentials(this.tls), {
        ...CLIENT_OPTIONS,
        ...channelTlsOptions(this.tls),
        ...this.extra,
      });
      this.clients.set(address, client);
    }
    return client;
  }

  /** Channels open now: one per address reached. */
  get size(): number {
    return this.clients.size;
  }

  closeAll(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
