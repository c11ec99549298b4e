/**
 * Checks that send a valid document with one thing about its headers changed (signature, timestamp, identity)
 * and judge the status. Both interfaces share them: a row names the change once, and each receiver supplies
 * the expected refusal (§7 for B, any 4xx for A) and how its titles say it. A row is one request, or the cases of a
 * rule's mutations (probe/mutations.ts), each judged by the answer its own rule demands.
 */
import type { CheckLevel } from '../../types.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import type { InterfaceId } from '../../../spec/constants.js';
import { compact } from '../../probe/bodies.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { Mutation } from '../../probe/mutations.js';
import { mutationCheck } from './mutated.js';
import { appliesTo, checkId, forBoth, probeOn, type ByInterface, type Receiver } from './receivers.js';

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
