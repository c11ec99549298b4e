/**
 * The faults of the reference receivers that only the generated checks catch (`--generate N`): no hand-written
 * check sends the shape they refuse. test/conformance/generate.test.ts runs each without generated documents (the
 * run passes) and with them (exactly these checks fail); the self-test's fault coverage counts them as covered.
 */
import type { InterfaceId } from '../../src/spec/constants.js';

export interface GeneratedFault {
  interface: InterfaceId;
  fault: string;
  /** Exactly the checks that fail with this fault and these documents. */
  fails: string[];
  /** The documents that show it (a seed whose first documents hold the shape, so the run is short). */
  count: number;
  seed: number;
  /** The field the smallest failing document keeps beside its required ones, and what its value shows. */
  field: string;
  shows: RegExp;
}

export const GENERATED_FAULTS: readonly GeneratedFault[] = [
  { interface: 'B', fault: 'date-time-whole-hour-offset', fails: ['B-GEN-001'], count: 40, seed: 1, field: 'occurred_at', shows: /[+-]\d\d:(?!00)\d\d$/ },
  { interface: 'A', fault: 'date-time-whole-hour-offset', fails: ['A-GEN-001'], count: 40, seed: 1, field: 'origin.captured_at', shows: /[+-]\d\d:(?!00)\d\d$/ },
  { interface: 'B', fault: 'date-time-fraction-max-6', fails: ['B-GEN-001'], count: 40, seed: 1, field: 'occurred_at', shows: /\.\d{7}[Z+-]/ },
  { interface: 'A', fault: 'date-time-fraction-max-6', fails: ['A-GEN-001'], count: 40, seed: 1, field: 'origin.captured_at', shows: /\.\d{7}[Z+-]/ },
];
