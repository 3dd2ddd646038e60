// Path caps: which subtrees an identity may read or write, as text
// ('rw /datasets/a, r /models from 10.0.0.0/8') and as a pure check. A cap on /a
// covers /a and everything under it (not /ab); the folders above a cap may be
// looked up (stat, open) but not listed, so a client can reach its subtree and
// sees nothing beside it. `from CIDR ...` limits a cap to callers' addresses.

import { StripeError } from '../errors.js';
import { type AllowList, allowListOf } from './cidr.js';

export type Right = 'r' | 'w';
/** 'lookup' is a stat or open: allowed on a cap's ancestors too. */
export type Access = Right | 'lookup';

export interface Cap {
  read: boolean;
  write: boolean;
  path: string;
  allow: AllowList;
}

export type CapVerdict = 'ok' | 'AUTH_DENIED' | 'AUTH_ADDRESS_DENIED';

function invalid(text: string, why: string): StripeError {
  return new StripeError(
    'AUTH_CAPS_INVALID',
    `caps ${JSON.stringify(text)}: ${why}; expected 'rw /a, r /b [from CIDR ...]'`,
  );
}

function cleanCapPath(path: string, text: string): string {
  if (!path.startsWith('/')) throw invalid(text, `${path} is not an absolute path`);
  const names = path.split('/').filter((name) => name !== '');
  if (names.some((name) => name === '.' || name === '..' || name.includes('\0')))
    throw invalid(text, `${path} holds '.', '..' or NUL`);
  return `/${names.join('/')}`;
}

/** Parses the caps text; an empty text is no caps at all (an identity for admin commands only). */
export function parseCaps(text: string): Cap[] {
  const caps: Cap[] = [];
  for (const part of text.split(',')) {
    const words = part
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '');
    if (words.length === 0) continue;
    const [rights = '', path = '', from, ...cidrs] = words;
    if (!/^(r|w|rw|wr)$/.test(rights))
      throw invalid(text, `rights ${JSON.stringify(rights)} are not r, w or rw`);
    if (!path) throw invalid(text, `${rights} names no path`);
    if (from !== undefined && (from !== 'from' || cidrs.length === 0))
      throw invalid(text, `after the path only 'from CIDR ...' may follow`);
    caps.push({
      read: rights.includes('r'),
      write: rights.includes('w'),
      path: cleanCapPath(path, text),
      allow: allowListOf(cidrs),
    });
  }
  return caps;
}

export function formatCaps(caps: readonly Cap[]): string {
  return caps
    .map((cap) => {
      const rights = `${cap.read ? 'r' : ''}${cap.write ? 'w' : ''}`;
      const from = cap.allow.cidrs.length > 0 ? ` from ${cap.allow.cidrs.join(' ')}` : '';
      return `${rights} ${cap.path}${from}`;
    })
    .join(', ');
}

function covers(capPath: string, path: string): boolean {
  return capPath === '/' || path === capPath || path.startsWith(`${capPath}/`);
}

function isAncestor(path: string, capPath: string): boolean {
  return path === '/' || capPath.startsWith(`${path}/`);
}

/**
 * Whether `caps` allow `access` to `path` from `address`. A cap that would allow it but
 * not from this address makes the verdict AUTH_ADDRESS_DENIED (said apart, for the audit).
 */
export function checkCaps(caps: readonly Cap[], path: string, access: Access, address?: string): CapVerdict {
  let addressRefused = false;
  for (const cap of caps) {
    const fits =
      (covers(cap.path, path) &&
        (access === 'w' ? cap.write : cap.read || (access === 'lookup' && cap.write))) ||
      (access === 'lookup' && isAncestor(path, cap.path));
    if (!fits) continue;
    if (cap.allow.allows(address)) return 'ok';
    addressRefused = true;
  }
  return addressRefused ? 'AUTH_ADDRESS_DENIED' : 'AUTH_DENIED';
}
