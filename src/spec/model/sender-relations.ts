/**
 * The relations of a sender (Interface B: the provider's event sender; Interface A: the platform's job sender):
 * what the model (./sender.ts) says of the attempts that answer any sequence of answers, named once with the
 * clauses they rest on. Every term the model judges belongs to one of them; a generated conversation that breaks
 * one is reported under it (the checks BS-STATE-00n and AS-STATE-00n), and every run covers each at least once.
 */
import type { InterfaceId } from '../constants.js';
import { interfaceSpec } from '../interfaces.js';
import type { Relation } from './relations.js';

/** The clauses and levels of the delivery terms, by interface: §7's table is Interface B's, §8's retry period binds both. */
export function deliveryRules(iface: InterfaceId) {
  const fixed = interfaceSpec(iface).refusals === 'fixed';
  const level: 'must' | 'should' = fixed ? 'must' : 'should';
  return {
    refusalLevel: level,
    refusalClauses: (status: number): string[] =>
      fixed ? (({ 400: ['§7-2'], 401: ['§7-4'], 413: ['§7-6'] } as Record<number, string[]>)[status] ?? []) : [],
    rateLevel: level,
    retry5xx: fixed ? ['§7-9', '§8-4'] : ['§8-4'],
    retry429: fixed ? ['§7-8'] : ['§8-4'],
    identity: fixed ? ['§6.1-1'] : ['§2.2-4'],
  };
}

/**
 * A relation's level is that of its strongest term: a breach of one of its `should` terms is a warning (§7's table
 * of client actions is Interface B's; on A, §4.1 shows no statuses and §8's retry period is what binds).
 */
export function senderRelations(iface: InterfaceId): (Relation & { id: SenderRelationId })[] {
  return Object.entries(senderTexts(iface)).map(([id, text]) => ({ id: id as SenderRelationId, ...text }));
}

function senderTexts(iface: InterfaceId) {
  const events = interfaceSpec(iface).document === 'event';
  const document = events ? 'event' : 'job';
  const rule = deliveryRules(iface);
  return {
    final: {
      title: `a final answer (any 2xx, 400, 401${events ? ', 413' : ''}) ends the delivery; nothing is sent again while an answer is awaited`,
      level: 'must',
      clauses: events ? ['§6.5-1', '§7-2', '§7-4', '§7-6'] : ['§6.5-1'],
      tags: ['accepted', 'reject'],
    },
    retry: {
      title: 'a 5xx or a cut connection is retried, with growing waits, for as long as it takes',
      level: 'must',
      clauses: rule.retry5xx,
      tags: ['retry', '5xx', 'backoff'],
    },
    rate: {
      title: 'a 429 is retried, no earlier than its Retry-After (seconds or HTTP-date)',
      level: rule.rateLevel,
      clauses: rule.retry429,
      tags: ['retry', '429', 'retry-after'],
    },
    same: {
      title: `every retry carries the first attempt's event_id and ${document} (the same bytes is best)`,
      level: 'must',
      clauses: rule.identity,
      tags: ['retry', 'event-id', 'document'],
    },
    fresh: {
      title: 'every attempt is signed afresh, over its own timestamp and raw body',
      level: 'must',
      clauses: ['§5.2-1', '§5.3-1', '§5.5-1'],
      tags: ['signature', 'window'],
    },
    identity: {
      title: `one event_id per ${document} and one ${document} per event_id`,
      level: 'must',
      clauses: rule.identity,
      tags: ['event-id', 'identity'],
    },
    'well-formed': {
      title: `every attempt is a well-formed POST: its address, its headers, a valid ${document}${events ? " within §8's limits" : ''}`,
      level: 'must',
      clauses: events ? ['§4.2-1', '§4.2-2', '§2-3', '§2.4-1', '§8-1', '§8-2'] : ['§4.1-1', '§4.1-2', '§2-3', '§2.2-1'],
      tags: ['http', 'headers', 'document'],
    },
  } satisfies Record<string, Omit<Relation, 'id'>>;
}

export type SenderRelationId = keyof ReturnType<typeof senderTexts>;
