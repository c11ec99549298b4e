/**
 * Checks derived from the mutation catalogue (probe/mutations.ts): a rule's mutations become the cases of one check
 * (probe/cases.ts), each sent from the receiver's valid document and judged by the answer the model of the receiver
 * allows for it (src/spec/model: §7's statuses on B, any 4xx on A).
 */
import type { CheckMeta, ReceiverCheck } from '../../check.js';
import { defineCases, type ProbeCase } from '../../probe/cases.js';
import { clausesOf, type Mutation } from '../../probe/mutations.js';
import { event, type Receiver } from './receivers.js';

/** The clauses a receiver's refusals add (§7's statuses on B; §4.1's verification on A), for mutations meant to be refused. */
function refusalClauses(receiver: Receiver, mutations: readonly Mutation[]): string[] {
  const intents = new Set(mutations.map((mutation) => mutation.intent));
  return [
    ...(intents.has('authentication') || intents.has('header') ? receiver.spec.refusalClauses.authentication : []),
    ...(intents.has('schema') ? receiver.spec.refusalClauses.schema : []),
  ];
}

/** The cases of a list of mutations on a receiver. */
function casesOf(receiver: Receiver, mutations: readonly Mutation[]): ProbeCase[] {
  return mutations.map((mutation) => ({
    name: mutation.name,
    send: (scope) =>
      mutation.request({
        scope,
        // The receiver's usual document, or an event of the type the mutation names (B).
        doc: mutation.on && receiver.spec.document === 'event' ? event(scope, mutation.on) : receiver.document(scope),
        dateTimeField: receiver.spec.fields.dateTime,
      }),
    ...(mutation.unjudgeable ? { unjudgeable: mutation.unjudgeable } : {}),
    ...(mutation.aside ? { aside: mutation.aside } : {}),
  }));
}

type MutationCheckMeta = Omit<CheckMeta, 'id' | 'role' | 'scenarios' | 'clauses' | 'interface' | 'level'> & {
  /** Clauses beyond those of the mutations and of the receiver's refusals. */
  clauses?: readonly string[];
  /** `must` unless it says otherwise. */
  level?: CheckMeta['level'];
};

/** One check, `id`, whose cases are `mutations`, on `receiver`. */
export function mutationCheck(
  receiver: Receiver,
  id: string,
  mutations: readonly Mutation[],
  meta: MutationCheckMeta,
): ReceiverCheck {
  const clauses = [
    ...new Set([...(meta.clauses ?? []), ...clausesOf(mutations), ...refusalClauses(receiver, mutations)]),
  ];
  return defineCases({
    id,
    level: 'must',
    ...meta,
    interface: receiver.interface,
    clauses,
    cases: casesOf(receiver, mutations),
  }) as ReceiverCheck;
}
