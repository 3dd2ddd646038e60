// A small fake MDS for OSS tests: RegisterOss hands out OST ids, Heartbeat
// records health, GetMap/WatchMap serve a hand-built map the test can change.
// A fake is fine here: the MDS is not under test.
import * as grpc from '@grpc/grpc-js';
import { bindServer, SERVER_OPTIONS, shutdownServer, unary } from '../../common/grpc.js';
import {
  type ClusterMap,
  contract,
  type GetMapRequest__Output,
  type GetMapResponse,
  type HeartbeatRequest__Output,
  type HeartbeatResponse,
  type RegisterOssRequest__Output,
  type RegisterOssResponse,
  type WatchMapRequest__Output,
  type WatchMapResponse,
} from '../../proto/index.js';

export interface FakeMds {
  address: string;
  registrations: RegisterOssRequest__Output[];
  heartbeats: HeartbeatRequest__Output[];
  /** OST ids given out, by `${ossId}/${name}`. */
  ostIds: Map<string, number>;
  epoch(): number;
  /** Replaces the map (epoch + 1) with these OSTs in; pool 1 is replicated:1:ost over them with pgCount PGs. */
  publish(ostIdsIn: number[], pgCount?: number): void;
  close(): Promise<void>;
}

export async function startFakeMds(): Promise<FakeMds> {
  const registrations: RegisterOssRequest__Output[] = [];
  const heartbeats: HeartbeatRequest__Output[] = [];
  const ostIds = new Map<string, number>();
  const watchers = new Set<grpc.ServerWritableStream<WatchMapRequest__Output, WatchMapResponse>>();
  let map: ClusterMap | null = null;
  let epoch = 0;

  const publish = (ids: number[], pgCount = 16): void => {
    epoch++;
    map = {
      epoch,
      types: ['ost', 'host', 'root'],
      osts: ids.map((id) => ({
        id,
        name: `ost.${id}`,
        weight: 1,
        state: { up: true, in: true },
        host: 'h0',
      })),
      buckets: [
        { id: -1, name: 'default', type: 'root', children: [-2] },
        { id: -2, name: 'h0', type: 'host', children: ids },
      ],
      rootName: 'default',
      pools: [
        {
          id: 1,
          name: 'rep-1-ost',
          pgCount,
          rule: { kind: 'RULE_KIND_REPLICATED', size: 1, failureDomain: 'ost' },
        },
      ],
    };
    for (const w of watchers) w.write({ map });
  };

  const server = new grpc.Server(SERVER_OPTIONS);
  const v1 = contract();
  const unimplemented = (): never => {
    throw new Error('not in the fake MDS');
  };
  const handlers = new Proxy(
    {
      RegisterOss: unary<RegisterOssRequest__Output, RegisterOssResponse>(async (req) => {
        registrations.push(req);
        const osts = req.osts.map((o) => {
          const key = `${req.ossId}/${o.name}`;
          if (!ostIds.has(key)) ostIds.set(key, ostIds.size);
          return { name: o.name, id: ostIds.get(key)! };
        });
        return { osts, mapEpoch: epoch, heartbeatIntervalMs: 200 };
      }),
      Heartbeat: unary<HeartbeatRequest__Output, HeartbeatResponse>(async (req) => {
        heartbeats.push(req);
        return { mapEpoch: epoch };
      }),
      GetMap: unary<GetMapRequest__Output, GetMapResponse>(async () => (map ? { map } : {})),
      WatchMap: (call: grpc.ServerWritableStream<WatchMapRequest__Output, WatchMapResponse>) => {
        watchers.add(call);
        if (map && epoch > Number(call.request.knownEpoch)) call.write({ map });
        call.on('cancelled', () => watchers.delete(call));
        call.on('close', () => watchers.delete(call));
      },
    } as Record<string, unknown>,
    { get: (target, key: string) => target[key] ?? unimplemented },
  );
  server.addService(v1.MdsService.service, handlers as grpc.UntypedServiceImplementation);
  const port = await bindServer(server, '127.0.0.1', 0);
  return {
    address: `127.0.0.1:${port}`,
    registrations,
    heartbeats,
    ostIds,
    epoch: () => epoch,
    publish,
    close: async () => {
      for (const w of watchers) w.end();
      await shutdownServer(server, 500);
    },
  };
}
