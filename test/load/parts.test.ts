/**
 * The parts of `cai load` that need no network: the histogram (against exact percentiles of the same values), the
 * arrival schedule (counts and times of steady phases and ramps), the readers of the flags' textual forms, the
 * thresholds (k6's grammar, the short forms, a verdict without evidence is ✗), and their translation into
 * Artillery's `ensure` conditions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ensureCondition, planArtillery } from '../../src/load/artillery.js';
import { createProcessor } from '../../src/load/artillery-processor.js';
import { Histogram } from '../../src/load/histogram.js';
import { LoadMetrics } from '../../src/load/metrics.js';
import { parseMix, parseRamp, parseRepeatShare, SyntaxProblem } from '../../src/load/scenario.js';
import { Schedule } from '../../src/load/schedule.js';
import { judgeThreshold, parseThreshold, sloThresholds } from '../../src/load/thresholds.js';
import { parseDurationMs } from '../../src/commands/common/options.js';

describe('the histogram', () => {
  it('gives every percentile within 1/128 of the exact one, never below it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50_000_000 }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 0, max: 100 }),
        (values, p) => {
          const histogram = new Histogram();
          for (const value of values) histogram.record(value);
          const sorted = [...values].sort((a, b) => a - b);
          const exact = sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] as number;
          const got = histogram.percentile(p) as number;
          expect(got).toBeGreaterThanOrEqual(exact);
          expect(got).toBeLessThanOrEqual(Math.max(exact + 1, exact * (1 + 1 / 128)));
          expect(histogram.min).toBe(sorted[0]);
          expect(histogram.max).toBe(sorted[sorted.length - 1]);
        },
      ),
    );
  });

  it('keeps the same memory for a million values as for one; the top percentile is the exact max', () => {
    const histogram = new Histogram();
    for (let index = 0; index < 1_000_000; index += 1) histogram.record((index % 5000) * 1000);
    histogram.record(2 ** 45);
    expect(histogram.total).toBe(1_000_001);
    expect(histogram.percentile(50)).toBeGreaterThanOrEqual(2_499_000);
    expect(histogram.percentile(50)).toBeLessThanOrEqual(2_499_000 * 1.01);
    expect(histogram.percentile(100)).toBe(2 ** 45);
    expect(new Histogram().percentile(99)).toBeUndefined();
  });
});

describe('the schedule', () => {
  it('holds rate × duration arrivals in a steady phase, due evenly from 0', () => {
    const schedule = new Schedule([{ fromPerSecond: 200, toPerSecond: 200, durationMs: 5000 }]);
    expect(schedule.total).toBe(1000);
    expect(schedule.dueAt(0)).toBe(0);
    expect(schedule.dueAt(1)).toBeCloseTo(5, 6);
    expect(schedule.dueAt(999)).toBeCloseTo(4995, 6);
    expect(schedule.dueBy(0)).toBe(1);
    expect(schedule.dueBy(4.99)).toBe(1);
    expect(schedule.dueBy(5)).toBe(2);
    expect(schedule.dueBy(10_000)).toBe(1000);
  });

  it('ramps linearly: 0..500/s over 30 s holds 7500 arrivals, then the steady phase follows', () => {
    const schedule = new Schedule([
      { fromPerSecond: 0, toPerSecond: 500, durationMs: 30_000 },
      { fromPerSecond: 500, toPerSecond: 500, durationMs: 10_000 },
    ]);
    expect(schedule.total).toBe(7500 + 5000);
    expect(schedule.expectedBy(15_000)).toBeCloseTo(1875, 6);
    for (const index of [1, 10, 100, 1000, 7499, 7500, 9000]) {
      const at = schedule.dueAt(index);
      expect(schedule.expectedBy(at)).toBeCloseTo(index, 5);
      expect(schedule.dueBy(at)).toBe(index + 1);
    }
    expect(schedule.phaseAt(29_999)).toBe(0);
    expect(schedule.phaseAt(30_000)).toBe(1);
  });
});

describe('the readers of the flags', () => {
  it('read ramps, mixes and shares, and say what they expected otherwise', () => {
    expect(parseRamp('0..500/s:30s', parseDurationMs)).toEqual({
      fromPerSecond: 0,
      toPerSecond: 500,
      durationMs: 30_000,
    });
    expect(parseRamp('60..600/m:1m', parseDurationMs)).toEqual({
      fromPerSecond: 1,
      toPerSecond: 10,
      durationMs: 60_000,
    });
    expect(parseMix('conversation.message=80,job.closed=20')).toEqual([
      { type: 'conversation.message', weight: 80 },
      { type: 'job.closed', weight: 20 },
    ]);
    expect(parseRepeatShare('10%')).toBe(0.1);
    expect(parseRepeatShare('0.25')).toBe(0.25);
    expect(() => parseRamp('0-500:30s', parseDurationMs)).toThrow(SyntaxProblem);
    expect(() => parseMix('conversation.mesage=80')).toThrow(/not an event type/);
    expect(() => parseMix('job.closed=0')).toThrow(/above 0/);
    expect(() => parseRepeatShare('95%')).toThrow(/at most 90%/);
  });
});

/** A finished run of 1000 requests: 990 × 202 and 10 × 503, latencies 1..1000 ms. */
function run(): LoadMetrics {
  const metrics = new LoadMetrics(5000);
  for (let index = 1; index <= 1000; index += 1) {
    metrics.recordSent(index, 0, false);
    metrics.recordAnswer(index <= 990 ? 202 : 503, index * 1000, index);
  }
  metrics.seconds = 5;
  return metrics;
}

