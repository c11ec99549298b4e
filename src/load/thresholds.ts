/**
 * Thresholds in k6's syntax (`<metric>[{tag:value}]: <aggregation> <operator> <value>`), over the metrics of a
 * load run, plus two short forms the spec's targets read best in: `rate(status=5xx) < 0.005` (a share of the
 * requests) and `status=401 == 0` (a count). Each is judged once, at the end, to ✓ or ✗; one that has nothing to
 * judge (no answer at all, no repeat sent, no callback awaited) is ✗ with the reason, never a silent ✓.
 */
import { FIRST_CONTACT_TARGET_SECONDS, MESSAGE_DELIVERY_TARGET_SECONDS } from '../spec/constants.js';
import type { Histogram } from './histogram.js';
import type { LoadMetrics } from './metrics.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { formatDuration } from '../duration.js';
import {
  METRICS,
  parseThreshold,
  statusFilterText,
  type Aggregation,
  type MetricDefinition,
  type Operator,
  type StatusFilter,
  type Threshold,
} from './threshold-syntax.js';

export { parseThreshold, type Threshold } from './threshold-syntax.js';

// ----------------------------------------------------------------------------------------------- presets (§8)

export interface SloOptions {
  interface: 'A' | 'B';
  /** Multiplies the spec's time targets (tests run them scaled down). */
  scale: number;
  callbacks: boolean;
}

/**
 * `--slo spec`: the service levels §8 states, as thresholds. Endpoint availability 99.5 %; no lost event (every
 * repeat of an accepted document is recognised, §6.1); no 4xx for a valid document (429 aside: it is the request
 * cap, §7) and a Retry-After with every 429 (§7); an answer within the 60 s of message delivery (Interface B);
 * with --callbacks, first contact within 5 minutes of the job (Interface A). The time targets are multiplied by
 * `scale`.
 */
export function sloThresholds(options: SloOptions): Threshold[] {
  const preset: [string, string][] = [
    ['availability: rate >= 0.995', 'endpoint availability 99.5 % (§8): answered, and not with a 5xx'],
    [
      'repeats_unrecognised: count == 0',
      'no lost event: every repeat of an accepted document is recognised (§6.1, §2.13)',
    ],
    ['rejected: count == 0', 'no 4xx for a valid document, 429 aside (§7)'],
    ['retry_after_missing: count == 0', 'every 429 carries Retry-After (§7)'],
  ];
  const spec = interfaceSpec(options.interface);
  // §8's message delivery target is the events' (Interface B); the first-contact target, a job's first callback (A).
  if (spec.document === 'event') {
    preset.push([
      `http_req_duration: max < ${round(MESSAGE_DELIVERY_TARGET_SECONDS * 1000 * options.scale)}`,
      `every event answered within the ${describeTarget(MESSAGE_DELIVERY_TARGET_SECONDS, options.scale)} of message delivery (§8)`,
    ]);
  }
  if (spec.receiver === 'provider' && options.callbacks) {
    const target = describeTarget(FIRST_CONTACT_TARGET_SECONDS, options.scale);
    preset.push([
      `callback_first_contact: max <= ${round(FIRST_CONTACT_TARGET_SECONDS * 1000 * options.scale)}`,
      `first contact within ${target} of the job (§8)`,
    ]);
    preset.push(['callbacks_missing: count == 0', `every job contacted within ${target} (§8)`]);
  }
  return preset.map(([expression, description]) => ({ ...parseThreshold(expression), description }));
}

const round = (ms: number) => Math.max(1, Math.round(ms));

function describeTarget(seconds: number, scale: number): string {
  const scaled = seconds * scale;
  const text = scaled >= 60 && scaled % 60 === 0 ? `${scaled / 60} min` : `${Math.round(scaled * 1000) / 1000} s`;
  return scale === 1 ? text : `${text} (${seconds} s × ${scale})`;
}

// ----------------------------------------------------------------------------------------------- judging

export interface ThresholdVerdict {
  expression: string;
  ok: boolean;
  /** The value judged (undefined when there was nothing to judge). */
  actual?: number;
  /** `p(99)=3.2 ms`, `rate=0.012 (12 of 1000)`, or why there is no value. */
  detail: string;
  description?: string;
  /** No value because the run lacked what the metric reads: repeats sent, or jobs whose callbacks were awaited. */
  needs?: MetricNeed;
  /** No value, through no fault of the target (a run too short for a repeat): neither passed nor failing the run. */
  notJudged?: true;
}

/** What a metric needs of a run beyond its requests: repeats (a share of them), or the callbacks of Interface A. */
export type MetricNeed = 'repeats' | 'callbacks';

export function judgeThreshold(threshold: Threshold, run: LoadMetrics): ThresholdVerdict {
  const measured = measure(threshold, run);
  const base = {
    expression: threshold.expression,
    ...(threshold.description ? { description: threshold.description } : {}),
  };
  if ('missing' in measured)
    return {
      ...base,
      ok: false,
      detail: `${measured.notJudged ? 'not judged' : 'no evidence'}: ${measured.missing}`,
      ...(measured.needs ? { needs: measured.needs } : {}),
      ...(measured.notJudged ? { notJudged: true } : {}),
    };
  return {
    ...base,
    ok: COMPARE[threshold.operator](measured.value, threshold.value),
    actual: measured.value,
    detail: measured.detail,
  };
}

type Measured = { value: number; detail: string } | { missing: string; needs?: MetricNeed; notJudged?: true };

