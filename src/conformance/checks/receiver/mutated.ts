/**
 * Checks derived from the mutation catalogue (probe/mutations.ts): a rule's mutations become the cases of one check
 * (probe/cases.ts), each sent from the receiver's valid document and judged against the answer its rule demands, as
 * this receiver gives it (§7's statuses on B, any 4xx on A).
 */
import type { EventType } from '../../../spec/constants.js';
import type { CheckMeta, ReceiverCheck } from '../../check.js';
import { defineCases, type ProbeCase } from '../../probe/cases.js';
import { ACCEPTED, TOO_LARGE, type StatusExpectation } from '../../probe/expectations.js';
import { clausesOf, type Demand, type Mutation } from '../../probe/mutations.js';
import type { ProbeScope } from '../../probe/scope.js';
import { event, type Receiver } from './receivers.js';

/** How this receiver gives the answer a mutation's rule demands. */
export function expectationOf(receiver: Receiver, mutation: Pick<Mutation, 'demand' | 'alsoRefusedWith'>): StatusExpectation {
  const base = baseExpectation(receiver, mutation.demand);
  const also = mutation.alsoRefusedWith;
  if (!also || mutation.demand === 'accepted') return base;
  return { ...base, statuses: [...(base.statuses ?? []), ...also.statuses], describe: `${base.describe}, or ${also.statuses.join('/')} (${also.why})` };
}

function baseExpectation(receiver: Receiver, demand: Demand): StatusExpectation {
  switch (demand) {
    case 'accepted':
      return ACCEPTED;
    case 'too-large':
      return TOO_LARGE;
    default:
      return receiver.refuses[demand].expect;
  }
}

/** The clauses a receiver's refusals add (§7's statuses on B; §4.1's verification on A). */
function refusalClauses(receiver: Receiver, mutations: readonly Mutation[]): string[] {
  const demands = new Set(mutations.map((mutation) => mutation.demand));
  return [
    ...(demands.has('authentication') || demands.has('header') ? receiver.refuses.authenticationClauses : []),
    ...(demands.has('schema') ? receiver.refuses.schemaClauses : []),
  ];
}

/** The valid document a mutation changes: the receiver's usual one, or an event of the type it names (B). */
function validDocument(receiver: Receiver, scope: ProbeScope, on: EventType | undefined) {
  return on && receiver.interface === 'B' ? event(scope, on) : receiver.document(scope);
}

/** The cases of a list of mutations on a receiver. */
export function casesOf(receiver: Receiver, mutations: readonly Mutation[]): ProbeCase[] {
  return mutations.map((mutation) => ({
    name: mutation.name,
    expect: expectationOf(receiver, mutation),
    send: (scope) => mutation.request({ scope, doc: validDocument(receiver, scope, mutation.on), dateTimeField: receiver.dateTimeField }),
    ...(mutation.unjudgeable ? { unjudgeable: mutation.unjudgeable } : {}),
    ...(mutation.doubtful ? { doubtful: mutation.doubtful } : {}),
    ...(mutation.excused ? { excused: mutation.excused } : {}),
  }));
}

export type MutationCheckMeta = Omit<CheckMeta, 'role' | 'scenarios' | 'clauses' | 'interface'> & {
  /** Clauses beyond those of the mutations and of the receiver's refusals. */
  clauses?: readonly string[];
};

/** One check whose cases are `mutations`, on `receiver`. */
export function mutationCheck(receiver: Receiver, meta: MutationCheckMeta, mutations: readonly Mutation[]): ReceiverCheck {
  const clauses = [...new Set([...(meta.clauses ?? []), ...clausesOf(mutations), ...refusalClauses(receiver, mutations)])];
  return defineCases({ ...meta, interface: receiver.interface, clauses, cases: casesOf(receiver, mutations) }) as ReceiverCheck;
}
