// Job statistics without processes: job id resolution and its refusals, the
// bulk hello, the bounded tables, and the OSS's numbered job reports that the
// MDS applies once each (a lost answer neither loses nor doubles a count).
import { describe, expect, it } from 'vitest';
import { decodeHello, encodeHello, helloTextBytes, isHello } from '../../common/bulk/hello.js';
import { BoundedTable } from '../../common/jobs/bounded-table.js';
import { newSessionId, parseTag, resolveJobId } from '../../common/jobs/job-id.js';
import { systemClock } from '../../common/random.js';
import { JobStats } from '../../mds/jobs/index.js';
import { OssJobUsage } from '../../oss/job-usage.js';
import type { HeartbeatRequest__Output } from '../../proto/index.js';
import { codeOf } from '../helpers/errors.js';

const tag = { jobId: 'train-7', session: 'aaaaaaaaaaaaaaaa' };

describe('job ids', () => {
  it('come from the option, then STRIPEFS_JOBID, then SLURM_JOB_ID, then program.uid', () => {
    const env = { STRIPEFS_JOBID: 'env-job', SLURM_JOB_ID: '4242' };
    expect(resolveJobId({ jobId: 'opt', env })).toEqual({ jobId: 'opt', source: 'option' });
    expect(resolveJobId({ env })).toEqual({ jobId: 'env-job', source: 'STRIPEFS_JOBID' });
    expect(resolveJobId({ env: { SLURM_JOB_ID: '4242' } }).jobId).toBe('4242');
    expect(resolveJobId({ env: {}, processName: 'python3', uid: 1000 }).jobId).toBe('python3.1000');
  });

  it('refuse spaces, control characters, non-ASCII and more than 64 bytes, naming the source', async () => {
    expect(await codeOf(() => resolveJobId({ jobId: 'a b' }))).toBe('REQ_INVALID');
    expect(await codeOf(() => resolveJobId({ jobId: '' }))).toBe('REQ_INVALID');
    expect(await codeOf(() => resolveJobId({ jobId: 'x'.repeat(65) }))).toBe('REQ_INVALID');
    expect(await codeOf(() => resolveJobId({ env: { STRIPEFS_JOBID: 'jöb' } }))).toBe('CONFIG_INVALID');
    expect(() => resolveJobId({ env: { SLURM_JOB_ID: 'a\tb' } })).toThrow(/env SLURM_JOB_ID/);
    expect(resolveJobId({ jobId: 'x'.repeat(64) }).jobId).toHaveLength(64);
  });

  it('a tag needs both job and session; a malformed session is REQ_INVALID', async () => {
    const get = (m: Record<string, string>) => (k: string) => m[k];
    expect(parseTag(get({}))).toBeUndefined();
    expect(await codeOf(() => parseTag(get({ 'stripefs-job': 'a' })))).toBe('REQ_INVALID');
    expect(await codeOf(() => parseTag(get({ 'stripefs-job': 'a', 'stripefs-session': 'XYZ' })))).toBe(
      'REQ_INVALID',
    );
    const session = newSessionId();
    expect(session).toMatch(/^[0-9a-f]{16}$/);
    expect(parseTag(get({ 'stripefs-job': 'a', 'stripefs-session': session }))).toEqual({
      jobId: 'a',
      session,
    });
  });
});

describe('bulk hello', () => {
  it('round-trips a tag and is told apart from a request by its magic', () => {
    const frame = encodeHello(tag);
    expect(isHello(frame)).toBe(true);
    const fixed = frame.subarray(0, 48);
    const text = frame.subarray(48);
    expect(helloTextBytes(fixed)).toBe(text.length);
    expect(decodeHello(text)).toEqual(tag);
    expect(isHello(Buffer.alloc(48))).toBe(false);
  });

  it('a malformed hello is REQ_INVALID, a long one REQ_TOO_LARGE', async () => {
    expect(await codeOf(() => decodeHello(Buffer.from('job\nnot-a-session')))).toBe('REQ_INVALID');
    expect(await codeOf(() => decodeHello(Buffer.from('a\nb\nc')))).toBe('REQ_INVALID');
    const fixed = Buffer.from(encodeHello(tag).subarray(0, 48));
    fixed.writeUInt16LE(60_000, 6);
    expect(await codeOf(() => helloTextBytes(fixed))).toBe('REQ_TOO_LARGE');
  });
});