describe('the thresholds', () => {
  it("read k6's form and the two short forms", () => {
    expect(parseThreshold('http_req_duration: p(99)<250')).toMatchObject({
      metric: 'http_req_duration',
      aggregation: { kind: 'p', percentile: 99 },
      operator: '<',
      value: 250,
    });
    expect(parseThreshold('http_req_duration{status:202}: max < 2s')).toMatchObject({
      filter: { kind: 'code', code: 202 },
      aggregation: { kind: 'max' },
      value: 2000,
    });
    expect(parseThreshold('rate(status=5xx) < 0.005')).toMatchObject({
      metric: 'status',
      filter: { kind: 'class', digit: 5 },
      aggregation: { kind: 'rate' },
      value: 0.005,
    });
    expect(parseThreshold('status=401 == 0')).toMatchObject({
      metric: 'status',
      filter: { kind: 'code', code: 401 },
      aggregation: { kind: 'count' },
      value: 0,
    });
    expect(parseThreshold('http_req_failed: rate<1%')).toMatchObject({ metric: 'http_req_failed', value: 0.01 });
    expect(parseThreshold('http_reqs: count === 1000')).toMatchObject({ operator: '==' });
  });

  it('refuse what k6 refuses, saying what would read', () => {
    expect(() => parseThreshold('http_req_duration < 250')).toThrow(/k6's form/);
    expect(() => parseThreshold('http_req_duration: rate<1')).toThrow(/is a trend: use avg, min, med, max or p\(N\)/);
    expect(() => parseThreshold('http_req_failed: p(99)<1')).toThrow(/is a rate: use rate/);
    expect(() => parseThreshold('http_req_duratoin: p(99)<1')).toThrow(/no metric "http_req_duratoin"/);
    expect(() => parseThreshold('http_req_duration: p(101)<1')).toThrow(/from 0 to 100/);
    expect(() => parseThreshold('rate(status=6xx) < 1')).toThrow(/expected a status/);
  });

  it('judge a run: values, ✓ and ✗', () => {
    const metrics = run();
    const judge = (text: string) => judgeThreshold(parseThreshold(text), metrics);
    expect(judge('http_req_duration: p(99)<1000')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^p\(99\)=99\d ms \(1000 samples\)$/),
    });
    expect(judge('http_req_duration: p(99)<900').ok).toBe(false);
    expect(judge('rate(status=5xx) < 0.005')).toMatchObject({
      ok: false,
      actual: 0.01,
      detail: 'rate=0.01 (10 of 1000)',
    });
    expect(judge('status=503 == 10').ok).toBe(true);
    expect(judge('http_reqs: rate >= 200').ok).toBe(true);
    expect(judge('http_req_duration{status:503}: min >= 991').ok).toBe(true);
    expect(judge('availability: rate >= 0.99').ok).toBe(true);
    expect(judge('http_req_failed: rate < 0.01').ok).toBe(false);
  });

  it('give ✗ with the reason when there is nothing to judge', () => {
    const metrics = run();
    expect(judgeThreshold(parseThreshold('repeats_unrecognised: count == 0'), metrics)).toMatchObject({
      ok: false,
      detail: 'no evidence: no repeat was sent',
      needs: 'repeats',
    });
    expect(judgeThreshold(parseThreshold('http_req_duration{status:429}: p(99) < 100'), metrics)).toMatchObject({
      ok: false,
      detail: 'no evidence: no answer with status 429',
    });
    expect(judgeThreshold(parseThreshold('status=401 == 0'), new LoadMetrics(1000))).toMatchObject({ ok: false });
  });

  it('--slo spec holds the §8 targets, scaled', () => {
    expect(sloThresholds({ interface: 'B', scale: 1, callbacks: false }).map((t) => t.expression)).toEqual([
      'availability: rate >= 0.995',
      'repeats_unrecognised: count == 0',
      'rejected: count == 0',
      'retry_after_missing: count == 0',
      'http_req_duration: max < 60000',
    ]);
    expect(
      sloThresholds({ interface: 'A', scale: 0.01, callbacks: true })
        .map((t) => t.expression)
        .slice(-2),
    ).toEqual(['callback_first_contact: max <= 3000', 'callbacks_missing: count == 0']);
  });
});

