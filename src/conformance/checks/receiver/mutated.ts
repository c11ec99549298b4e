/**
 * Checks derived from the mutation catalogue (probe/mutations.ts): a rule's mutations become the cases of one check
 * (probe/cases.ts), each sent from the receiver's valid document and judged by the answer the model of the receiver
 * allows for it (src/spec/model: §7's statuses on B, any 4xx on A).
 */
import type { InterfaceId } from '../../../spec/constants.js';
import type { CheckMeta, ReceiverCheck } from '../../check.js';
import { compact } from '../../probe/bodies.js';
import { defineCases, type ProbeCase } from '../../probe/cases.js';
import { clausesOf, type Mutation } from '../../probe/mutations.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { CheckLevel } from '../../types.js';
import { appliesTo, checkId, event, forBoth, probeOn, type ByInterface, type Receiver } from './receivers.js';

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

/**
 * Checks that send a valid document with one thing about its headers changed (signature, timestamp, identity)
 * and judge the status. Both interfaces share them: a row names the change once, and each receiver supplies
 * the expected refusal (§7 for B, any 4xx for A) and how its titles say it. A row is one request, or the cases of a
 * rule's mutations (probe/mutations.ts), each judged by the answer its own rule demands.
 */
export interface Tampering {
  /** `AUTH-004`: the id without its interface; or each interface's own id (a row for one interface names only it). */
  id: string | Partial<Record<InterfaceId, string>>;
  /** The request as the title names it, e.g. `a truncated signature (63 hex digits)`. */
  what: string | ((receiver: Receiver) => string);
  /** How a conforming receiver answers: a refusal of this kind, or acceptance. */
  answer: 'authentication' | 'header' | 'accepted';
  level?: CheckLevel;
  sections: Record<InterfaceId, readonly string[]>;
  /** The clauses it enforces (src/spec/clauses.ts); the refusal's own clause (§7's 401 on B, §4.1's check on A) is added. */
  clauses: readonly string[];
  /** After `auth`. */
  tags: readonly string[];
  /** The request: `body` is a valid document of the receiver, compact. */
  tamper?(body: Buffer, scope: ProbeScope, receiver: Receiver): RequestRecipe;
  /** Or the cases: a rule's mutations, each one request. */
  mutations?: readonly Mutation[];
}

export function tamperingChecks(rows: readonly Tampering[]): ByInterface {
  return forBoth((receiver) =>
    rows
      .filter((row) => appliesTo(receiver, row.id))
      .map((row) => {
        const what = typeof row.what === 'string' ? row.what : row.what(receiver);
        const refusal = row.answer === 'accepted' ? undefined : receiver.refuses[row.answer];
        const id = checkId(receiver, row.id);
        const meta = {
          level: row.level ?? 'must',
          sections: row.sections[receiver.interface],
          tags: ['auth', ...row.tags],
          title: `${what} ${refusal ?? 'is accepted'}`,
        } as const;
        if (row.mutations) return mutationCheck(receiver, id, row.mutations, { ...meta, clauses: row.clauses });
        const tamper = row.tamper as NonNullable<Tampering['tamper']>;
        return probeOn(receiver, id, {
          ...meta,
          clauses: [...row.clauses, ...(refusal ? receiver.spec.refusalClauses.authentication : [])],
          send: (scope) => tamper(compact(receiver.document(scope)), scope, receiver),
        });
      }),
  );
}
