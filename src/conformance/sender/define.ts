/**
 * How a sender check is defined: its catalogue row (as for the receiver checks, with `role: 'sender'`), the
 * scenarios whose attempts it judges, and a pure judgement of the evidence. Nothing is sent: the sender under
 * test did the sending; the check only reads what arrived.
 */
import type { CheckMeta } from '../types.js';
import type { Attempt, SenderEvidence } from './evidence.js';
import type { ScenarioId } from './scenarios.js';

/** What a sender check returns: as a receiver check's outcome, with attempts as its evidence. */
export interface SenderOutcome {
  verdict: 'passed' | 'failed' | 'skipped';
  expected: string;
  actual: string;
  /** The attempts that show the failure (saved with the report's reproductions). */
  evidence?: Attempt[];
  notes?: string[];
}

export interface SenderCheckDefinition extends CheckMeta {
  role: 'sender';
  scenarios: readonly ScenarioId[];
  judge(evidence: SenderEvidence): SenderOutcome;
}

export type SenderCheckSpec = Omit<CheckMeta, 'role' | 'scenarios' | 'optional' | 'exclusive' | 'needs'> & {
  scenarios: readonly ScenarioId[];
  judge(evidence: SenderEvidence): SenderOutcome;
};

export function defineSenderCheck(spec: SenderCheckSpec): SenderCheckDefinition {
  return { ...spec, role: 'sender' };
}

export function passed(expected: string, actual: string, notes?: string[]): SenderOutcome {
  return { verdict: 'passed', expected, actual, ...(notes?.length ? { notes } : {}) };
}

export function failed(expected: string, actual: string, evidence?: Attempt[], notes?: string[]): SenderOutcome {
  return { verdict: 'failed', expected, actual, ...(evidence?.length ? { evidence } : {}), ...(notes?.length ? { notes } : {}) };
}

export function skipped(reason: string): SenderOutcome {
  return { verdict: 'skipped', expected: '-', actual: reason };
}
