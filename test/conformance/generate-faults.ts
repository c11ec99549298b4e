/**
 * The faults of the reference receivers that generated documents were first to catch by drawing the shape they
 * refuse (the stateful phase, `fails`, draws it now); the probes derived from the §2.1 formats send it too
 * (`plainFails`). The self-test's fault coverage counts them as covered.
 */
import type { InterfaceId } from '../../src/spec/constants.js';

export interface GeneratedFault {
  interface: InterfaceId;
  fault: string;
  /** Exactly the checks that fail with this fault and these documents. */
  fails: string[];
  /** Exactly the checks that fail in a run without generated documents (the derived format probes). */
  plainFails: string[];
  /** The documents that show it (a seed whose first documents hold the shape, so the run is short). */
  count: number;
  seed: number;
  /** The field the smallest failing document keeps beside its required ones, and what its value shows. */
  field: string;
  shows: RegExp;
}

export const GENERATED_FAULTS: readonly GeneratedFault[] = [
  {
    interface: 'B',
    fault: 'date-time-whole-hour-offset',
    fails: ['B-STATE-001'],
    plainFails: ['B-FORMAT-003'],
    count: 40,
    seed: 1,
    field: 'occurred_at',
    shows: /[+-]\d\d:(?!00)\d\d$/,
  },
  {
    interface: 'A',
    fault: 'date-time-whole-hour-offset',
    fails: ['A-STATE-001'],
    plainFails: ['A-FORMAT-003'],
    count: 40,
    seed: 1,
    field: 'origin.captured_at',
    shows: /[+-]\d\d:(?!00)\d\d$/,
  },
  {
    interface: 'B',
    fault: 'date-time-fraction-max-6',
    fails: ['B-STATE-001'],
    plainFails: ['B-FORMAT-001'],
    count: 40,
    seed: 1,
    field: 'occurred_at',
    shows: /\.\d{7}[Z+-]/,
  },
  {
    interface: 'A',
    fault: 'date-time-fraction-max-6',
    fails: ['A-STATE-001'],
    plainFails: ['A-FORMAT-001'],
    count: 40,
    seed: 1,
    field: 'origin.captured_at',
    shows: /\.\d{7}[Z+-]/,
  },
];
