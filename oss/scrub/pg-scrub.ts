// ScrubPg on the OSS of a PG's primary member: list the PG on every member,
// take digests of every copy (DigestObjects: each member reads its own copy
// locally, only sizes, versions and crcs travel), judge them (verdict.ts),
// for ec recompute parity from the data chunks (parity.ts), and repair a bad
// copy with a one-object RecoverPg on its member, from the authoritative copy
// (ec: rebuilt from the good chunks). A repaired copy is digested again and
// counts as fixed only when it now matches. An object whose digests change
// between two looks is being written by a client: it is left for the next
// scrub (busy), never repaired from a half-written state.
import { StripeError } from '../../common/errors.js';
import { call, deadlineIn } from '../../common/grpc.js';
import type { Logger } from '../../common/logging.js';
import type { RuleSpec } from '../../placement/index.js';
import { ruleToWire } from '../../wire/index.js';
import { groupOf } from '../recovery/recover-pg.js';
import type { SourcePool, SourceRef } from '../recovery/sources.js';
import { TokenBucket } from '../recovery/token-bucket.js';
import { groupParityVerdict } from './group-parity.js';
import { SCRUB_DIGEST_BATCH, SCRUB_FINDINGS_MAX, SCRUB_MEMBER_CALL_TIMEOUT_MS } from './limits.js';
import {
  type BadCopy,
  type CopyDigest,
  chunkVerdict,
  type Problem,
  replicaVerdict,
  type Verdict,
} from './verdict.js';

export interface ScrubMember {
  ostId: number;
  grpcAddress: string;
  bulkAddress: string;
  /** ec: chunk position; replicated: rank. */
  position: number;
}

export interface ScrubPgInput {
  poolId: number;
  pg: number;
  rule: RuleSpec;
  members: ScrubMember[];
  mapEpoch: number;
  bytesPerSec: number;
  repair: boolean;
}

export interface Finding {
  objectId: string;
  ostId: number;
  position: number;
  problem: Problem;
  detail: string;
  fixed: boolean;
}

export interface ScrubPgResult {
  objectsScanned: number;
  bytesScanned: number;
  errorsFound: number;
  errorsFixed: number;
  objectsBusy: number;
  findings: Finding[];
}

/** A copy's error that says nothing about its data (the read was cut short, the OST is busy). */
const transient = (d: CopyDigest): boolean => d.errorCode !== '' && d.errorCode !== 'OBJ_CHECKSUM';
const same = (a: CopyDigest, b: CopyDigest): boolean =>
  a.found === b.found &&
  a.size === b.size &&
  a.version === b.version &&
  a.crc32c === b.crc32c &&
  a.errorCode === b.errorCode;

export class PgScrubber {
  readonly totals = { pgs: 0, objectsScanned: 0, errorsFound: 0, errorsFixed: 0 };

  constructor(
    private readonly pool: SourcePool,
    private readonly logger: Logger,
  ) {}

  async scrubPg(req: ScrubPgInput): Promise<ScrubPgResult> {
    const result: ScrubPgResult = {
      objectsScanned: 0,
      bytesScanned: 0,
      errorsFound: 0,
      errorsFixed: 0,
      objectsBusy: 0,
      findings: [],
    };
    const bucket = new TokenBucket(req.bytesPerSec);
    const units = await this.unitsOf(req);
    for (let i = 0; i < units.length; i += SCRUB_DIGEST_BATCH) {
      const batch = units.slice(i, i + SCRUB_DIGEST_BATCH);
      const digests = await this.digest(req, batch);
      for (const unit of batch) {
        const copies = digests.get(unit) ?? [];
        result.objectsScanned++;
        result.bytesScanned += copies.reduce((sum, d) => sum + d.size, 0);
        await this.checkUnit(req, unit, copies, bucket, result);
      }
    }
    this.totals.pgs++;
    this.totals.objectsScanned += result.objectsScanned;
    this.totals.errorsFound += result.errorsFound;
    this.totals.errorsFixed += result.errorsFixed;
    if (result.errorsFound > 0)
      this.logger.warn(
        { pg: `${req.poolId}/${req.pg}`, ...result, findings: result.findings.length },
        'deep scrub found errors',
      );
    return result;
  }

  /** Object ids (replicated) or ec group keys found on any member. */
  private async unitsOf(req: ScrubPgInput): Promise<string[]> {
    const units = new Set<string>();
    const listings = await Promise.all(
      req.members.map((m) => this.pool.list(this.sourceOf(m), req.poolId, req.pg)),
    );
    for (const listing of listings)
      for (const o of listing) units.add(req.rule.kind === 'erasure' ? groupOf(o.objectId) : o.objectId);
    return [...units].sort();
  }

  private sourceOf(m: ScrubMember): SourceRef {
    return { ...m, inPlacement: true };
  }

  private pgRef(req: ScrubPgInput): { poolId: number; pg: number; mapEpoch: number } {
    return { poolId: req.poolId, pg: req.pg, mapEpoch: req.mapEpoch };
  }

  private objectIdOf(req: ScrubPgInput, unit: string, m: ScrubMember): string {
    return req.rule.kind === 'erasure' ? `${unit}.c${m.position}` : unit;
  }

