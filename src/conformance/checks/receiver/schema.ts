/**
 * Documents that break the schema (§2, §2.1–§2.12) or are not a JSON object at all: refused with 400 on
 * Interface B (§7), never 5xx; with a 4xx on Interface A (a `should`: §4.1 shows no error status). Each row
 * changes one thing in a valid document; the rows of an enumeration, an integer, E.164 and the event_id's length
 * send each near miss of the mutation catalogue (probe/mutations-document.ts) as a case of their own.
 */
import { randomBytes } from 'node:crypto';
import { MAX_EVENT_ID_LENGTH } from '../../../spec/constants.js';
import type { CheckMeta } from '../../check.js';
import { compact, withPath, type Doc } from '../../probe/bodies.js';
import type { Mutation } from '../../probe/mutations.js';
import {
  ATTEMPTS_MISSES,
  ATTEMPTS_PAST_64_BITS,
  AUTHOR_MISSES,
  CHANNEL_MISSES,
  DIRECTION_MISSES,
  dateTimeMisses,
  e164Misses,
  EVENT_ID_PAST_LIMIT,
  EVENT_TYPE_MISSES,
  INTENT_MISSES,
  numberFor,
  ORIGIN_CHANNEL_MISSES,
  OUTCOME_MISSES,
} from '../../probe/mutations-document.js';
import type { CheckLevel } from '../../types.js';
import { mutationCheck } from './mutated.js';
import { EVENTS_RECEIVER, JOBS_RECEIVER, probeOn, type Receiver } from './receivers.js';

/** One request; its clauses are those of the document it breaks, and the refusal's own (§7's 400 on B) is added. */
type Breakage = Pick<CheckMeta, 'id' | 'title' | 'sections' | 'clauses'> & {
  /** The valid document changed, or the bytes sent instead. */
  change(doc: Doc): Doc | Buffer;
};

/** A rule whose near misses (probe/mutations-document.ts) are the cases of one check. */
type Misses = Pick<CheckMeta, 'id' | 'title' | 'sections'> & { mutations: readonly Mutation[] };

/**
 * §7 makes a platform refuse an invalid event with 400: `must`. §4.1 shows no error status for the provider, and
 * nothing in the spec says it must refuse a job the platform should not have sent: a provider that accepts one
 * (or answers it 5xx) is warned, not failed.
 */
const LEVEL: Record<Receiver['interface'], CheckLevel> = { B: 'must', A: 'should' };

function schemaRejections(receiver: Receiver, rows: readonly (Breakage | Misses)[]) {
  return rows.map((row) => {
    const meta = { level: LEVEL[receiver.interface], sections: row.sections, tags: ['schema'], title: row.title };
    if ('mutations' in row) return mutationCheck(receiver, row.id, row.mutations, meta);
    return probeOn(receiver, row.id, {
      ...meta,
      clauses: [...row.clauses, ...receiver.spec.refusalClauses.schema],
      send: (scope) => {
        const changed = row.change(receiver.document(scope));
        return { body: Buffer.isBuffer(changed) ? changed : compact(changed) };
      },
    });
  });
}

const without = (path: string) => (doc: Doc) => withPath(doc, path, undefined);
const setTo = (path: string, value: unknown) => (doc: Doc) => withPath(doc, path, value);
/**
 * §2: the body is one JSON document. Not JSON: a comma before the closing brace, or text after the document (a reader
 * that decodes the first value and stops there, Python's raw_decode, takes the second).
 */
const MALFORMED_JSON: readonly Mutation[] = [
  {
    name: 'a comma before the closing brace',
    clauses: ['§2-1'],
    intent: 'schema',
    request: ({ doc }) => ({ body: Buffer.from(`${compact(doc).toString('utf8').slice(0, -1)},}`, 'utf8') }),
  },
  {
    name: 'text after the JSON document',
    clauses: ['§2-1'],
    intent: 'schema',
    request: ({ doc }) => ({ body: Buffer.concat([compact(doc), Buffer.from(' cai', 'utf8')]) }),
  },
];
const asArray = (doc: Doc) => compact([doc]);

