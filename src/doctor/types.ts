import type { InterfaceId } from '../spec/constants.js';

/** A check's result: `fail` makes `cai doctor` exit 1; `warn` is shown but does not. */
export type Verdict = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable id: `config`, `secrets`, `url`, `dns`, `tcp`, `tls`, `tls-legacy`, `certificate`, `clock`. */
  id: string;
  verdict: Verdict;
  message: string;
  /** The next step, for anything but a pass. */
  hint?: string;
  /** The URL the check ran against (network checks only). */
  target?: string;
  interface?: InterfaceId;
  details?: Record<string, unknown>;
}

export interface DoctorTarget {
  url: string;
  interface?: InterfaceId;
}