describe('the thresholds in Artillery', () => {
  it('become ensure conditions over its report and the processor counters, or say why not', () => {
    const condition = (text: string) => ensureCondition(parseThreshold(text));
    expect(condition('http_req_duration: p(99)<250')).toEqual({
      expression: 'http.response_time.p99 < 250',
      statuses: [],
    });
    expect(condition('http_req_duration: med <= 20')).toEqual({
      expression: 'http.response_time.median <= 20',
      statuses: [],
    });
    expect(condition('rate(status=5xx) < 0.005')).toEqual({
      expression: 'cai.status_5xx / http.requests < 0.005',
      statuses: [],
    });
    expect(condition('status=401 == 0')).toEqual({ expression: 'cai.status_401 == 0', statuses: [401] });
    expect(condition('rate(status=429) == 0')).toEqual({
      expression: 'cai.status_429 / http.requests == 0',
      statuses: [429],
    });
    expect(condition('repeats_unrecognised: count == 0')).toEqual({
      expression: 'cai.repeats_unrecognised == 0',
      statuses: [],
    });
    expect(condition('http_req_duration: p(99.9)<250')).toHaveProperty('why');
    expect(condition('dropped_iterations: count == 0')).toHaveProperty('why');
  });

  it('name no metric inside another: the ensure plugin replaces each report name found in an expression by its hash', () => {
    const plan = planArtillery({
      scenario: {
        interface: 'B',
        phases: [{ fromPerSecond: 5, toPerSecond: 5, durationMs: 1000 }],
        mix: [],
        repeatShare: 0.1,
      },
      target: 'http://127.0.0.1:1/events',
      identity: 'acme',
      secretEnv: 'CAI_SECRET',
      thresholds: ['status=401 == 0', 'status=429 == 0', 'rate(status=5xx) < 1'].map(parseThreshold),
      timeoutMs: 10_000,
      workers: 1,
      generator: 'cai test',
    });
    expect(plan.conditions).toEqual([
      'cai.status_401 == 0',
      'cai.status_429 == 0',
      'cai.status_5xx / http.requests < 1',
    ]);
    // The counters the processor emits, read by running its judging hook as Artillery would.
    const emitted = new Set<string>();
    const processor = createProcessor({
      interface: 'B',
      identityHeader: 'x-cai-provider',
      identity: 'acme',
      secretEnv: 'CAI_SECRET',
      repeatShare: 0,
      poolSize: 4,
      watchedStatuses: [401, 429],
    });
    processor.caiJudge(
      {},
      { statusCode: 202, body: '{"ok":true}' },
      {},
      { emit: (_event: string, name: string) => emitted.add(name) },
      () => {},
    );
    const names = [
      ...emitted,
      'cai.status_2xx',
      'cai.status_5xx',
      'cai.status_401',
      'cai.status_429',
      'http.requests',
      'http.responses',
      'http.request_rate',
      'http.codes.202',
      'http.response_time.p99',
      'http.response_time.p95',
    ];
    expect(emitted.size).toBeGreaterThan(10);
    for (const name of names)
      for (const other of names)
        if (name !== other) expect(other.includes(name), `${name} inside ${other}`).toBe(false);
  });
});
