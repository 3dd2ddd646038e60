// Statahead's driver (the plan is statahead-plan.ts): one scan state per
// directory this client scans (at most STATAHEAD_DIRS_MAX), the listings it
// read, and on each stat or open the plan's verdict. Names to fetch go as one
// OpenMany (attributes and bytes on the MDS) for opens, and for stats as one
// page of the directory's listing with attributes where they follow the
// listing (one range the MDS reads in order, not a look-up per name), else
// one StatMany; the answers enter the open cache, where the scan's next stats
// and opens find them; an access to a name
// whose batch is still in flight waits for that batch instead of asking again.
// It runs only with the open cache on (limits.openCacheTtlMs > 0): answers
// fetched ahead are reused as the cache reuses answers, which close-to-open
// (the default) does not allow. Memory: the open cache's bounds, and names in
// flight or fetched and not yet used (at most STATAHEAD_PENDING_MAX).
import type { MdsClient } from './mds-client.js';
import type { OpenCache } from './open-cache.js';
import { newScan, onAccess, type ScanState } from './statahead-plan.js';

export const STATAHEAD_DIRS_MAX = 64;

/** A page of a directory's listing with attributes: `entries` names after `after`. */
interface ListingPage {
  dir: string;
  after: string;
  entries: number;
}
export const STATAHEAD_PENDING_MAX = 65_536;

function split(path: string): { dir: string; name: string } {
  const slash = path.lastIndexOf('/');
  return { dir: slash <= 0 ? '/' : path.slice(0, slash), name: path.slice(slash + 1) };
}

function childOf(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

export class Statahead {
  private readonly scans = new Map<string, ScanState>();
  /** Paths fetched ahead (or in flight) and not yet used. */
  private readonly pending = new Map<string, Promise<void>>();
  batches = 0;
  entries = 0;
  hits = 0;

  constructor(
    private readonly mds: MdsClient,
    private readonly cache: OpenCache,
    private readonly batchEntries: number,
    private readonly batchesAhead = 1,
    /** Whether an open of a path is answered on this client's disk (client/open-index.ts): not fetched. */
    private readonly openedLocally: (path: string) => boolean = () => false,
  ) {}

  get enabled(): boolean {
    return this.cache.enabled && this.batchEntries > 0;
  }

  /** Fetched ahead and never used (missing names included). */
  get waste(): number {
    return this.entries - this.hits - this.pending.size;
  }

  /** A listing this client read: the order a scan of the directory may follow. */
  listed(dir: string, names: readonly string[]): void {
    if (!this.enabled) return;
    this.scans.delete(dir);
    if (this.scans.size >= STATAHEAD_DIRS_MAX) this.scans.delete(this.scans.keys().next().value as string);
    this.scans.set(dir, newScan(names));
  }

  /**
   * Before a stat or open of `path` is answered: steps the scan, and waits for its batch if in
   * flight. A scan of stats fetches attributes (StatMany), a scan of opens the bytes on the MDS too.
   */
  async before(path: string, withData: boolean): Promise<void> {
    if (!this.enabled) return;
    const { dir, name } = split(path);
    const step = onAccess(this.scans.get(dir) ?? newScan(), name, this.batchEntries, this.batchesAhead);
    if (!this.scans.has(dir) && this.scans.size >= STATAHEAD_DIRS_MAX)
      this.scans.delete(this.scans.keys().next().value as string);
    this.scans.set(dir, step.state);
    if (step.fetch.length > 0) {
      const paths = step.fetch.map((n) => childOf(dir, n));
      // Stats of names that follow the listing: the listing's next page, with attributes.
      const page = !withData && step.after !== undefined ? { dir, after: step.after } : undefined;
      this.fetch(paths, withData, page);
    }
    await this.pending.get(path);
  }

  /** After the open cache was asked for `path`: a hit on an answer fetched ahead counts. */
  after(path: string, answered: boolean): void {
    if (this.pending.delete(path) && answered) this.hits++;
  }

  /** The answers for `paths`: OpenMany, StatMany, or a listing page after `page.after` (see above). */
  private ask(paths: string[], withData: boolean, page?: ListingPage) {
    if (withData) return this.mds.openMany(paths);
    if (!page) return this.mds.statMany(paths);
    return this.mds.readdirPage(page.dir, true, page.after, page.entries).then(({ entries }) => {
      const attrs = new Map(entries.map((e) => [childOf(page.dir, e.name), e.attr]));
      // A name the page does not hold (the directory changed since it was listed) is asked for by its access.
      return paths.map((p) => {
        const attr = attrs.get(p);
        return attr ? { attr, domData: undefined } : new Error(`${p} not in the listing's page`);
      });
    });
  }

  private fetch(paths: string[], withData: boolean, page?: { dir: string; after: string }): void {
    const listing = page ? { ...page, entries: paths.length } : undefined;
    const room = STATAHEAD_PENDING_MAX - this.pending.size;
    const all = paths.filter(
      (p) => !this.pending.has(p) && !this.cache.holds(p, withData) && !(withData && this.openedLocally(p)),
    );
    const wanted = all.slice(0, Math.max(0, room));
    if (wanted.length === 0) return;
    this.batches++;
    this.entries += wanted.length;
    // A page reads from `after` on: only when nothing of the batch was skipped at its start.
    const inOrder = listing && wanted[0] === paths[0] ? listing : undefined;
    const batch = this.ask(wanted, withData, inOrder).then(
      (answers) => {
        answers.forEach((answer, i) => {
          const path = wanted[i] as string;
          if (answer instanceof Error) this.pending.delete(path);
          else this.cache.put(path, answer);
        });
      },
      // A failed batch is not an error: each access asks the MDS itself.
      () => {
        for (const path of wanted) this.pending.delete(path);
      },
    );
    for (const path of wanted) this.pending.set(path, batch);
  }
}
