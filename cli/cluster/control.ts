// The launcher's control API on 127.0.0.1 (base port + 2): `stripefs cluster
// add|kill|revive|pause|resume|status` talk to it, so revived processes stay the launcher's
// own children. A cluster with TLS serves it over HTTPS with the cluster's certificate. With auth on, each request is signed (common/auth/http-auth.ts) by the
// identity of the cluster's admin keyring, read again at each request (a rotated keyring put
// in its place counts at once): another local user cannot stop or pause the cluster.
import { existsSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { adminHttpsFactory } from '../../common/admin-https.js';
import { allowListOf } from '../../common/auth/cidr.js';
import { credentialOf, httpSignedMethod } from '../../common/auth/http-auth.js';
import { readKeyring } from '../../common/auth/keyring.js';
import { storedKeyOf } from '../../common/auth/proof.js';
import { SignatureVerifier, type VerifiableIdentity } from '../../common/auth/verifier.js';
import { StripeError } from '../../common/errors.js';
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

/** How far a signed request's time may be from the launcher's clock. */
const CONTROL_WINDOW_MS = 5 * 60_000;

/** Refuses every request not signed by the identity of the keyring at `keyringPath`. */
function guardControl(app: FastifyInstance, keyringPath: string): void {
  const verifier = new SignatureVerifier<VerifiableIdentity>(
    (name) => {
      if (!existsSync(keyringPath)) return undefined;
      const admin = readKeyring(keyringPath);
      return admin.name === name
        ? { storedKey: storedKeyOf(admin.secret), allow: allowListOf([]) }
        : undefined;
    },
    Date.now,
    CONTROL_WINDOW_MS,
  );
  app.addHook('onRequest', async (request, reply) => {
    const credential = credentialOf(request.headers.authorization);
    try {
      if (credential.kind !== 'signed')
        throw new StripeError('AUTH_REQUIRED', `the launcher takes requests signed with ${keyringPath}`);
      const method = httpSignedMethod(request.method, request.headers.host ?? '', request.url);
      verifier.verify(credential.value, method, request.socket.remoteAddress);
    } catch (err) {
      const coded =
        err instanceof StripeError ? err : new StripeError('REQ_INTERNAL', (err as Error).message);
      return reply.code(coded.httpStatus).send({ ...coded.toJSON(), message: coded.message });
    }
  });
}

/**
 * The control API; with `keyringPath` (auth on), only requests that keyring's identity signed;
 * with `https` (a cluster with TLS), over HTTPS with the cluster's certificate.
 */
export function buildControlApp(
  cluster: RunningCluster,
  keyringPath?: string,
  https?: { cert: Buffer; key: Buffer },
): FastifyInstance {
  const app = Fastify({ logger: false, ...(https ? { serverFactory: adminHttpsFactory(https) } : {}) });
  if (keyringPath !== undefined) guardControl(app, keyringPath);
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