/** §2.4, §2.2: a document without one of its required fields. */
const eventWithout = (id: string, field: string): Breakage => ({
  id,
  title: `an event without \`${field}\` is rejected with 400`,
  sections: ['§2.4', '§7'],
  clauses: ['§2.4-1'],
  change: without(field),
});

/** §4.2: one event object a request; a body that is not one. */
const notAnEvent = (id: string, what: string, clauses: readonly string[], change: Breakage['change']): Breakage => ({
  id,
  title: `${what} is rejected with 400`,
  sections: ['§4.2', '§7'],
  clauses,
  change,
});

/** §2.10, §2.11: a value outside its enumeration, by the near misses of the mutation catalogue. */
const outsideEnumeration = (id: string, field: string, section: string, mutations: readonly Mutation[]): Misses => ({
  id,
  title: `${field} outside its enumeration (unknown, another case, surrounding space, a synonym) is rejected with 400`,
  sections: [section, '§7'],
  mutations,
});

const EVENT_BREAKAGES: readonly (Breakage | Misses)[] = [
  eventWithout('B-SCHEMA-001', 'event'),
  eventWithout('B-SCHEMA-002', 'event_id'),
  {
    id: 'B-SCHEMA-003',
    title:
      'an event type outside §6 (unknown, or a type in another case, with a space, spelled or separated otherwise) is rejected with 400',
    sections: ['§6', '§2.4', '§7'],
    mutations: EVENT_TYPE_MISSES,
  },
  outsideEnumeration('B-SCHEMA-004', 'a `channel`', '§2.10', CHANNEL_MISSES),
  outsideEnumeration('B-SCHEMA-005', 'a `direction`', '§2.10', DIRECTION_MISSES),
  outsideEnumeration('B-SCHEMA-006', 'an `author`', '§2.11', AUTHOR_MISSES),
  {
    id: 'B-SCHEMA-007',
    title:
      'an `outcome` outside its enumeration (unknown, another case or separator, surrounding space, a synonym) is rejected with 400',
    sections: ['§2.12', '§2.7', '§7'],
    mutations: OUTCOME_MISSES,
  },
  {
    id: 'B-SCHEMA-008',
    title:
      '`attempts` that is not an integer (a string of digits, a fraction, a boolean) is rejected with 400; one past 2^63 − 1 is never answered 5xx',
    sections: ['§2.7', '§7'],
    mutations: [...ATTEMPTS_MISSES, ...ATTEMPTS_PAST_64_BITS],
  },
  {
    id: 'B-SCHEMA-009',
    title: 'an `event_id`, a `lead_id` or a `provider_job_id` given as a number is rejected with 400',
    sections: ['§2.4', '§7'],
    mutations: (['event_id', 'lead_id', 'provider_job_id'] as const).map(
      (field): Mutation => ({
        name: `${field} given as a number`,
        clauses: ['§2.4-3'],
        intent: 'schema',
        request: ({ doc }) => ({
          body: compact(withPath(doc, field, Number.parseInt(randomBytes(4).toString('hex'), 16))),
        }),
      }),
    ),
  },
  {
    id: 'B-SCHEMA-010',
    title:
      "`text` given as an object, or an appointment's `branch_code`, `service` or `notes` as a number, is rejected with 400",
    sections: ['§2.4', '§2.6', '§7'],
    mutations: [
      {
        name: 'text given as an object',
        clauses: ['§2.4-3'],
        intent: 'schema',
        request: ({ doc }) => ({ body: compact(withPath(doc, 'text', { value: 'hello' })) }),
      },
      ...['branch_code', 'service', 'notes'].map((field) => numberFor(field, 'appointment.booked')),
    ],
  },
  {
    id: 'B-SCHEMA-011',
    title:
      'a `from_number_e164` that is not E.164 (national, no plus, 00 for the plus, spaces, dashes, a country code of 0, 16 digits, Arabic-Indic digits) is rejected with 400',
    sections: ['§2.1', '§2.4', '§7'],
    mutations: e164Misses('from_number_e164', ['§2.1-1', '§2.4-3']),
  },
  {
    id: 'B-SCHEMA-012',
    title: 'an `occurred_at` without a time-zone offset is rejected with 400',
    sections: ['§2.1', '§2.4', '§7'],
    clauses: ['§2.1-2'],
    change: setTo('occurred_at', '2026-11-22T13:00:00'),
  },
  {
    id: 'B-SCHEMA-013',
    title:
      'a `scheduled_at` that is not a date-time (words, a date alone, no offset, text after the offset, an offset of +25:00, 30 February) is rejected with 400',
    sections: ['§2.1', '§2.6', '§7'],
    mutations: dateTimeMisses('scheduled_at', ['§2.1-2', '§2.6-1'], 'appointment.booked'),
  },
  {
    id: 'B-SCHEMA-014',
    title: `an \`event_id\` of ${MAX_EVENT_ID_LENGTH + 1} characters (ASCII, or outside the BMP) is rejected with 400`,
    sections: ['§8', '§6.1', '§2.4', '§7'],
    mutations: EVENT_ID_PAST_LIMIT,
  },
  {
    id: 'B-SCHEMA-015',
    title: 'malformed JSON (a comma before the closing brace, text after the document) is rejected with 400, never 5xx',
    sections: ['§2', '§7'],
    mutations: MALFORMED_JSON,
  },
  notAnEvent('B-SCHEMA-016', 'a JSON array instead of an object', ['§4.2-4'], asArray),
  notAnEvent('B-SCHEMA-017', 'a JSON string instead of an object', ['§4.2-4'], (doc) => compact(JSON.stringify(doc))),
  notAnEvent('B-SCHEMA-018', 'an empty body', ['§2-1'], () => Buffer.alloc(0)),
];

