/**
 * The sending commands at a terminal: nothing listening on a local port ends at once (exit 3, a hint) unless
 * --retry-for asks to keep trying; a long wait says once how long and why; batch progress (rate, in flight, retries
 * waiting, ETA); durations shown as durations in --help; a --dry-run capture that reads back without a note.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Output } from '../../src/output/output.js';
import { describeBatchProgress, ProgressBar } from '../../src/output/progress.js';
import { isLoopbackUrl } from '../../src/http/loopback.js';
import { runCli } from '../helpers/cli.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { runTty, screenLines, ttyIo, widestLine } from '../helpers/tty.js';
import { fakeIo } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-send-terminal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_test' };
const HINT =
  'hint: is the receiver running, and on the port of the URL? (cai mock platform|provider prints its URL when it starts); pass --retry-for DURATION to keep trying while it starts\n';

/** A loopback port where nothing listens. */
let dead: string;
let deadPort: number;
beforeAll(async () => {
  deadPort = await deadLoopbackPort();
  dead = `http://127.0.0.1:${deadPort}`;
});

describe('a send to a loopback port where nothing listens', () => {
  it('ends at the first refused connection: exit 3, one error and a hint', async () => {
    const result = await runCli(['send-event', '--to', `${dead}/events`, '--provider', 'acme', '--sample'], { env });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^sending a generated conversation\.message event, event_id [0-9a-f-]{36}\n/);
    expect(result.stderr.split('\n').slice(1).join('\n')).toBe(
      `error: nothing listens at ${dead}: the connection was refused (ECONNREFUSED)\n${HINT}`,
    );
  });

  it('also for localhost, for a job, and in --json (one attempt, code nothing_listens)', async () => {
    const result = await runCli(
      [
        '--json',
        'send-job',
        '--to',
        `http://localhost:${deadPort}`,
        '--source',
        'platform',
        '--sample',
        '--callback-url',
        'https://platform.example/cb',
      ],
      { env },
    );
    expect(result.code).toBe(3);
    const doc = JSON.parse(result.stdout) as {
      verdict: string;
      attempts: unknown[];
      error: { code: string; message: string };
    };
    expect(doc.verdict).toBe('failed');
    expect(doc.attempts).toHaveLength(1);
    expect(doc.error.code).toBe('nothing_listens');
    expect(doc.error.message).toBe(
      `nothing listens at http://localhost:${deadPort}: the connection was refused (ECONNREFUSED)`,
    );
  });

  it('keeps trying when --retry-for is given, and says once how long and why', async () => {
    const result = await runCli(
      [
        'send-event',
        '--to',
        `${dead}/events`,
        '--provider',
        'acme',
        '--sample',
        '--retry-for',
        '1s',
        '--initial-delay',
        '10ms',
      ],
      { env },
    );
    expect(result.code).toBe(3);
    const lines = result.stderr.split('\n');
    expect(lines[1]).toMatch(
      /^attempt 1: cannot reach http:\/\/127\.0\.0\.1:\d+: the connection was refused \(ECONNREFUSED\); retrying in \d+ ms \(backoff\)$/,
    );
    expect(lines[2]).toBe(
      'note: retrying with backoff for up to 1 s (--retry-for); the spec retries 429, 5xx and connection failures for up to 24 h (§7, §8). Ctrl-C stops.',
    );
    expect(lines.filter((line) => line.startsWith('note: retrying'))).toHaveLength(1);
    // The same answer again and again is said once more, in one line, when the run ends.
    expect(lines.filter((line) => line.startsWith('attempt '))).toHaveLength(1);
    expect(
      lines.filter((line) => /^attempts 2–\d+: the same answer \(\d+ times\); waits \d+ ms to \d+ ms$/.test(line)),
    ).toHaveLength(1);
    expect(result.stderr).toMatch(/error: delivery failed after \d+ attempts, the last: cannot reach/);
  });

  it('a batch stops at the first refused connection: the rest not sent, one error', async () => {
    const file = join(dir, 'events.ndjson');
    const line = (n: number) =>
      JSON.stringify({
        event: 'job.closed',
        event_id: `evt_${n}`,
        lead_id: 'lead_1',
        outcome: 'no_answer',
        attempts: 1,
        occurred_at: '2026-11-22T13:05:00+00:00',
      });
    writeFileSync(file, Array.from({ length: 20 }, (_, index) => line(index + 1)).join('\n') + '\n');
    const result = await runCli(
      ['send-event', '--to', `${dead}/events`, '--provider', 'acme', '--ndjson', file, '--concurrency', '1'],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/│ failed \(delivery\) +│ 1 +│/);
    expect(result.stdout).toMatch(/│ not sent \(stopped\) +│ 19 +│/);
    expect(result.stdout).toContain('stopped at line 1; 19 document(s) not sent: line(s) 2-20\n');
    expect(result.stderr).toBe(`error: nothing listens at ${dead}: the connection was refused (ECONNREFUSED)\n${HINT}`);
  });

  it('replay too', async () => {
    const capture = join(dir, 'capture.http');
    const dry = await runCli(
      ['send-event', '--to', 'https://platform.example/events', '--provider', 'acme', '--sample', '--dry-run'],
      { env },
    );
    writeFileSync(capture, dry.stdout);
    const result = await runCli(['replay', '--request', capture, '--to', `${dead}/events`], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`error: nothing listens at ${dead}: the connection was refused (ECONNREFUSED)\n${HINT}`);
  });

  it('loopback addresses are 127.0.0.0/8, ::1 and localhost, nothing else', () => {
    for (const url of [
      'http://127.0.0.1:8787',
      'http://127.1.2.3/x',
      'http://[::1]:80',
      'http://localhost:1',
      'https://api.localhost/events',
    ])
      expect(isLoopbackUrl(url)).toBe(true);
    for (const url of [
      'http://10.0.0.1',
      'http://[::2]',
      'https://platform.example',
      'http://localhost.example.com',
      'not a url',
    ])
      expect(isLoopbackUrl(url)).toBe(false);
  });
});

