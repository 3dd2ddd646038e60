// The client's ticket cache with a clock the test moves and a recorded
// GetTickets: tickets are sent without asking the MDS while fresh; past half
// their life every ticket in use is renewed in one call for many files (and
// one never used is not); an expired one is replaced before it is sent; a
// request refused for its ticket is sent once more with a fresh one; a client
// never given a ticket (auth off) asks for none.
import { describe, expect, it } from 'vitest';
import { TicketCache } from '../../client/tickets.js';
import { mintTicket } from '../../common/auth/ticket.js';
import { StripeError } from '../../common/errors.js';

const KEY = { id: 1, key: Buffer.alloc(32, 7) };
const LIFE_MS = 10_000;

function setup() {
  let now = 1_000_000;
  const calls: number[][] = [];
  const mint = (inode: number) =>
    mintTicket(KEY, {
      scope: String(inode),
      write: true,
      expiresMs: now + LIFE_MS,
      clientId: 'c1',
      name: 'n',
    });
  const cache = new TicketCache(
    async (inodes) => {
      calls.push(inodes);
      return inodes.map(mint);
    },
    () => now,
  );
  return { cache, calls, mint, advance: (ms: number) => (now += ms) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('client ticket cache', () => {
  it('sends fresh tickets without asking; renews every one in use in one call past half-life', async () => {
    const { cache, calls, mint, advance } = setup();
    for (let inode = 1; inode <= 50; inode++) cache.put(mint(inode));
    for (let inode = 1; inode <= 40; inode++) expect(cache.get(`${inode}.0`)).toMatch(/^t1 1 /);
    expect(calls).toEqual([]);
    advance(LIFE_MS / 2 + 1);
    const stillSent = cache.get('1.3');
    expect(typeof stillSent).toBe('string'); // the current one goes meanwhile
    await settled();
    expect(calls.length).toBe(1);
    // The 40 used, in one call; the 10 never sent are not renewed.
    expect([...(calls[0] as number[])].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    expect(cache.renewCalls).toBe(1);
  });

  it('replaces an expired ticket before sending it, and a missing one', async () => {
    const { cache, calls, mint, advance } = setup();
    cache.put(mint(7));
    advance(LIFE_MS + 1);
    const renewed = await cache.get('7.0.c2');
    expect(calls).toEqual([[7]]);
    expect(renewed).toBe(mint(7));
    expect(await cache.get('8.1')).toBe(mint(8));
    expect(calls).toEqual([[7], [8]]);
  });

  it('sends a request refused for its ticket once more with a fresh one; other refusals are final', async () => {
    const { cache, calls, mint } = setup();
    cache.put(mint(3));
    let runs = 0;
    const answer = await cache.retrying('3.0', async () => {
      runs += 1;
      if (runs === 1) throw new StripeError('TICKET_EXPIRED', 'expired');
      return 'done';
    });
    expect(answer).toBe('done');
    expect(runs).toBe(2);
    expect(calls).toEqual([[3]]);
    runs = 0;
    const refused = cache.retrying('3.0', async () => {
      runs += 1;
      throw new StripeError('TICKET_REVOKED', 'evicted');
    });
    await expect(refused).rejects.toMatchObject({ code: 'TICKET_REVOKED' });
    expect(runs).toBe(1);
  });

  it('asks for nothing while no ticket was ever given (the MDS runs without auth)', async () => {
    const { cache, calls } = setup();
    expect(cache.get('5.0')).toBeUndefined();
    expect(await cache.retrying('5.0', async () => 'ok')).toBe('ok');
    expect(calls).toEqual([]);
  });
});
