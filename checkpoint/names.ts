// Every name the checkpoint API gives to directories and files, in one place.
// A checkpoint directory DIR holds:
//   step-0000000042/             a published checkpoint (visible only once complete)
//     manifest.<json>            the success marker: parts, sizes, crc32c per part
//     data-r000000               the parts of rank 0 packed end to end
//     rank-000000.<json>         what rank 0 staged (parallel ranks only)
//   .staging/step-0000000042.<createdMs>.<token>/   a save in progress (or its remains)
//   .staging/step-0000000042.ranks/                 the shared staging of parallel ranks
//   .trash/step-0000000041.<removedMs>.<token>/     a checkpoint being removed
import { randomBytes } from 'node:crypto';
import { StripeError } from '../common/errors.js';
import { CHECKPOINT_BOUNDS } from './limits.js';

export const STAGING_DIR = '.staging';
export const TRASH_DIR = '.trash';
export const MANIFEST_NAME = 'manifest.json';

const STEP_DIGITS = 10;
const STEP_NAME = /^step-(\d{10,16})$/;
const RANK_RECORD = /^rank-(\d{6})\.json$/;

export function checkStep(step: number): number {
  if (!Number.isSafeInteger(step) || step < 0)
    throw new StripeError('REQ_INVALID', `a checkpoint step is a whole number >= 0, got ${step}`, { step });
  return step;
}

export function checkRank(rank: number): number {
  if (!Number.isInteger(rank) || rank < 0 || rank >= CHECKPOINT_BOUNDS.ranksMax)
    throw new StripeError(
      'REQ_INVALID',
      `a rank is a whole number 0..${CHECKPOINT_BOUNDS.ranksMax - 1}, got ${rank}`,
      {
        rank,
      },
    );
  return rank;
}

/** `step-0000000042`: zero padded, so names sort as steps do. */
export function stepName(step: number): string {
  return `step-${String(checkStep(step)).padStart(STEP_DIGITS, '0')}`;
}

export function stepOfName(name: string): number | undefined {
  const match = STEP_NAME.exec(name);
  if (!match) return undefined;
  const step = Number(match[1]);
  return Number.isSafeInteger(step) ? step : undefined;
}

/** The step a staging or trash entry belongs to (its name starts with the step's name). */
export function stepOfHiddenName(name: string): number | undefined {
  return stepOfName(name.split('.')[0] as string);
}

export function joinPath(dir: string, ...names: string[]): string {
  return [dir.replace(/\/+$/, ''), ...names].join('/');
}

function token(): string {
  return randomBytes(6).toString('hex');
}

/** A private staging directory for one save (several savers of one step never share it). */
export function privateStagingName(step: number, nowMs: number): string {
  return `${stepName(step)}.${nowMs}.${token()}`;
}

/** The staging directory every rank of one step's save shares. */
export function sharedStagingName(step: number): string {
  return `${stepName(step)}.ranks`;
}

export function trashName(name: string, nowMs: number): string {
  return `${name}.${nowMs}.${token()}`;
}

export function dataFileName(rank: number): string {
  return `data-r${String(checkRank(rank)).padStart(6, '0')}`;
}

export function rankRecordName(rank: number): string {
  return `rank-${String(checkRank(rank)).padStart(6, '0')}.json`;
}

export function rankOfRecordName(name: string): number | undefined {
  const match = RANK_RECORD.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** A part name: any non-empty string without NUL, up to partNameBytesMax bytes (they name no file). */
export function checkPartName(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\0'))
    throw new StripeError(
      'REQ_INVALID',
      `a part name is a non-empty string without NUL, got ${JSON.stringify(name)}`,
    );
  if (Buffer.byteLength(name) > CHECKPOINT_BOUNDS.partNameBytesMax)
    throw new StripeError(
      'REQ_INVALID',
      `part name ${name.slice(0, 40)}... is longer than ${CHECKPOINT_BOUNDS.partNameBytesMax} bytes`,
    );
  return name;
}
