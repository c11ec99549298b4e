/**
 * The thresholds of `cai load` as conditions of Artillery's `ensure` plugin (`config.ensure.conditions`: filtrex
 * expressions over the report's counters and summaries; a strict one that fails makes `artillery run` exit 1), or
 * why one cannot be.
 */
import type { Threshold } from './thresholds.js';

/** Artillery's summaries of http.response_time (p999 is left out: the plugin's name matching would take p99 in it). */
const SUMMARY = { avg: 'mean', min: 'min', max: 'max', med: 'median' } as const;
const PERCENTILES = new Set([50, 75, 90, 95, 99]);

export type Translation = { expression: string; statuses: number[] } | { why: string };

/**
 * One threshold as an `ensure` condition over the report Artillery builds: its own counters (`http.requests`),
 * summaries (`http.response_time.p99`) and rates (`http.request_rate`), and the processor's `cai.*` counters. The
 * requests without an answer are `http.requests` less `cai.responses`.
 */
export function ensureCondition(threshold: Threshold): Translation {
  // filtrex writes the six operators as cai does.
  const { aggregation, operator, value } = threshold;
  const compared = (name: string, statuses: number[] = []): Translation => ({
    expression: `${name} ${operator} ${value}`,
    statuses,
  });
  const counted = (name: string, statuses: number[] = []) =>
    compared(aggregation.kind === 'count' ? name : `${name} / http.requests`, statuses);
  switch (threshold.metric) {
    case 'status': {
      const filter = threshold.filter;
      if (filter === undefined) return { why: 'no status' };
      if (filter.kind === 'error') return counted('(http.requests - cai.responses)');
      if (filter.kind === 'class')
        return filter.digit >= 2 && filter.digit <= 5
          ? counted(`cai.status_${filter.digit}xx`)
          : { why: `Artillery's processor counts the classes 2xx to 5xx, not ${filter.digit}xx` };
      return counted(`cai.status_${filter.code}`, [filter.code]);
    }
    case 'http_req_duration': {
      if (threshold.filter) return { why: 'Artillery keeps one response-time summary, not one per status' };
      const name =
        aggregation.kind === 'p'
          ? PERCENTILES.has(aggregation.percentile)
            ? `p${aggregation.percentile}`
            : undefined
          : SUMMARY[aggregation.kind as keyof typeof SUMMARY];
      if (name === undefined)
        return {
          why: `Artillery summarises p50, p75, p90, p95 and p99 (and p999), not p(${aggregation.kind === 'p' ? aggregation.percentile : aggregation.kind})`,
        };
      return compared(`http.response_time.${name}`);
    }
    case 'http_reqs':
      if (threshold.filter) {
        if (aggregation.kind !== 'count' || threshold.filter.kind !== 'code')
          return { why: 'a per-status rate a second has no counterpart in Artillery' };
        return compared(`cai.status_${threshold.filter.code}`, [threshold.filter.code]);
      }
      return compared(aggregation.kind === 'count' ? 'http.requests' : 'http.request_rate');
    case 'http_req_failed':
      return compared('(http.requests - cai.status_2xx) / http.requests');
    case 'availability':
      return compared('cai.answered_not_5xx / http.requests');
    case 'dropped_iterations':
      return { why: 'Artillery starts every arrival (it has no in-flight cap), so none is dropped' };
    case 'callback_first_contact':
    case 'callbacks_missing':
      return { why: 'Artillery has no listener: only cai load itself times the callbacks' };
    default: {
      if (aggregation.kind !== 'count')
        return { why: `${threshold.metric} as a rate a second has no counterpart in Artillery` };
      return compared(threshold.metric === 'repeats' ? 'cai.repeats_sent' : `cai.${threshold.metric}`);
    }
  }
}
