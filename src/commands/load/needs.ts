/**
 * What a metric of `cai load` needs of a run beyond its requests (MetricNeed, src/load/thresholds.ts), as the flags
 * that give it: in the usage error before a run, and beside a threshold judged without a value.
 */
import type { MetricNeed, ThresholdVerdict } from '../../load/thresholds.js';

/** `http_req_… needs …`, before the run. */
export const NEED_TEXT: Readonly<Record<MetricNeed, string>> = {
  repeats: 'needs repeats (pass --repeat, e.g. 5%)',
  callbacks: 'needs --callbacks (Interface A)',
};

const NEED_HINTS: Readonly<Record<MetricNeed, string>> = {
  repeats: 'pass --repeat, e.g. 5%',
  callbacks: 'pass --callbacks',
};

/** A threshold's detail, with the flag its metric needed when the run gave it no value. */
export function verdictDetail(verdict: Pick<ThresholdVerdict, 'detail' | 'needs'>): string {
  return verdict.needs ? `${verdict.detail} (${NEED_HINTS[verdict.needs]})` : verdict.detail;
}

/** ✓ passed, ✗ failed, – not judged (a run too short for its evidence: it fails nothing). */
export function verdictMark(verdict: Pick<ThresholdVerdict, 'ok' | 'notJudged'>): '✓' | '✗' | '–' {
  return verdict.ok ? '✓' : verdict.notJudged ? '–' : '✗';
}

/** `2 passed, 1 failed, 1 not judged`, the last only when there is one. */
export function verdictCounts(verdicts: readonly Pick<ThresholdVerdict, 'ok' | 'notJudged'>[]): string {
  const count = (mark: string) => verdicts.filter((verdict) => verdictMark(verdict) === mark).length;
  return `${count('✓')} passed, ${count('✗')} failed${count('–') > 0 ? `, ${count('–')} not judged` : ''}`;
}
