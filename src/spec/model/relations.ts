/**
 * The relations of the model: what it says of any sequence of requests (a receiver) or of answers (a sender), named
 * once, with the clauses they rest on. A generated conversation that breaks one is reported under it, and every run
 * of the stateful phase covers each at least once (docs/conformance.md, "The stateful phase").
 */
import type { InterfaceId } from '../constants.js';
import { interfaceSpec } from '../interfaces.js';

export interface Relation {
  id: string;
  /** The relation as a check's title says it. */
  title: string;
  level: 'must' | 'should';
  clauses: readonly string[];
  /** What the relation is about, for tags and selection. */
  tags: readonly string[];
}

/** A receiver's relations, by interface (RB on the platform's events endpoint, RA on the provider's jobs endpoint). */
function relationTexts(iface: InterfaceId) {
  const spec = interfaceSpec(iface);
  const events = spec.document === 'event';
  const document = events ? 'event' : 'job';
  return {
    accept: {
      title: `every valid, authentic ${document} with a new event_id is accepted, in every shape the spec allows`,
      level: 'must',
      clauses: events
        ? ['§4.2-1', '§9.2-1', '§2.1-1', '§2.1-2']
        : ['§4.1-1', '§4.1-4', '§9.2-1', '§2.1-1', '§2.1-2', '§2.1-3'],
      tags: ['acceptance'],
    },
    repeat: {
      title: events
        ? 'a repeat of an accepted event_id, whatever else it changes and whenever it comes, is answered 202 {"ok":true,"duplicate":true}; of repeats at once, one is new'
        : 'a repeated job gets the acknowledgment of its first delivery, whatever else it changes and whenever it comes',
      level: 'must',
      clauses: events ? ['§6.1-2', '§6.1-3', '§2.13-1'] : ['§2.2-5'],
      tags: ['dedupe'],
    },
    distinct: {
      title: 'an event_id that is not exactly an accepted one, however close, is new',
      level: 'must',
      clauses: spec.repeatClauses,
      tags: ['dedupe', 'identifiers'],
    },
    authentication: {
      title: `${events ? 'an' : 'a'} ${document} that fails authentication is refused${events ? ' with 401' : ''}, a repeat of an accepted one too`,
      level: 'must',
      clauses: events
        ? ['§5.1-1', '§5.2-1', '§5.3-1', '§5.5-1', '§5.6-1', '§7-3']
        : ['§5.1-1', '§5.2-1', '§5.3-1', '§5.5-1', '§4.1-6'],
      tags: ['auth'],
    },
    schema: {
      title: `an invalid ${document} is refused${events ? ' with 400' : ''}, never 5xx`,
      level: events ? 'must' : 'should',
      clauses: events ? ['§7-1', '§2.4-1', '§2.4-3'] : ['§2.2-1', '§2.2-2'],
      tags: ['schema'],
    },
    size: { title: 'a body over 256 KB is refused with 413', level: 'must', clauses: ['§8-1', '§7-5'], tags: ['size'] },
    'no-trace': {
      title: `a refused ${document} leaves no trace: its event_id, sent next validly, is new`,
      level: 'must',
      clauses: spec.repeatClauses,
      tags: ['dedupe'],
    },
    answer: {
      title: events
        ? 'every answer carries what the spec says: a JSON body labelled JSON, a 429 with Retry-After, never a 5xx or no answer'
        : 'every acknowledgment carries what §2.3 says, labelled JSON; a 429 with Retry-After; never a 5xx or no answer',
      level: 'must',
      clauses: events ? ['§2-3', '§7-7'] : ['§2.3-1', '§2.3-2', '§4.1-4'],
      tags: ['answer'],
    },
  } satisfies Record<string, Omit<Relation, 'id'>>;
}

export type ReceiverRelationId = keyof ReturnType<typeof relationTexts>;

/** The relations that apply to a receiver of the interface (§8 states the size limit for events only). */
export function receiverRelations(iface: InterfaceId): Relation[] {
  return Object.entries(relationTexts(iface))
    .filter(([id]) => id !== 'size' || interfaceSpec(iface).sizeLimitStated)
    .map(([id, text]) => ({ id, ...text }));
}
