import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/duration.js';

describe('formatDuration: the one way a duration is written', () => {
  it('is readable', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(2000)).toBe('2 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(9_000_000)).toBe('2 h 30 min');
    expect(formatDuration(24 * 3_600_000)).toBe('24 h');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('unlimited');
  });

  it('keeps the digits a measured latency needs below a second', () => {
    expect(formatDuration(0.414)).toBe('0.41 ms');
    expect(formatDuration(12.34)).toBe('12.3 ms');
    expect(formatDuration(250.4)).toBe('250 ms');
    expect(formatDuration(1612)).toBe('1.6 s');
  });
});

describe('parseDuration: the one way a duration is read', () => {
  it('reads units, sums, and bare seconds', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1.5')).toBe(1500);
    expect(parseDuration(' 2m ')).toBe(120_000);
  });

  it('says undefined for anything else', () => {
    for (const text of ['', 'ms', '5 s', '1x', '1h 30m', '-1s']) expect(parseDuration(text)).toBeUndefined();
  });
});
