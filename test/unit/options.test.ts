import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseHostPort,
  parseDurationMs,
  parsePositiveDurationMs,
  parseRatePerSecond,
  parseTimeBound,
  parseRetryPeriodMs,
  parseUnixSeconds,
  parseUrlPath,
} from '../../src/commands/common/options.js';
import { parseIpAddress } from '../../src/commands/common/network-options.js';

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
    [parseUrlPath, '/ev\u0001ents'],
    [parseUrlPath, '/ev\u001b[31ments'],
    [parseUrlPath, '/évents'],
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

describe('parseHostPort: the one reader of a listen address, as --callback-listen and --listen take it', () => {
  it('takes HOST:PORT and [IPv6]:PORT, port 0 for any free one', () => {
    expect(parseHostPort('127.0.0.1:8787')).toEqual({ host: '127.0.0.1', port: 8787 });
    expect(parseHostPort('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseHostPort(' localhost:80 ')).toEqual({ host: 'localhost', port: 80 });
  });

  it('refuses a missing host or port, and a port past 65535', () => {
    for (const value of ['8787', ':8787', 'localhost', 'localhost:', 'a:b:c', '127.0.0.1:65536']) {
      expect(() => parseHostPort(value)).toThrow('expected HOST:PORT such as 127.0.0.1:8787 (port 0: any free port).');
    }
  });
});

describe('parseTimeBound: --since and --until of cai report', () => {
  it('takes real dates and date-times, with their edges', () => {
    expect(parseTimeBound('2024-02-29')).toEqual({ at: Date.parse('2024-02-29T00:00:00Z') });
    expect(parseTimeBound('2026-11-30T23:59:59Z')).toEqual({ at: Date.parse('2026-11-30T23:59:59Z') });
    expect(parseTimeBound('2026-11-30T10:00+05:45')).toEqual({ at: Date.parse('2026-11-30T10:00+05:45') });
    expect(parseTimeBound('24h')).toEqual({ agoMs: 86_400_000 });
  });

  it('refuses a date that does not exist instead of rolling it over (2026-02-31 is not 3 March)', () => {
    for (const value of [
      '2026-02-31',
      '2025-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-11-30T24:00Z',
      '2026-11-30T10:60Z',
    ])
      expect(() => parseTimeBound(value), value).toThrow('not a real date.');
    expect(() => parseTimeBound('2026-11-30T10:00:00+25:00')).toThrow('not a real date.');
  });
});