const JOB_BREAKAGES: readonly (Breakage | Misses)[] = [
  ...['lead_id', 'event_id', 'branch_code', 'contact.phone_e164', 'contact.name', 'callback_url'].map(
    (path, index): Breakage => ({
      id: `A-SCHEMA-00${index + 1}`,
      title: `a job without ${path} is rejected`,
      sections: ['§2.2'],
      clauses: ['§2.2-1'],
      change: without(path),
    }),
  ),
  {
    id: 'A-SCHEMA-007',
    title:
      'a contact.phone_e164 that is not E.164 (national, no plus, 00 for the plus, spaces, dashes, a country code of 0, 16 digits, Arabic-Indic digits) is rejected',
    sections: ['§2.1', '§2.2'],
    mutations: e164Misses('contact.phone_e164', ['§2.1-1', '§2.2-2']),
  },
  {
    id: 'A-SCHEMA-008',
    title:
      'an origin.channel outside its enumeration (unknown, another case or separator, a space, a channel of Interface B, a synonym) is rejected',
    sections: ['§2.8', '§2.2'],
    mutations: ORIGIN_CHANNEL_MISSES,
  },
  {
    id: 'A-SCHEMA-009',
    title:
      'a brief.intent outside its enumeration (unknown, another case or separator, a space, a synonym) is rejected',
    sections: ['§2.9', '§2.2'],
    mutations: INTENT_MISSES,
  },
  {
    id: 'A-SCHEMA-010',
    title: 'contact given as a string is rejected',
    sections: ['§2.2'],
    clauses: ['§2.2-2'],
    change: setTo('contact', 'Ana, +34600000000'),
  },
  {
    id: 'A-SCHEMA-011',
    title:
      'an origin.captured_at that is not a date-time (words, a date alone, no offset, text after the offset, an offset of +25:00, 30 February) is rejected',
    sections: ['§2.1', '§2.2'],
    mutations: dateTimeMisses('origin.captured_at', ['§2.1-2']),
  },
  {
    id: 'A-SCHEMA-012',
    title:
      'malformed JSON (a comma before the closing brace, text after the document) is rejected with a 4xx, never 5xx',
    sections: ['§2', '§4.1'],
    mutations: MALFORMED_JSON,
  },
  {
    id: 'A-SCHEMA-013',
    title: 'a JSON array instead of an object is rejected',
    sections: ['§4.1', '§2.2'],
    clauses: ['§2.2-2'],
    change: asArray,
  },
];

export const schema = {
  B: schemaRejections(EVENTS_RECEIVER, EVENT_BREAKAGES),
  A: schemaRejections(JOBS_RECEIVER, JOB_BREAKAGES),
};