describe('bounded tables', () => {
  it('drop the entry idle longest when full, and count the drops', () => {
    const dropped: string[] = [];
    const table = new BoundedTable<{ lastSeenMs: number }>(2, (key) => dropped.push(key));
    table.touch('a', 1, () => ({ lastSeenMs: 0 }));
    table.touch('b', 2, () => ({ lastSeenMs: 0 }));
    table.touch('a', 3, () => ({ lastSeenMs: 0 }));
    table.touch('c', 4, () => ({ lastSeenMs: 0 }));
    expect([...table.entriesList().map(([k]) => k)].sort()).toEqual(['a', 'c']);
    expect(dropped).toEqual(['b']);
    expect(table.dropped).toBe(1);
    expect(table.size).toBe(2);
  });
});

function heartbeat(ossId: string, startedMs: number, oss: OssJobUsage): HeartbeatRequest__Output {
  const report = oss.report();
  return {
    ossId,
    osts: [],
    mapEpoch: 1,
    jobs: (report?.entries ?? []) as HeartbeatRequest__Output['jobs'],
    jobsReport: report?.number ?? 0,
    jobsDropped: oss.dropped,
    startedMs,
  };
}

describe('OSS job reports', () => {
  it('are resent until answered and applied once each at the MDS', () => {
    const oss = new OssJobUsage(16);
    const mds = new JobStats({ jobsMax: 8, clientsMax: 8 }, systemClock);
    oss.record(tag, 'write', 1000, 2, true);
    oss.record(tag, 'read', 300, 1, true);
    oss.record(tag, 'read', 0, 1, false);
    oss.record(undefined, 'write', 5000, 1, true); // untagged: the MDS's own or a peer's
    const first = heartbeat('oss0', 1, oss);
    mds.mergeReport(first);
    // The answer was lost: the OSS sends the same report again, the MDS ignores it.
    const again = heartbeat('oss0', 1, oss);
    expect(again.jobsReport).toBe(first.jobsReport);
    mds.mergeReport(again);
    oss.acknowledge(oss.report());
    oss.record(tag, 'write', 24, 1, true);
    const second = heartbeat('oss0', 1, oss);
    expect(second.jobsReport).toBe(first.jobsReport + 1);
    expect(second.jobs[0]?.writeBytes).toBe(24);
    mds.mergeReport(second);
    const job = mds.jobs.get('train-7');
    expect(job?.activity.data).toMatchObject({
      writeBytes: 1024,
      writeOps: 2,
      readBytes: 300,
      readOps: 1,
      errors: 1,
    });
    expect(mds.clients.get(tag.session)?.jobIds).toEqual(['train-7']);
    // A restarted OSS numbers from 1 again: its first report counts.
    const restarted = new OssJobUsage(16);
    restarted.record(tag, 'write', 10, 1, true);
    mds.mergeReport(heartbeat('oss0', 2, restarted));
    expect(mds.jobs.get('train-7')?.activity.data.writeBytes).toBe(1034);
  });

  it('carry at most the named number of pairs; the rest go in the next report', () => {
    const oss = new OssJobUsage(100);
    for (let i = 0; i < 5; i++) oss.record({ jobId: `j${i}`, session: tag.session }, 'read', 1, 1, true);
    const first = oss.report(3);
    expect(first?.entries).toHaveLength(3);
    oss.acknowledge(first);
    expect(oss.report(3)?.entries).toHaveLength(2);
  });

  it('keep at most oss.jobsMax pairs, dropping the idlest', () => {
    let now = 0;
    const oss = new OssJobUsage(2, () => now);
    for (const jobId of ['a', 'b', 'c']) {
      now++;
      oss.record({ jobId, session: tag.session }, 'write', 1, 1, true);
    }
    expect(
      oss
        .view()
        .map((e) => e.jobId)
        .sort(),
    ).toEqual(['b', 'c']);
    expect(oss.dropped).toBe(1);
  });
});
