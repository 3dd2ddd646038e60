// The launcher's control API on 127.0.0.1 (base port + 2): `stripefs cluster
// add|kill|revive|pause|resume|status` talk to it, so revived processes stay the launcher's
// own children.
import Fastify, { type FastifyInstance } from 'fastify';
import type { RunningCluster } from './launcher.js';
import { type AddRequest, addToPlan, hostsToAdd, selectOss } from './plan.js';

interface TargetBody {
  host?: string;
  rack?: string;
  all?: boolean;
}

function targetsOf(cluster: RunningCluster, body: TargetBody | undefined) {
  const target = body ?? {};
  const chosen = selectOss(cluster.plan, target);
  return { chosen, target };
}

export function buildControlApp(cluster: RunningCluster): FastifyInstance {
  const app = Fastify({ logger: false });
  const badTarget = (target: TargetBody) => ({
    code: 'REQ_INVALID',
    errno: 'EINVAL',
    message: `no OSS matches ${JSON.stringify(target)}; hosts are ${cluster.plan.oss.map((p) => p.host).join(', ')}`,
  });
  app.get('/status', async () => ({ processes: cluster.status() }));
  app.post<{ Body: TargetBody }>('/kill', async (request, reply) => {
    const { chosen, target } = targetsOf(cluster, request.body);
    if (chosen.length === 0 || target.all) return reply.code(400).send(badTarget(target));
    return { killed: await cluster.kill(chosen) };
  });
  app.post<{ Body: TargetBody }>('/revive', async (request, reply) => {
    const { chosen, target } = targetsOf(cluster, request.body);
    if (chosen.length === 0) return reply.code(400).send(badTarget(target));
    return { revived: await cluster.revive(chosen) };
  });
  app.post<{ Body: TargetBody }>('/pause', async (request, reply) => {
    const { chosen, target } = targetsOf(cluster, request.body);
    if (chosen.length === 0 || target.all) return reply.code(400).send(badTarget(target));
    return { paused: cluster.pause(chosen) };
  });
  app.post<{ Body: TargetBody }>('/resume', async (request, reply) => {
    const { chosen, target } = targetsOf(cluster, request.body);
    if (chosen.length === 0) return reply.code(400).send(badTarget(target));
    return { resumed: cluster.resume(chosen) };
  });
  app.post<{ Body: AddRequest }>('/add', async (request, reply) => {
    let hosts: { host: string; rack: string }[];
    try {
      hosts = hostsToAdd(cluster.plan, request.body ?? {});
      addToPlan(cluster.plan, hosts); // names and ports checked before anything starts
    } catch (err) {
      return reply.code(400).send({ code: 'REQ_INVALID', errno: 'EINVAL', message: (err as Error).message });
    }
    return cluster.add(hosts);
  });
  app.post('/stop', async () => {
    setImmediate(() => void cluster.stop());
    return { stopping: true };
  });
  return app;
}
