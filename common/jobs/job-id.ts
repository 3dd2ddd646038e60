// Job ids, as Lustre's jobstats: every request a client sends names the job it
// belongs to (taken from the job scheduler's environment), and the client
// session it comes from, so the MDS and the OSSs can count operations, bytes
// and time per job and per client. On gRPC both travel as call metadata; on
// the bulk path once per connection, in a hello frame (common/bulk/frame.ts).
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { type ErrorCode, StripeError } from '../errors.js';

export const JOB_ID_METADATA_KEY = 'stripefs-job';
export const SESSION_METADATA_KEY = 'stripefs-session';
/** host:pid of the client process, for the MDS's table of clients. */
export const CLIENT_NAME_METADATA_KEY = 'stripefs-client';

/** Longest job id, in bytes (Lustre allows 32; scheduler ids with array indexes need more). */
export const JOB_ID_BYTES_MAX = 64;
/** A session id: 16 hex digits. */
export const SESSION_BYTES = 16;
export const CLIENT_NAME_BYTES_MAX = 128;
/** Printable ASCII without spaces: ids go into Prometheus labels, table columns and log lines. */
const PRINTABLE = /^[\x21-\x7e]+$/;
const SESSION_PATTERN = /^[0-9a-f]{16}$/;

/** What every request of one client carries. */
export interface RequestTag {
  jobId: string;
  /** One per connected StripeClient (a process may hold several). */
  session: string;
  /** host:pid (sent to the MDS only). */
  clientName?: string;
}

/** Why `value` is not a job id, or undefined when it is one. */
export function jobIdProblem(value: string): string | undefined {
  if (value.length === 0) return 'it is empty';
  if (Buffer.byteLength(value) > JOB_ID_BYTES_MAX) return `it is longer than ${JOB_ID_BYTES_MAX} bytes`;
  if (!PRINTABLE.test(value)) return 'it holds a space, a control character or non-ASCII';
  return undefined;
}

function checked(value: string, source: string, code: ErrorCode): string {
  const problem = jobIdProblem(value);
  if (problem)
    throw new StripeError(
      code,
      `job id ${JSON.stringify(value.slice(0, 80))} from ${source}: ${problem}; a job id is 1 to ${JOB_ID_BYTES_MAX} printable ASCII characters without spaces`,
      { source },
    );
  return value;
}

export interface JobIdSources {
  /** The connect option: wins over the environment. */
  jobId?: string;
  env?: NodeJS.ProcessEnv;
  /** The program's name for the fallback (default: the script's file name without extension). */
  processName?: string;
  uid?: number;
}

/**
 * The job id of this process, as Lustre's jobid_var: the connect option, else STRIPEFS_JOBID,
 * else SLURM_JOB_ID, else `<program>.<uid>` (Lustre's default jobid_name, "%e.%u"). A bad
 * option is REQ_INVALID, a bad variable CONFIG_INVALID, each naming where it came from.
 */
export function resolveJobId(sources: JobIdSources = {}): { jobId: string; source: string } {
  if (sources.jobId !== undefined)
    return { jobId: checked(sources.jobId, 'the jobId option', 'REQ_INVALID'), source: 'option' };
  const env = sources.env ?? process.env;
  for (const name of ['STRIPEFS_JOBID', 'SLURM_JOB_ID']) {
    const value = env[name];
    if (value !== undefined && value !== '')
      return { jobId: checked(value, `env ${name}`, 'CONFIG_INVALID'), source: name };
  }
  const script = process.argv[1] ?? process.argv0;
  const program = (sources.processName ?? basename(script).replace(/\.[cm]?[jt]s$/, '')).replace(
    /[^\x21-\x7e]/g,
    '_',
  );
  const uid = sources.uid ?? process.getuid?.() ?? 0;
  const jobId = `${program || 'node'}.${uid}`.slice(-JOB_ID_BYTES_MAX);
  return { jobId, source: 'program.uid' };
}

/**
 * A new client session id. From the system's random source rather than a seeded one: ids of
 * sessions on different hosts must not collide, and nothing replays them.
 */
export function newSessionId(): string {
  return randomBytes(SESSION_BYTES / 2).toString('hex');
}

/**
 * The tag a request carries, read with `get` (gRPC metadata or a hello frame); undefined when
 * it carries none (the MDS, OSSs and tools tag nothing). A malformed tag is REQ_INVALID naming
 * the field: a client that sends one is broken, and counting it under a made-up id would hide that.
 */
export function parseTag(get: (key: string) => string | undefined): RequestTag | undefined {
  const jobId = get(JOB_ID_METADATA_KEY);
  const session = get(SESSION_METADATA_KEY);
  if (jobId === undefined && session === undefined) return undefined;
  if (jobId === undefined || session === undefined)
    throw new StripeError(
      'REQ_INVALID',
      `a tagged request carries both ${JOB_ID_METADATA_KEY} and ${SESSION_METADATA_KEY}`,
    );
  checked(jobId, JOB_ID_METADATA_KEY, 'REQ_INVALID');
  if (!SESSION_PATTERN.test(session))
    throw new StripeError(
      'REQ_INVALID',
      `${SESSION_METADATA_KEY} must be ${SESSION_BYTES} lowercase hex digits`,
    );
  const clientName = get(CLIENT_NAME_METADATA_KEY);
  if (clientName === undefined) return { jobId, session };
  if (Buffer.byteLength(clientName) > CLIENT_NAME_BYTES_MAX || !PRINTABLE.test(clientName))
    throw new StripeError(
      'REQ_INVALID',
      `${CLIENT_NAME_METADATA_KEY} must be 1 to ${CLIENT_NAME_BYTES_MAX} printable ASCII characters`,
    );
  return { jobId, session, clientName };
}
