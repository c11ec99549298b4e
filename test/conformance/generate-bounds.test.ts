/**
 * The bounds of a run of generated documents (GENERATE_CAPS, src/bounds.ts), made small here: a run whose time
 * bound is spent before the first document sends nothing and judges nothing (never a pass); shrinking stopped at its
 * request bound reports the smallest document found so far, and says a smaller one may fail too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

const caps = vi.hoisted(() => ({}) as Record<string, number>);
vi.mock('../../src/bounds.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/bounds.js')>();
  const GENERATE_CAPS = new Proxy(original.GENERATE_CAPS, { get: (target, key: string) => caps[key] ?? target[key as keyof typeof target] });
  return { ...original, GENERATE_CAPS };
});

const { runConformance } = await import('../../src/conformance/run-receiver.js');

const dir = mkdtempSync(join(tmpdir(), 'cai-generate-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const key of Object.keys(caps)) delete caps[key];
});

const run = (reproDir: string) =>
  runConformance({ interface: 'B', mock: true, faults: ['date-time-whole-hour-offset'], selection: { only: ['generate'], skip: [], include: [] }, generate: { count: 40, seed: 1 }, reproDir: join(dir, reproDir) });

describe('the bounds of generated documents', () => {
  it('a time bound spent before the first document: nothing sent, every generated check not judged', async () => {
    caps.timeLimitMs = 0;
    const report = await run('time');
    expect(report.checks.map((check) => [check.id, check.verdict, check.actual])).toEqual(
      ['B-GEN-001', 'B-GEN-002', 'B-GEN-003', 'B-GEN-004'].map((id) => [id, 'not-judged', 'the time bound stopped the run first']),
    );
  });

  it('shrinking stopped at its request bound reports the smallest found so far', async () => {
    caps.shrinkRequests = 3;
    const report = await run('shrink');
    const result = report.checks.find((check) => check.id === 'B-GEN-001');
    expect(result?.verdict).toBe('failed');
    expect(result?.notes[0]).toMatch(/^the first to fail was valid document #\d+ of 40; shrunk in [0-2] step\(s\), stopped at the shrinking bound \(docs\/limits\.md\): a smaller one may fail too$/);
    // What was found is still confirmed and shown.
    expect(result?.notes).toContain('sent once more with a fresh event_id, it failed again');
  });
});
