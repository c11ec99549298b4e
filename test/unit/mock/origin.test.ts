import { describe, expect, it } from 'vitest';
import { OriginAllowList, parseCidr } from '../../../src/mock/origin.js';
import { RateLimiter } from '../../../src/mock/rate-limit.js';

function allowList(...blocks: string[]): OriginAllowList {
  return new OriginAllowList(blocks.map((block) => parseCidr(block) ?? expect.unreachable(block)));
}

describe('origin allow-list (§5.7)', () => {
  it('parses IPv4 and IPv6 blocks and bare addresses, and refuses malformed ones', () => {
    expect(parseCidr('203.0.113.0/24')).toEqual({ address: '203.0.113.0', prefix: 24, family: 'ipv4' });
    expect(parseCidr('2001:db8::/32')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseCidr('127.0.0.1')).toEqual({ address: '127.0.0.1', prefix: 32, family: 'ipv4' });
    for (const bad of ['300.0.0.1', '10.0.0.0/33', '::/129', '10.0.0.0/8/1', 'example.com', '10.0.0.0/'])
      expect(parseCidr(bad), bad).toBeUndefined();
  });

  it('matches IPv4, IPv6, and IPv4-mapped IPv6 peers against IPv4 blocks', () => {
    const list = allowList('203.0.113.0/24', '127.0.0.1', '2001:db8::/32');
    expect(list.allows('203.0.113.7')).toBe(true);
    expect(list.allows('203.0.114.7')).toBe(false);
    expect(list.allows('::ffff:127.0.0.1')).toBe(true);
    expect(list.allows('::FFFF:203.0.113.9')).toBe(true);
    expect(list.allows('::ffff:10.0.0.1')).toBe(false);
    expect(list.allows('2001:db8:1::5')).toBe(true);
    expect(list.allows('2001:db9::5')).toBe(false);
    expect(list.allows('::1')).toBe(false);
    expect(list.allows(undefined)).toBe(false);
  });

  it('matches IPv4 peers against an IPv4-mapped IPv6 block', () => {
    expect(allowList('::ffff:192.0.2.0/120').allows('192.0.2.44')).toBe(true);
    expect(allowList('::1').allows('::1')).toBe(true);
  });
});

describe('rate limiter (§7)', () => {
  it('allows a burst of the rate, then answers a whole-second Retry-After, and refills', () => {
    let now = 0;
    const limiter = new RateLimiter(2, () => now);
    expect(limiter.take()).toBeUndefined();
    expect(limiter.take()).toBeUndefined();
    expect(limiter.take()).toBe(1);
    now = 500;
    expect(limiter.take()).toBeUndefined();
    const slow = new RateLimiter(0.1, () => now);
    expect(slow.take()).toBeUndefined();
    expect(slow.take()).toBe(10);
  });
});
