/**
 * The mutation catalogue: for each rule of the spec, the requests derived from the rule's parts, each changing one
 * thing of a valid, correctly signed request, with the clauses it comes from (src/spec/clauses.ts) and the answer
 * the spec demands. Probes are derived, not picked: every part of the signed string is removed, replaced and moved;
 * every part of the header is spelled otherwise; every edge is probed on both sides; every value of an enumeration
 * is sent, and its near misses. The checks (checks/receiver) turn each rule's mutations into the cases of a check
 * (probe/cases.ts), so that a failure names the one mutation a receiver let through.
 *
 * The rules, by part of the request: mutations-signature.ts (§5.2, §5.3), mutations-timestamp.ts (§5.4, §5.5),
 * mutations-document.ts (§2.1, §2.4–§2.12, §8), mutations-identity.ts (§5.6, §4.1, §6.1, §2.2).
 */
import type { OpenPointId } from '../../spec/model/latitude.js';
import type { EventType } from '../../spec/constants.js';
import { compact, type Doc } from './bodies.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';

/**
 * What a mutation was designed to provoke: acceptance, or a refusal for its credentials, the form of a header, the
 * document, the size. No check reads it: the answer a case must get is the model's (src/spec/model), and a unit test
 * holds the model to every mutation's intent, so that the two statements of one rule keep each other honest.
 */
export type Intent = 'accepted' | 'authentication' | 'header' | 'schema' | 'too-large';

/** The valid request a mutation changes: the receiver's valid document (with a fresh event_id) and the run. */
export interface Valid {
  scope: ProbeScope;
  doc: Doc;
  /** The document's date-time field (§2.1), dotted: `occurred_at` (B), `origin.captured_at` (A). */
  dateTimeField: string;
}

export interface Mutation {
  /** What is changed, as a failure names it: `the hex digits in upper case`. */
  name: string;
  /** The clauses the mutation is derived from. */
  clauses: readonly string[];
  intent: Intent;
  /** The request: the valid one with the one thing changed. */
  request(valid: Valid): RequestRecipe;
  /** Why the mutation cannot be sent on this run, when it cannot (it is then not judged). */
  unjudgeable?(scope: ProbeScope): string | undefined;
  /**
   * Questions the mutation is not about (src/spec/model/latitude.ts): a refusal one of them allows (a 411 for a body
   * sent chunked, where the case is about its size) leaves the case not judged rather than passed or failed.
   */
  aside?: readonly OpenPointId[];
  /** Interface B: the event type of the valid document it changes, when not the receiver's usual one. */
  on?: EventType;
}

/** A valid document sent with the change each row names (a value, and how a failure names it) made to its request. */
export function changedBy<T>(
  rows: readonly (readonly [T, string])[],
  clauses: readonly string[],
  intent: Intent,
  change: (value: T) => Omit<RequestRecipe, 'body'>,
): Mutation[] {
  return rows.map(([value, name]) => ({
    name,
    clauses,
    intent,
    request: ({ doc }) => ({ body: compact(doc), ...change(value) }),
  }));
}

/** The clauses of a list of mutations, each once, in order. */
export function clausesOf(mutations: readonly Mutation[]): string[] {
  return [...new Set(mutations.flatMap((mutation) => mutation.clauses))];
}
