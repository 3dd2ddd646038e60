// A network namespace joined to this host by a veth pair, for partitions with
// real separate addresses: host side SUBNET.1, namespace side SUBNET.2, on a
// /30 that exists only between the two. A server started inside (OssSpec
// `netns`, `bindHost: nsAddress`) is cut off by `cut()` while it keeps
// running, and reachable again after `heal()`. Needs root and iproute2.
import { execFileSync } from 'node:child_process';

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function ipOut(...args: string[]): string {
  try {
    return execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes namespaces (and their host links) left by test processes that were
 * killed before their cleanup ran: names carry the owner's pid (`sfs-PID-…`,
 * `sfc-PID`), and an owner no longer alive cannot still need its namespace.
 * A stale host link keeps its address, so a new namespace on the same subnet
 * would be routed into the dead one.
 */
export function sweepStaleNamespaces(): void {
  for (const line of ipOut('netns', 'list').split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const owner = /^sf[sc]-(\d+)/.exec(name);
    if (!owner || alive(Number(owner[1]))) continue;
    try {
      ip('netns', 'del', name);
    } catch {
      // another process swept it first
    }
  }
  // Host ends whose peer went with a namespace are gone with it; any left whose
  // owner pid is dead are removed too.
  for (const line of ipOut('-br', 'link').split('\n')) {
    const link = /^(sfh(?:c)?(\d+))[@\s]/.exec(line);
    if (!link || alive(Number(link[2]))) continue;
    try {
      ip('link', 'del', link[1] as string);
    } catch {
      // already gone
    }
  }
}

/** The first subnet index from `preferred` on whose 10.213.N.0/24 no link holds an address. */
function freeSubnetIndex(preferred: number): number {
  const used = new Set<number>();
  for (const m of ipOut('-4', '-o', 'addr').matchAll(/inet 10\.213\.(\d+)\./g)) used.add(Number(m[1]));
  for (let i = 0; i < 250; i++) {
    const index = (preferred + i) % 250;
    if (!used.has(index)) return index;
  }
  return preferred % 250;
}

export class NetNamespace {
  readonly hostAddress: string;
  readonly nsAddress: string;
  private readonly hostLink: string;
  private readonly nsLink: string;

  /** `tag` tells apart namespaces of one process (names are cut to the kernel's 15 characters). */
  constructor(
    readonly name: string,
    tag: string,
    subnetIndex: number,
  ) {
    this.hostLink = `sfh${tag}`.slice(0, 15);
    this.nsLink = `sfn${tag}`.slice(0, 15);
    sweepStaleNamespaces();
    const subnet = `10.213.${freeSubnetIndex(subnetIndex)}`;
    this.hostAddress = `${subnet}.1`;
    this.nsAddress = `${subnet}.2`;
  }

  /** Makes the namespace and the veth pair; returns why not when it cannot (then nothing is left behind). */
  make(): string | undefined {
    if (process.platform !== 'linux') return 'not Linux';
    try {
      ip('netns', 'add', this.name);
    } catch (err) {
      return `ip netns add failed (needs root and iproute2): ${(err as Error).message.split('\n')[0]}`;
    }
    try {
      ip('link', 'add', this.hostLink, 'type', 'veth', 'peer', 'name', this.nsLink);
      ip('link', 'set', this.nsLink, 'netns', this.name);
      ip('addr', 'add', `${this.hostAddress}/30`, 'dev', this.hostLink);
      ip('link', 'set', this.hostLink, 'up');
      this.inside('ip', 'addr', 'add', `${this.nsAddress}/30`, 'dev', this.nsLink);
      this.inside('ip', 'link', 'set', this.nsLink, 'up');
      this.inside('ip', 'link', 'set', 'lo', 'up');
      return undefined;
    } catch (err) {
      this.remove();
      return `veth setup failed: ${(err as Error).message.split('\n')[0]}`;
    }
  }

  private inside(...args: string[]): void {
    ip('netns', 'exec', this.name, ...args);
  }

  /** The namespace's link down: its servers run on, unreachable. */
  cut(): void {
    this.inside('ip', 'link', 'set', this.nsLink, 'down');
  }

  heal(): void {
    this.inside('ip', 'link', 'set', this.nsLink, 'up');
  }

  remove(): void {
    try {
      ip('netns', 'del', this.name);
    } catch {
      // not there
    }
    try {
      ip('link', 'del', this.hostLink);
    } catch {
      // went with the namespace
    }
  }
}
