/**
 * The syntax of a threshold (k6's `<metric>[{tag:value}]: <aggregation> <operator> <value>`, and the two short forms
 * `rate(status=5xx) < 0.005` and `status=401 == 0`), and the metrics it may name: what `--threshold` reads, light
 * enough to load with the flags. Judging a threshold is ./thresholds.ts.
 */
import { LOAD_BOUNDS } from './bounds.js';
import { SyntaxProblem } from './scenario.js';
import { didYouMean } from '../suggest.js';

export type MetricKind = 'counter' | 'rate' | 'trend';

export interface MetricDefinition {
  kind: MetricKind;
  /** What the metric measures, for the docs and the usage errors. */
  description: string;
  /** A `{status:…}` filter applies. */
  byStatus?: boolean;
  /** What the run must do for the metric to have values. */
  needs?: 'callbacks';
}

/** The metrics a threshold may name: k6's where k6 has one, cai's own for what the spec asks (§6.1, §7, §8). */
export const METRICS = {
  http_reqs: {
    kind: 'counter',
    byStatus: true,
    description: 'requests sent (count), or a second (rate), as k6 counts them',
  },
  http_req_duration: {
    kind: 'trend',
    byStatus: true,
    description: 'time from sending a request to the end of its answer, in ms',
  },
  http_req_failed: {
    kind: 'rate',
    description: 'share of the requests without a 2xx answer (a failed connection or a time-out included)',
  },
  dropped_iterations: {
    kind: 'counter',
    description: 'arrivals not sent because every connection was busy (the in-flight cap): the schedule held',
  },
  availability: { kind: 'rate', description: 'share of the requests answered with anything but a 5xx (§8: 99.5 %)' },
  rejected: { kind: 'counter', description: 'answers 4xx other than 429 (§7: do not retry)' },
  retry_after_missing: { kind: 'counter', description: 'answers 429 without a valid Retry-After (§7)' },
  repeats: {
    kind: 'counter',
    description: 'requests that repeat an earlier, accepted document (a share of the requests)',
  },
  duplicates_confirmed: {
    kind: 'counter',
    description: 'repeats answered as duplicates (§2.13; on Interface A, the same provider_job_id, §2.2)',
  },
  repeats_unrecognised: {
    kind: 'counter',
    description: 'repeats accepted as new documents: the receiver did not recognise them (§6.1)',
  },
  callback_first_contact: {
    kind: 'trend',
    needs: 'callbacks',
    description: 'time from a job’s acceptance to its first callback, in ms (§8 first contact)',
  },
  callbacks_missing: {
    kind: 'counter',
    needs: 'callbacks',
    description: 'jobs with no callback within the first-contact target (§8)',
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

/** `202`, `5xx`, or `error` (no answer: a failed connection or a time-out). */
export type StatusFilter = { kind: 'code'; code: number } | { kind: 'class'; digit: number } | { kind: 'error' };

export type Aggregation =
  | { kind: 'count' | 'rate' | 'avg' | 'min' | 'max' | 'med' }
  | { kind: 'p'; percentile: number };

export type Operator = '<' | '<=' | '>' | '>=' | '==' | '!=';

export interface Threshold {
  /** As given (trimmed); the ✓/✗ line shows it. */
  expression: string;
  /** The short form `rate(status=…)` / `status=…` reads as the metric `status`: a share or a count of requests. */
  metric: MetricName | 'status';
  filter?: StatusFilter;
  aggregation: Aggregation;
  operator: Operator;
  /** In the metric's unit (ms for trends, 0–1 for shares). */
  value: number;
  /** For the presets: what it stands for, with the spec section. */
  description?: string;
}

const OPERATOR = String.raw`(<=|>=|===|==|!=|<|>)`;
const NUMBER = String.raw`(-?[0-9]+(?:\.[0-9]+)?)`;
const AGGREGATION = String.raw`(count|rate|avg|min|max|med|p\(\s*[0-9]+(?:\.[0-9]+)?\s*\))`;
const LONG_FORM = new RegExp(
  String.raw`^([a-z_]+)\s*(?:\{([^}]*)\})?\s*:\s*${AGGREGATION}\s*${OPERATOR}\s*${NUMBER}\s*(ms|s|%)?$`,
);
const FUNCTION_FORM = new RegExp(
  String.raw`^(count|rate)\(\s*status\s*[=:]\s*([^)\s]+)\s*\)\s*${OPERATOR}\s*${NUMBER}\s*(%)?$`,
);
const STATUS_FORM = new RegExp(String.raw`^status\s*[=:]\s*(\S+?)\s*${OPERATOR}\s*${NUMBER}$`);

/** Reads one threshold; a SyntaxProblem says what is wrong and what would read. */
export function parseThreshold(text: string): Threshold {
  const expression = text.trim();
  if (expression.length > LOAD_BOUNDS.maxThresholdCharacters)
    throw new SyntaxProblem(`a threshold is at most ${LOAD_BOUNDS.maxThresholdCharacters} characters.`);
  const short = FUNCTION_FORM.exec(expression);
  if (short) {
    const [, aggregation, status = '', operator = '', value, percent] = short;
    if (percent && aggregation === 'count')
      throw new SyntaxProblem('a count takes no %: write count(status=…) == 0, or rate(status=…) < 0.5%.');
    const kind = aggregation as 'count' | 'rate';
    return statusThreshold(expression, status, kind, operator, Number(value) / (percent ? 100 : 1));
  }
  const bare = STATUS_FORM.exec(expression);
  if (bare) return statusThreshold(expression, bare[1] ?? '', 'count', bare[2] ?? '', Number(bare[3]));
  const long = LONG_FORM.exec(expression);
  if (!long) {
    throw new SyntaxProblem(
      "expected k6's form 'metric: aggregation operator value' (e.g. 'http_req_duration: p(99)<250'), or 'rate(status=5xx) < 0.005', or 'status=401 == 0'.",
    );
  }
  const [, name = '', tags, aggregationText = '', operator = '', valueText, unit] = long;
  if (!(name in METRICS))
    throw new SyntaxProblem(
      `no metric "${name}"${didYouMean(name, Object.keys(METRICS))}; the metrics: ${Object.keys(METRICS).join(', ')}.`,
    );
  const metric = name as MetricName;
  const definition: MetricDefinition = METRICS[metric];
  const aggregation = parseAggregation(aggregationText);
  checkAggregation(metric, definition.kind, aggregation);
  const filter = tags === undefined ? undefined : parseTags(metric, definition, tags);
  let value = Number(valueText);
  if (unit === 'ms' || unit === 's') {
    if (definition.kind !== 'trend')
      throw new SyntaxProblem(`${metric} is not a time: give its value without ${unit}.`);
    if (unit === 's') value *= 1000;
  }
  if (unit === '%') {
    if (aggregation.kind !== 'rate' || definition.kind !== 'rate')
      throw new SyntaxProblem(`% applies to a share (a rate metric such as http_req_failed), not to ${metric}.`);
    value /= 100;
  }
  return { expression, metric, ...(filter ? { filter } : {}), aggregation, operator: normalOperator(operator), value };
}

/** A short form's threshold: the metric `status`, a count or a share of the requests with that status. */
function statusThreshold(text: string, status: string, kind: 'count' | 'rate', op: string, value: number): Threshold {
  const filter = parseStatusFilter(status);
  return { expression: text, metric: 'status', filter, aggregation: { kind }, operator: normalOperator(op), value };
}

function parseAggregation(text: string): Aggregation {
  const percentile = /^p\(\s*([0-9]+(?:\.[0-9]+)?)\s*\)$/.exec(text);
  if (percentile) {
    const value = Number(percentile[1]);
    if (value > 100) throw new SyntaxProblem(`p(${percentile[1]}): a percentile is from 0 to 100.`);
    return { kind: 'p', percentile: value };
  }
  return { kind: text as 'count' | 'rate' | 'avg' | 'min' | 'max' | 'med' };
}

/** k6's aggregations by metric type: counter count and rate, rate rate, trend avg, min, med, max and p(N). */
function checkAggregation(metric: string, kind: MetricKind, aggregation: Aggregation): void {
  const allowed =
    kind === 'counter' ? ['count', 'rate'] : kind === 'rate' ? ['rate'] : ['avg', 'min', 'med', 'max', 'p'];
  if (allowed.includes(aggregation.kind)) return;
  const names = kind === 'counter' ? 'count or rate' : kind === 'rate' ? 'rate' : 'avg, min, med, max or p(N)';
  throw new SyntaxProblem(`${metric} is a ${kind}: use ${names}.`);
}

function parseTags(metric: string, definition: MetricDefinition, tags: string): StatusFilter {
  const match = /^\s*status\s*[:=]\s*([^,\s]+)\s*$/.exec(tags);
  if (!definition.byStatus || !match)
    throw new SyntaxProblem(
      `${metric} takes no {${tags.trim()}}; {status:202} or {status:5xx} filter http_reqs and http_req_duration.`,
    );
  return parseStatusFilter(match[1] as string);
}

function parseStatusFilter(text: string): StatusFilter {
  const value = text.trim().toLowerCase();
  if (/^[1-5][0-9][0-9]$/.test(value)) return { kind: 'code', code: Number(value) };
  if (/^[1-5]xx$/.test(value)) return { kind: 'class', digit: Number(value[0]) };
  if (value === 'error') return { kind: 'error' };
  throw new SyntaxProblem(`status ${text}: expected a status such as 401, a class such as 5xx, or error (no answer).`);
}

function normalOperator(text: string): Operator {
  return text === '===' ? '==' : (text as Operator);
}

export function statusFilterText(filter: StatusFilter): string {
  return filter.kind === 'code' ? String(filter.code) : filter.kind === 'class' ? `${filter.digit}xx` : 'error';
}

/** Whether an answer's status (undefined: no answer) is one the filter names. */
export function statusMatches(filter: StatusFilter, status: number | undefined): boolean {
  if (filter.kind === 'error') return status === undefined;
  if (status === undefined) return false;
  return filter.kind === 'code' ? status === filter.code : Math.floor(status / 100) === filter.digit;
}
