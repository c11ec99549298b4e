/**
 * `cai mock platform --rate-limit N/m`: a burst of N, as the user wrote it (the 2nd request of 7/m used to be 429
 * already: the burst was max(1, 7/60)), and the 429 words the cap as given, never as a long float per second.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/mock/rate-limit.js';
import { parseRatePerSecond } from '../../src/commands/common/options.js';
import { fakeIo } from '../helpers/cli.js';
import { run } from '../../src/main.js';

describe('--rate-limit N/m', () => {
  it('7/m: 7 requests pass at once, the 8th is 429 "over the cap of 7 requests per minute"', async () => {
    const io = fakeIo({ env: { CAI_SECRET: 'whsec_rate_limit_0123456789abcdef' } });
    const finished = run(['mock', 'platform', '--provider', 'acme', '--rate-limit', '7/m'], io);
    while (!io.out().includes('\n')) await new Promise((resolve) => setTimeout(resolve, 10));
    const url = io.out().split('\n')[0] as string;
    const statuses: number[] = [];
    let last: unknown;
    for (let i = 0; i < 8; i++) {
      // Unsigned: the cap is checked before the credential (docs/mocks.md, the order of checks), so 401 until it.
      const response = await fetch(url, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      statuses.push(response.status);
      last = await response.json();
    }
    io.interrupt();
    expect(await finished).toBe(130);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 429]);
    expect(last).toMatchObject({ error: 'rate_limited', message: 'over the cap of 7 requests per minute (§7)' });
  });

  it.each([
    ['7/m', '7 requests per minute', 7],
    ['20/s', '20 requests per second', 20],
    ['600/m', '10 requests per second', 10],
    ['1.5/s', '1.5 requests per second', 1],
    ['30/h', '30 requests per hour', 30],
    ['1/h', '1 request per hour', 1],
    ['0.5/h', '0.5 requests per hour', 1],
  ])('%s: the cap reads "%s", a burst of %i', (given, cap, burst) => {
    const limiter = new RateLimiter(parseRatePerSecond(given), () => 0);
    expect(limiter.cap).toBe(cap);
    for (let i = 0; i < burst; i++) expect(limiter.take()).toBeUndefined();
    expect(limiter.take()).toBeGreaterThanOrEqual(1);
  });
});