function measure(threshold: Threshold, run: LoadMetrics): Measured {
  const { aggregation } = threshold;
  const noAnswers = 'no request ended, so there is nothing to judge';
  switch (threshold.metric) {
    case 'status': {
      const filter = threshold.filter as StatusFilter;
      const count = run.countStatus(filter);
      if (run.completed === 0) return { missing: noAnswers };
      if (aggregation.kind === 'count')
        return { value: count, detail: `count=${count} (status ${statusFilterText(filter)}, of ${run.completed})` };
      return share(count, run.completed);
    }
    case 'http_reqs': {
      const count = threshold.filter ? run.countStatus(threshold.filter) : run.sent;
      if (aggregation.kind === 'count') return { value: count, detail: `count=${count}` };
      if (run.seconds <= 0) return { missing: 'the run lasted no time' };
      const rate = count / run.seconds;
      return { value: rate, detail: `rate=${fixed(rate, 1)}/s` };
    }
    case 'http_req_failed': {
      if (run.completed === 0) return { missing: noAnswers };
      return share(run.completed - run.countStatus({ kind: 'class', digit: 2 }), run.completed);
    }
    case 'availability': {
      if (run.completed === 0) return { missing: noAnswers };
      return share(
        run.completed - run.countStatus({ kind: 'class', digit: 5 }) - run.countStatus({ kind: 'error' }),
        run.completed,
      );
    }
    case 'http_req_duration':
      return trend(
        run.latency(threshold.filter),
        aggregation,
        threshold.filter ? `no answer with status ${statusFilterText(threshold.filter)}` : 'no answer arrived',
      );
    case 'dropped_iterations':
      return counter(run.dropped, aggregation, run);
    case 'repeats_unrecognised':
    case 'duplicates_confirmed':
      if (run.repeatsJudged === 0) return noRepeatJudged(run);
      return counter(run.counters[threshold.metric], aggregation, run);
    case 'callback_first_contact':
    case 'callbacks_missing':
      if (!run.callbacks || run.callbacks.tracked === 0)
        return { missing: 'no job awaited a callback', needs: 'callbacks' };
      return threshold.metric === 'callbacks_missing'
        ? counter(run.callbacks.missing, aggregation, run)
        : trend(run.callbacks.firstContact, aggregation, 'no job was contacted');
    default:
      if (run.completed === 0) return { missing: noAnswers };
      return counter(run.counters[threshold.metric], aggregation, run);
  }
}

/** Why no repeat was judged: none asked for, none accepted, nothing accepted to repeat, or a run too short for one. */
function noRepeatJudged(run: LoadMetrics): Measured {
  if (run.counters.repeats > 0) return { missing: 'no repeat was accepted, so none could be recognised' };
  if (run.repeatShare === 0) return { missing: 'no repeat was sent', needs: 'repeats' };
  if (run.acceptedNew === 0) return { missing: 'no document was accepted, so none could be repeated' };
  // A repeat is due from the second request on (src/load/repeats.ts): every answer accepting one came after the last.
  return {
    missing: `the run was too short for a repeat: no request went out after the first document was accepted (${run.sent} sent)`,
    notJudged: true,
  };
}

function share(count: number, of: number): Measured {
  const value = count / of;
  return { value, detail: `rate=${fixed(value, 4)} (${count} of ${of})` };
}

function counter(count: number, aggregation: Aggregation, run: LoadMetrics): Measured {
  if (aggregation.kind === 'count') return { value: count, detail: `count=${count}` };
  if (run.seconds <= 0) return { missing: 'the run lasted no time' };
  return { value: count / run.seconds, detail: `rate=${fixed(count / run.seconds, 2)}/s` };
}

function trend(histogram: Histogram, aggregation: Aggregation, missing: string): Measured {
  if (histogram.total === 0) return { missing };
  const p = aggregation.kind === 'p' ? aggregation.percentile : undefined;
  const read = p === undefined ? TREND_READS[aggregation.kind] : (h: Histogram) => h.percentile(p);
  if (read === undefined) return { missing: 'not a trend aggregation' };
  const value = (read(histogram) as number) / 1000;
  const label = p === undefined ? aggregation.kind : `p(${p})`;
  return { value, detail: `${label}=${formatDuration(value)} (${histogram.total} samples)` };
}

/** A trend's aggregations other than p(N), read from its histogram of µs. */
const TREND_READS: Partial<Record<Aggregation['kind'], (histogram: Histogram) => number | undefined>> = {
  avg: (histogram) => histogram.mean(),
  min: (histogram) => histogram.min,
  max: (histogram) => histogram.max,
  med: (histogram) => histogram.percentile(50),
};

function fixed(value: number, digits: number): string {
  return String(Number(value.toFixed(digits)));
}

const COMPARE: Record<Operator, (actual: number, expected: number) => boolean> = {
  '<': (actual, expected) => actual < expected,
  '<=': (actual, expected) => actual <= expected,
  '>': (actual, expected) => actual > expected,
  '>=': (actual, expected) => actual >= expected,
  '==': (actual, expected) => actual === expected,
  '!=': (actual, expected) => actual !== expected,
};

/** A threshold on a metric the run does not produce (callbacks, without them): what it needs, said before the run. */
export function unmetNeed(threshold: Threshold, run: { callbacks: boolean }): MetricNeed | undefined {
  if (threshold.metric === 'status') return undefined;
  const definition: MetricDefinition = METRICS[threshold.metric];
  if (definition.needs === 'callbacks' && !run.callbacks) return 'callbacks';
  return undefined;
}
