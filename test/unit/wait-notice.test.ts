/**
 * A long wait is told where no line can be redrawn: one line every 10 s at most, what is awaited and until when
 * (src/output/wait-notice.ts), for a single send's answer and its retries, a batch, the mock's start-up. Fake
 * timers: no time passes in the test.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Output } from '../../src/output/output.js';
import { watchDelivery } from '../../src/commands/send/delivery-progress.js';
import { describeWait, waitNotice, WAIT_LINE_MS } from '../../src/output/wait-notice.js';
import { resolvePolicy } from '../../src/http/retry.js';
import type { AttemptRecord } from '../../src/http/deliver.js';
import { fakeIo } from '../helpers/cli.js';
import { ttyIo } from '../helpers/tty.js';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date(2026, 0, 15, 14, 5, 0));
});
afterEach(() => vi.useRealTimers());

const plain = (options: { quiet?: boolean } = {}) => {
  const io = fakeIo();
  return { io, output: new Output(io, { json: false, quiet: options.quiet === true, debug: false }) };
};

describe('waiting for …, until …', () => {
  it('says what and until when, in local time', () => {
    const at = new Date(2026, 0, 15, 14, 5, 0).getTime();
    expect(describeWait({ what: 'the answer of https://p.example (attempt 1)', until: at + 25_000 }, at)).toBe(
      'waiting for the answer of https://p.example (attempt 1), until 14:05:25 (25 s from now)',
    );
    expect(describeWait({ what: 'the mock to start' }, at)).toBe('waiting for the mock to start');
  });

  it('prints one line every 10 s while something is awaited, none for a wait that ends sooner', () => {
    const { io, output } = plain();
    const notice = waitNotice(output, () => Date.now());
    notice.set({ what: 'a', until: Date.now() + 60_000 });
    vi.advanceTimersByTime(WAIT_LINE_MS - 1);
    expect(io.err()).toBe('');
    vi.advanceTimersByTime(1);
    expect(io.err()).toBe('waiting for a, until 14:06:00 (50 s from now)\n');
    vi.advanceTimersByTime(WAIT_LINE_MS);
    expect(io.err().split('\n')).toHaveLength(3);
    notice.set({ what: 'b', until: Date.now() + 5_000 });
    notice.set();
    vi.advanceTimersByTime(5 * WAIT_LINE_MS);
    expect(io.err().split('\n')).toHaveLength(3);
    notice.stop();
  });

  it('says nothing with --quiet, nor on a terminal that shows its own status line', () => {
    const quiet = plain({ quiet: true });
    const tty = ttyIo({ columns: 80 });
    for (const [io, output] of [
      [quiet.io, quiet.output],
      [tty, new Output(tty, { json: false, quiet: false, debug: false })],
    ] as const) {
      const notice = waitNotice(output, () => Date.now());
      notice.set({ what: 'a' });
      vi.advanceTimersByTime(3 * WAIT_LINE_MS);
      expect(io.err()).toBe('');
      notice.stop();
    }
  });
});

describe('a single send, where nothing is redrawn', () => {
  it('tells the answer it waits for, then the next attempt after a retryable answer, then that attempt', () => {
    const { io, output } = plain();
    const watch = watchDelivery(
      { io, output },
      'https://platform.example/cai/events',
      false,
      resolvePolicy({}),
      30_000,
    );
    vi.advanceTimersByTime(WAIT_LINE_MS);
    expect(io.err()).toBe(
      'waiting for the answer of https://platform.example (attempt 1), until 14:05:30 (20 s from now)\n',
    );
    const attempt = {
      attempt: 1,
      decision: 'retry',
      waitMs: 120_000,
      status: 503,
      requestHeaders: {},
      startedAt: '',
    } as unknown as AttemptRecord;
    watch.hooks.onAttempt?.(attempt);
    vi.advanceTimersByTime(WAIT_LINE_MS);
    expect(io.err().split('\n').at(-2)).toBe(
      'waiting for attempt 2 to https://platform.example (backoff), until 14:07:10 (1 min 50 s from now)',
    );
    vi.advanceTimersByTime(12 * WAIT_LINE_MS);
    expect(io.err().split('\n').at(-2)).toBe(
      'waiting for the answer of https://platform.example (attempt 2), until 14:07:40 (20 s from now)',
    );
    watch.dispose();
    const told = io.err();
    vi.advanceTimersByTime(5 * WAIT_LINE_MS);
    expect(io.err()).toBe(told);
  });
});
