// The pure parts of auth: the caps grammar and check, allow-lists, the replay
// window, the signature's verification, and that the access table names every
// MdsService method (a method without a rule would be a hole).
import { describe, expect, it } from 'vitest';
import { checkCaps, formatCaps, parseCaps } from '../../common/auth/caps.js';
import { addressOfPeer, allowListOf } from '../../common/auth/cidr.js';
import { formatKeyring, generateIdentity, parseKeyring } from '../../common/auth/keyring.js';
import { CallSigner, parseSignedCall, storedKeyOf, verifySignedCall } from '../../common/auth/proof.js';
import { acceptSeq, REPLAY_WINDOW_CALLS, SessionTable } from '../../common/auth/sessions.js';
import { ACCESS } from '../../mds/auth/access.js';
import { contract } from '../../proto/index.js';
import { codeOf } from '../helpers/errors.js';

describe('caps', () => {
  it('parse, print back, and refuse what does not parse', async () => {
    expect(formatCaps(parseCaps(' rw /datasets/a/ ,r   /models from 10.0.0.0/8 ::1 '))).toBe(
      'rw /datasets/a, r /models from 10.0.0.0/8 ::1',
    );
    expect(parseCaps('')).toEqual([]);
    for (const bad of [
      'x /a',
      'rw',
      'rw a',
      'rw /a/../b',
      'rw /a to 10.0.0.0/8',
      'r /a from',
      'r /a from 10.0.0.0/33',
    ])
      expect(await codeOf(() => parseCaps(bad)), bad).toBe('AUTH_CAPS_INVALID');
  });

  it('cover a subtree, let its ancestors be looked up, and nothing beside it', () => {
    const caps = parseCaps('rw /a, r /b/c');
    const table: [string, 'r' | 'w' | 'lookup', string][] = [
      ['/a', 'w', 'ok'],
      ['/a/x/y', 'w', 'ok'],
      ['/ab', 'w', 'AUTH_DENIED'],
      ['/ab', 'lookup', 'AUTH_DENIED'],
      ['/b/c/d', 'r', 'ok'],
      ['/b/c/d', 'w', 'AUTH_DENIED'],
      ['/b', 'lookup', 'ok'],
      ['/b', 'r', 'AUTH_DENIED'],
      ['/', 'lookup', 'ok'],
      ['/', 'r', 'AUTH_DENIED'],
      ['/b/d', 'lookup', 'AUTH_DENIED'],
    ];
    for (const [path, access, verdict] of table)
      expect(`${path} ${access} ${checkCaps(caps, path, access)}`).toBe(`${path} ${access} ${verdict}`);
    const fenced = parseCaps('rw /a from 10.1.0.0/16');
    expect(checkCaps(fenced, '/a/f', 'w', '10.1.2.3')).toBe('ok');
    expect(checkCaps(fenced, '/a/f', 'w', '::ffff:10.1.2.3')).toBe('ok');
    expect(checkCaps(fenced, '/a/f', 'w', '127.0.0.1')).toBe('AUTH_ADDRESS_DENIED');
    expect(checkCaps(fenced, '/b', 'w', '10.1.2.3')).toBe('AUTH_DENIED');
  });

  it('allow-lists match IPv4, IPv6 and mapped addresses; peers lose their port', () => {
    const list = allowListOf(['127.0.0.0/8', 'fd00::/8']);
    expect(list.allows('127.4.5.6')).toBe(true);
    expect(list.allows('::ffff:127.0.0.1')).toBe(true);
    expect(list.allows('fd12::1')).toBe(true);
    expect(list.allows('10.0.0.1')).toBe(false);
    expect(list.allows(undefined)).toBe(false);
    expect(allowListOf([]).allows(undefined)).toBe(true);
    expect(addressOfPeer('127.0.0.1:5000')).toBe('127.0.0.1');
    expect(addressOfPeer('::1:5000')).toBe('::1');
    expect(addressOfPeer('[::1]:5000')).toBe('::1');
    expect(addressOfPeer('unknown')).toBeUndefined();
  });
});

describe('signatures and replays', () => {
  it('a signature verifies with the stored key only for its own method, name and key', () => {
    const identity = generateIdentity('alice');
    const signed = parseSignedCall(CallSigner.of(identity).sign('/m/A'));
    expect(verifySignedCall(signed, storedKeyOf(identity.secret), '/m/A')).toBe(true);
    expect(verifySignedCall(signed, storedKeyOf(identity.secret), '/m/B')).toBe(false);
    expect(verifySignedCall(signed, storedKeyOf(generateIdentity('alice').secret), '/m/A')).toBe(false);
    expect(verifySignedCall({ ...signed, name: 'bob' }, storedKeyOf(identity.secret), '/m/A')).toBe(false);
    expect(verifySignedCall({ ...signed, seq: signed.seq + 1 }, storedKeyOf(identity.secret), '/m/A')).toBe(
      false,
    );
    expect(parseKeyring(formatKeyring(identity), 'x')).toEqual(identity);
  });

  it('each sequence number is accepted once, out of order within the window', () => {
    const table = new SessionTable(1_000);
    const session = table.touch('a', 'c1', 0)!;
    expect(acceptSeq(session, 5)).toBe('ok');
    expect(acceptSeq(session, 3)).toBe('ok');
    expect(acceptSeq(session, 5)).toBe('replayed');
    expect(acceptSeq(session, 3)).toBe('replayed');
    expect(acceptSeq(session, 4)).toBe('ok');
    expect(acceptSeq(session, 5 + REPLAY_WINDOW_CALLS)).toBe('ok');
    expect(acceptSeq(session, 5)).toBe('replayed'); // fell out of the window
    expect(acceptSeq(session, 6)).toBe('ok');
    // Idle sessions are forgotten once the idle time has passed.
    expect(table.size).toBe(1);
    table.touch('b', 'c2', 2_000);
    expect(table.list().map((s) => s.name)).toEqual(['b']);
  });

  it('every MdsService method has an access rule', () => {
    const methods = Object.keys(contract().MdsService.service);
    expect(methods.length).toBeGreaterThan(20);
    for (const name of methods) expect(Object.hasOwn(ACCESS, name), name).toBe(true);
  });
});