describe('--help shows durations as durations', () => {
  it.each([
    ['send-event', ['(default: 10s)', '(default: 2m)']],
    ['send-job', ['(default: 10s)', '(default: 2m)']],
    ['replay', ['(default: 10s)', '(default: 2m)']],
    ['doctor', ['(default: 5s)']],
    ['conformance run', ['(default: 10s)', '(default: 30s)']],
  ] as const)('cai %s --help', async (command, defaults) => {
    const result = await runCli([...command.split(' '), '--help']);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/g, ' ');
    for (const text of defaults) expect(help).toContain(text);
    expect(help).not.toMatch(/\(default: \d{4,}\)/);
  });
});

describe('--retry-for in --help says what a refused local port does', () => {
  it.each(['send-event', 'send-job', 'replay', 'trigger'])('cai %s --help', async (command) => {
    const result = await runCli([command, '--help']);
    const help = result.stdout.replace(/\s+/g, ' ');
    // With the default, a send to a loopback port where nothing listens ends at once (exit 3, above).
    expect(help).toContain('a refused local port (nothing listens) ends the send at once, unless this is given');
    expect(help).not.toContain('also keeps trying a local port');
  });
});

describe('a --dry-run capture', () => {
  it('is the request exactly: verify --request and replay --dry-run read it back without a note', async () => {
    const dry = await runCli(
      ['send-event', '--to', 'https://platform.example/events', '--provider', 'acme', '--sample', '--dry-run'],
      { env },
    );
    expect(dry.code).toBe(0);
    const capture = join(dir, 'exact.http');
    writeFileSync(capture, dry.stdout);
    const length = Number(/content-length: (\d+)/i.exec(dry.stdout)?.[1]);
    expect(Buffer.byteLength(dry.stdout.slice(dry.stdout.indexOf('\r\n\r\n') + 4))).toBe(length);
    const verify = await runCli(['verify', '--request', capture], { env });
    expect(verify.code).toBe(0);
    expect(verify.stderr).toBe('');
    const replay = await runCli(
      ['replay', '--request', capture, '--to', 'https://platform.example/events', '--dry-run'],
      { env },
    );
    expect(replay.code).toBe(0);
    expect(replay.stderr).not.toContain('byte(s) after');
    expect(readFileSync(capture)).toEqual(Buffer.from(dry.stdout));
  });

  it('on a colour terminal, escapes every escape sequence of the body, colours included', async () => {
    const body = join(dir, 'sgr.json');
    writeFileSync(body, '{"event":"job.closed","x":"A\u001b[31mRED\u001b[0mB\u001b]0;title\u0007C"}');
    const to = ['--to', 'https://platform.example/events'];
    const send = ['send-event', ...to, '--provider', 'acme', '--body', body, '--dry-run', '--no-validate'];
    // The capture as a file holds it exactly; replay reads it back.
    const capture = join(dir, 'sgr.http');
    writeFileSync(capture, (await runCli(send, { env })).stdout);
    const colour = { ...env, NO_COLOR: '', FORCE_COLOR: '1' };
    for (const argv of [send, ['replay', '--request', capture, ...to, '--dry-run']]) {
      const result = await runTty(argv, { columns: 80, env: colour });
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('\u001b');
      expect(result.stdout).toContain('"x":"A\\x1b[31mRED\\x1b[0mB\\x1b]0;title\\x07C"}');
    }
  });

  it('on a terminal, ends with a newline so the prompt starts on its own line', async () => {
    const result = await runTty(
      ['send-event', '--to', 'https://platform.example/events', '--provider', 'acme', '--sample', '--dry-run'],
      { columns: 80, env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('}\n')).toBe(true);
  });
});

describe('batch progress', () => {
  it('says documents, rate, in flight, retries waiting and an ETA', () => {
    expect(
      describeBatchProgress({
        total: 1000,
        done: 120,
        ok: 117,
        problems: 3,
        inFlight: 8,
        retrying: 2,
        elapsedMs: 4000,
      }),
    ).toBe('120/1000 documents · 30/s · 8 in flight · 2 waiting to retry · ETA 29 s · 3 problems');
    expect(
      describeBatchProgress({ total: 10, done: 0, ok: 0, problems: 0, inFlight: 4, retrying: 0, elapsedMs: 300 }),
    ).toBe('0/10 documents · 4 in flight');
    expect(
      describeBatchProgress({ total: 10000, done: 3, ok: 3, problems: 0, inFlight: 8, retrying: 0, elapsedMs: 2000 }),
    ).toBe('3/10000 documents · 1.5/s · 8 in flight · ETA 1 h 51 min');
  });

  it('on a terminal: one line redrawn in place, never wider than the terminal, cleared at the end', async () => {
    const io = ttyIo({ columns: 60 });
    // The line is redrawn at most every 100 ms: the clock moves on by hand.
    let now = 0;
    io.now = () => (now += 200);
    const output = await Output.create(io, { json: false, quiet: false, debug: false });
    const bar = new ProgressBar(4, { io, output });
    bar.start(1);
    bar.start(2);
    bar.attempt(2, true);
    bar.count('ok', 1);
    bar.log('line 3: rejected: status 400');
    bar.stop();
    const err = io.err();
    expect(err).toContain('1 in flight · 1 waiting to retry');
    expect(widestLine(err)).toBeLessThanOrEqual(60);
    expect(screenLines(err)).toEqual(['line 3: rejected: status 400']);
  });

  it('without a terminal: an occasional plain progress line on stderr, stdout untouched', async () => {
    const io = fakeIo();
    const output = await Output.create(io, { json: false, quiet: false, debug: false });
    const bar = new ProgressBar(3, { io, output }, { plainEveryMs: 5 });
    bar.start(1);
    for (let tries = 0; tries < 200 && !io.err().includes('progress:'); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    bar.stop();
    expect(io.err()).toMatch(/^progress: 0\/3 documents · 1 in flight\n/);
    expect(io.err()).not.toContain('\r');
    expect(io.out()).toBe('');
  });

  it('a batch on a terminal of 40 columns: the summary and the lines fit', async () => {
    const server = await startScriptedServer([{ status: 202, body: { ok: true } }], { path: '/events' });
    try {
      const file = join(dir, 'small.ndjson');
      writeFileSync(
        file,
        [1, 2, 3]
          .map((n) =>
            JSON.stringify({
              event: 'job.closed',
              event_id: `evt_tty_${n}`,
              lead_id: 'lead_1',
              outcome: 'maybe',
              attempts: 1,
              occurred_at: '2026-11-22T13:05:00+00:00',
            }),
          )
          .join('\n') + '\n',
      );
      const result = await runTty(['send-event', '--to', server.url, '--provider', 'acme', '--ndjson', file], {
        columns: 40,
        env,
      });
      expect(result.code).toBe(1);
      expect(widestLine(result.stdout)).toBeLessThanOrEqual(40);
      expect(widestLine(result.stderr)).toBeLessThanOrEqual(40);
      expect(screenLines(result.stderr).join(' ').replace(/\s+/g, ' ')).toContain(
        'line 1 (evt_tty_1): not sent, invalid: outcome: not one of the allowed values',
      );
    } finally {
      await server.close();
    }
  });
});
