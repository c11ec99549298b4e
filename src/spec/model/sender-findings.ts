/**
 * What the sender model's judges (./sender.ts, ./sender-timing.ts) return, and the words they use: a finding (a
 * term kept, broken or undecided at one attempt), the context a delivery is judged in, the clauses and levels each
 * term rests on by interface, and the descriptions of answers and documents their messages give.
 */
import type { InterfaceId } from '../constants.js';
import { isObject, sameJson } from '../json.js';
import type { AttemptTermId } from './sender-attempts.js';
import type { Answer, SeenAttempt } from './sender-deliveries.js';
import type { SenderRelationId } from './sender-relations.js';

export type DeliveryTermId =
  | 'stops'
  | 'one-at-a-time'
  | 'retried'
  | 'growth'
  | 'retry-after'
  | 'same-id'
  | 'same-document'
  | 'same-bytes'
  | 'fresh';
export type IdentityTermId = 'one-document-per-id' | 'one-id-per-document';

export interface Finding<A extends SeenAttempt = SeenAttempt> {
  term: DeliveryTermId | IdentityTermId | AttemptTermId;
  relation: SenderRelationId;
  level: 'must' | 'should';
  clauses: readonly string[];
  verdict: 'kept' | 'broken' | 'undecided';
  /** The attempt whose answer the finding is about (`retried`, `stops`, …) or that bore on it (a retry, a pair). */
  attempt: A;
  /** In words, for a breach or an undecided one: `retried 1.20 s after a 429 with Retry-After: 2`. */
  actual?: string;
  /** The attempts that show it. */
  shown: readonly A[];
  /** `retried`: answers of the same class in a row, up to and including this one (five 503s: 5 at the last). */
  inARow?: number;
}

export interface DeliveryContext {
  interface: InterfaceId;
  /** How long cai listened for each retry, from the delivery's first attempt (the run's wait for a sender or a callback). */
  waitMs: number;
  /** The stage ran to its end: what did not come is judged. */
  complete: boolean;
  /** When cai stopped listening to the stage. */
  endedMono: number;
  /** How far the sender's first attempts arrived past the second their timestamps name, at most (signingLagOf). */
  signingLagMs?: number;
  /** The sender runs in cai's own process (the built-in reference provider's callbacks): its timers share cai's loop. */
  senderInProcess?: boolean;
}

/** `850 ms`, `1.25 s`. */
export function ms(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** `202`, `204 (no body)`, `202 {"ok":true,"duplicate":true}`, `429 (Retry-After: 2)`, `a cut connection`. */
export function describeAnswerGiven(answer: Answer, unheard = false): string {
  if (unheard) return 'no answer (the sender closed the connection first)';
  switch (answer.kind) {
    case 'accepted':
      return answer.status === 204
        ? '204 (no body)'
        : answer.empty
          ? `${answer.status} (no body)`
          : String(answer.status);
    case 'duplicate':
      return '202 {"ok":true,"duplicate":true}';
    case 'error':
      return answer.status === 429 && answer.retryAfter
        ? `429 (Retry-After ${answer.retryAfter.form === 'seconds' ? `${answer.retryAfter.seconds}` : 'as an HTTP-date'})`
        : String(answer.status);
    case 'reset':
      return 'a cut connection';
  }
}

/** The top-level fields in which two documents differ, for a message: `text, occurred_at`. */
export function differingFields(a: unknown, b: unknown): string {
  if (!isObject(a) || !isObject(b)) return 'the whole body';
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !sameJson(a[key], b[key]));
  return keys.length > 3 ? `${keys.slice(0, 3).join(', ')} and ${keys.length - 3} more` : keys.join(', ');
}
