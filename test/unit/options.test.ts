import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseDurationMs,
  parsePositiveDurationMs,
  parseRatePerSecond,
  parseRetryPeriodMs,
  parseUnixSeconds,
  parseUrlPath,
} from '../../src/commands/options.js';
import { parseIpAddress } from '../../src/commands/network-options.js';

describe('option value parsers (argv → options)', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['2m', 120_000],
    ['24h', 86_400_000],
    ['1h30m', 5_400_000],
    ['1.5', 1_500],
  ])('parseDurationMs(%s) = %d', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each([
    [parseDurationMs, 'soon'],
    [parseDurationMs, '10 parsecs'],
    [parsePositiveDurationMs, '0'],
    [parsePositiveDurationMs, '0s'],
    [parseRetryPeriodMs, '25h'],
    [parseRetryPeriodMs, '7d'],
    [parseIpAddress, '999.1.1.1'],
    [parseIpAddress, 'localhost'],
    [parseUrlPath, 'events'],
    [parseUrlPath, '/events?x=1'],
    [parseUnixSeconds, '1700000000000'],
    [parseUnixSeconds, '-5'],
    [parseRatePerSecond, '0/s'],
  ] as const)('%o refuses %s with a reason', (parse, text) => {
    expect(() => (parse as (value: string) => unknown)(text)).toThrow(InvalidArgumentError);
  });

  it('accepts the edges that are allowed', () => {
    expect(parseRetryPeriodMs('24h')).toBe(86_400_000);
    expect(parseIpAddress('::1')).toBe('::1');
    expect(parseUrlPath('/cai/events')).toBe('/cai/events');
    expect(parseRatePerSecond('600/m')).toBe(10);
  });
});
