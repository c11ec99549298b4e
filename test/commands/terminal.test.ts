/**
 * The terminal: output laid out for its width (80 columns must look right, 60 and 40 degrade without breaking),
 * colour decided from the terminal, NO_COLOR, FORCE_COLOR and --no-color; and, without a terminal, plain and
 * complete output. Fake TTY streams in-process (test/helpers/tty.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { colorLevel, Output } from '../../src/output/output.js';
import { MockLines } from '../../src/output/mock-lines.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { runTty, screenLines, ttyIo, widestLine } from '../helpers/tty.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-terminal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('colour decisions (STYLE.md: only on a terminal, never against NO_COLOR, FORCE_COLOR=0, --no-color, --json)', () => {
  const plain = { json: false };
  it.each([
    ['a terminal', {}, true, plain, 1],
    ['a pipe', {}, false, plain, 0],
    ['NO_COLOR=1 on a terminal', { NO_COLOR: '1' }, true, plain, 0],
    ['NO_COLOR empty on a terminal (unset)', { NO_COLOR: '' }, true, plain, 1],
    ['FORCE_COLOR=0 on a terminal', { FORCE_COLOR: '0' }, true, plain, 0],
    ['FORCE_COLOR=false on a terminal', { FORCE_COLOR: 'false' }, true, plain, 0],
    ['FORCE_COLOR=1 on a pipe', { FORCE_COLOR: '1' }, false, plain, 1],
    ['FORCE_COLOR=3 on a pipe', { FORCE_COLOR: '3' }, false, plain, 3],
    ['NO_COLOR beats FORCE_COLOR', { NO_COLOR: '1', FORCE_COLOR: '1' }, true, plain, 0],
    ['--no-color beats FORCE_COLOR', { FORCE_COLOR: '1' }, true, { json: false, color: false }, 0],
    ['--json', {}, true, { json: true }, 0],
    ['TERM=dumb', { TERM: 'dumb' }, true, plain, 0],
  ] as const)('%s', (_name, env, isTTY, options, level) => {
    expect(colorLevel(env, isTTY, options)).toBe(level);
  });

});

describe('other renderers fit the terminal', () => {
  it.each([80, 60, 40])('the report tables at %i columns: fitted, or a list per row when too narrow', async (columns) => {
    const result = await runTty(['report', '--log', 'fixtures/logs/platform.ndjson', '--log', 'fixtures/logs/provider.ndjson'], { columns });
    expect(result.code).toBe(0);
    expect(widestLine(result.stdout)).toBeLessThanOrEqual(columns);
    const text = screenLines(result.stdout).join('\n');
    expect(text).toContain('Jobs and first contact');
    // Every figure is still there: BR-001 appears in each of the four views.
    expect(text.match(/BR-001/g)).toHaveLength(4);
  });

  it('the mock lines at 60 columns wrap under the status', async () => {
    const io = ttyIo({ columns: 60 });
    const output = await Output.create(io, { json: false, quiet: false, debug: false });
    const lines = new MockLines(output);
    lines.request({
      v: 1,
      interface: 'B',
      received_at: '2026-11-23T10:00:00.000Z',
      status: 401,
      verdict: 'rejected',
      event: 'conversation.message',
      event_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      lead_id: 'lead_7f3a',
      reason: 'invalid_signature',
      message: 'the signature does not match the body and timestamp with any given secret',
    } as Parameters<MockLines['request']>[0]);
    lines.flush();
    const shown = screenLines(io.out());
    expect(widestLine(io.out())).toBeLessThanOrEqual(60);
    expect(shown[0]).toMatch(/^10:00:00\.000 {2}\[401\] {2}rejected/);
    expect(shown.slice(1).every((line) => line.startsWith(' '.repeat(14)))).toBe(true);
    expect(shown.join(' ').replace(/\s+/g, ' ')).toContain('the signature does not match the body and timestamp with any given secret');
  });

  it('a send result at 40 columns, and the retry schedule at 60', async () => {
    const server = await startScriptedServer([{ status: 202, body: { ok: true, note: 'a rather long message from the receiver that a terminal would have to wrap' } }], { path: '/events' });
    try {
      const result = await runTty(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], { columns: 40, env: { CAI_SECRET: 'whsec_test' } });
      expect(result.code).toBe(0);
      expect(widestLine(result.stdout)).toBeLessThanOrEqual(40);
      expect(widestLine(result.stderr)).toBeLessThanOrEqual(40);
      expect(screenLines(result.stdout).join(' ').replace(/\s+/g, ' ')).toContain('a rather long message from the receiver that a terminal would have to wrap');
    } finally {
      await server.close();
    }
    const schedule = await runTty(['send-event', '--print-schedule'], { columns: 60 });
    expect(schedule.code).toBe(0);
    expect(widestLine(schedule.stdout)).toBeLessThanOrEqual(60);
  });

  it('validate and the errors on stderr at 40 columns', async () => {
    const file = join(dir, 'bad-event.json');
    writeFileSync(file, JSON.stringify({ event: 'job.closed', event_id: 'e1', outcome: 'maybe', attempts: 'three', occurred_at: 'yesterday' }));
    const result = await runTty(['validate', file], { columns: 40 });
    expect(result.code).toBe(1);
    expect(widestLine(result.stdout)).toBeLessThanOrEqual(40);
    const usage = await runTty(['conformance', 'run', '--interface', 'B'], { columns: 40 });
    expect(usage.code).toBe(2);
    expect(widestLine(usage.stderr)).toBeLessThanOrEqual(40);
    expect(screenLines(usage.stderr)).toEqual(['error: no receiver to check', 'hint: pass --target URL, or --mock to', '      run against the built-in reference', '      receiver']);
  });
});