  /** Every member's digest of every unit of the batch, one call per member. */
  private async digest(req: ScrubPgInput, units: string[]): Promise<Map<string, CopyDigest[]>> {
    const members = req.members;
    const perMember = Math.floor(req.bytesPerSec / Math.max(1, req.members.length));
    const answers = await Promise.all(
      members.map((m) =>
        call(
          this.pool.grpcOf(m.grpcAddress),
          'DigestObjects',
          {
            ostId: m.ostId,
            poolId: req.poolId,
            pg: req.pg,
            objectIds: units.map((u) => this.objectIdOf(req, u, m)),
            bytesPerSec: req.bytesPerSec > 0 ? Math.max(1, perMember) : 0,
          },
          deadlineIn(SCRUB_MEMBER_CALL_TIMEOUT_MS),
        ),
      ),
    );
    const out = new Map<string, CopyDigest[]>();
    units.forEach((unit, i) => {
      out.set(
        unit,
        members.map((m, n) => {
          const d = answers[n]!.digests[i]!;
          return {
            ostId: m.ostId,
            position: m.position,
            found: d.found,
            size: Number(d.size),
            version: Number(d.version),
            crc32c: d.crc32c >>> 0,
            errorCode: d.errorCode,
          };
        }),
      );
    });
    return out;
  }

  private async judge(
    req: ScrubPgInput,
    unit: string,
    copies: CopyDigest[],
    bucket: TokenBucket,
  ): Promise<Verdict> {
    if (req.rule.kind === 'replicated') return replicaVerdict(copies);
    const verdict = chunkVerdict(copies, req.rule.k);
    if (verdict.bad.length > 0 || verdict.unfixable || !verdict.authority) return verdict;
    if (copies.length < req.rule.k + req.rule.m) return verdict; // a hole in the placement: nothing to compare parity with
    const readSlice = (member: ScrubMember, offset: number, length: number): Promise<Buffer> =>
      this.pool
        .bulkOf(member.bulkAddress)
        .read(
          { ostId: member.ostId, objectId: this.objectIdOf(req, unit, member), ...this.pgRef(req) },
          offset,
          length,
        );
    return groupParityVerdict(req.members, req.rule.k, req.rule.m, copies, bucket, readSlice);
  }

  private async checkUnit(
    req: ScrubPgInput,
    unit: string,
    copies: CopyDigest[],
    bucket: TokenBucket,
    result: ScrubPgResult,
  ): Promise<void> {
    if (copies.some(transient)) {
      result.objectsBusy++;
      return;
    }
    const verdict = await this.judge(req, unit, copies, bucket);
    if (verdict.bad.length === 0 && !verdict.unfixable) return;
    // A second look: a client write in flight makes copies differ for a moment.
    const again = (await this.digest(req, [unit])).get(unit) ?? [];
    if (again.length !== copies.length || again.some((d, i) => !same(d, copies[i]!))) {
      result.objectsBusy++;
      return;
    }
    const note = (f: Finding): void => {
      if (result.findings.length < SCRUB_FINDINGS_MAX) result.findings.push(f);
    };
    result.errorsFound += verdict.bad.length + (verdict.unfixable ? 1 : 0);
    if (verdict.unfixable) {
      for (const b of verdict.bad) note({ ...this.findingOf(req, unit, b), fixed: false });
      const first = req.members[0]!;
      note({
        objectId: unit,
        ostId: first.ostId,
        position: first.position,
        problem: 'unfixable',
        detail: verdict.unfixable,
        fixed: false,
      });
      return;
    }
    const fixed = req.repair ? await this.repair(req, unit, verdict, bucket) : false;
    for (const b of verdict.bad) note({ ...this.findingOf(req, unit, b), fixed });
    if (fixed) result.errorsFixed += verdict.bad.length;
  }

  private findingOf(req: ScrubPgInput, unit: string, b: BadCopy): Omit<Finding, 'fixed'> {
    const member = req.members.find((m) => m.ostId === b.ostId && m.position === b.position)!;
    return {
      objectId: this.objectIdOf(req, unit, member),
      ostId: b.ostId,
      position: b.position,
      problem: b.problem,
      detail: b.detail,
    };
  }

  /** Rewrites every bad copy from the good ones; true when a fresh look finds them all good. */
  private async repair(
    req: ScrubPgInput,
    unit: string,
    verdict: Verdict,
    bucket: TokenBucket,
  ): Promise<boolean> {
    const isBad = (m: ScrubMember) =>
      verdict.bad.some((b) => b.ostId === m.ostId && b.position === m.position);
    const authority = verdict.authority!;
    const good = req.members
      .filter((m) => !isBad(m))
      .sort((a, b) => Number(b.ostId === authority.ostId) - Number(a.ostId === authority.ostId));
    try {
      for (const target of req.members.filter(isBad)) await this.recover(req, unit, target, good);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, unit }, 'scrub repair failed');
      return false;
    }
    const after = (await this.digest(req, [unit])).get(unit) ?? [];
    const judged = await this.judge(req, unit, after, bucket);
    return judged.bad.length === 0 && !judged.unfixable;
  }

  private async recover(
    req: ScrubPgInput,
    unit: string,
    target: ScrubMember,
    sources: ScrubMember[],
  ): Promise<void> {
    const res = await call(
      this.pool.grpcOf(target.grpcAddress),
      'RecoverPg',
      {
        poolId: req.poolId,
        pg: req.pg,
        targetOstId: target.ostId,
        position: target.position,
        rule: ruleToWire(req.rule),
        sources: sources.map((s) => ({ ...s, inPlacement: true })),
        mapEpoch: req.mapEpoch,
        bytesPerSec: req.bytesPerSec,
        mode: 'RECOVER_MODE_ALL',
        objectIds: [this.objectIdOf(req, unit, target)],
      },
      deadlineIn(SCRUB_MEMBER_CALL_TIMEOUT_MS),
    );
    if (Number(res.objectsCopied) !== 1)
      throw new StripeError(
        'IO_FAILED',
        `repair of ${unit} on ost${target.ostId} copied ${res.objectsCopied} objects`,
      );
  }
}
