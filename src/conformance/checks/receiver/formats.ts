/**
 * §2.1: every shape the formats allow, one at a time, in a document that is otherwise the receiver's usual one.
 * "ISO 8601 with time-zone offset": fractional seconds (six digits, as Python writes them), UTC written `Z`, a
 * negative offset (the RFC 3339 profile every date library reads; the rest of ISO 8601, such as week dates or the
 * basic format, is not probed). E.164: up to 15 digits (ITU-T E.164), and a short real number (Niue's 7 digits).
 * BCP 47 (Interface A's contact.language): a script subtag. Each must be accepted; a receiver whose format check
 * is narrower than the spec fails exactly the row of the shape it refuses.
 */
import { dateTime, withPath, compact } from '../../probe/bodies.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { Mutation } from '../../probe/mutations.js';
import { dateTimeFractions, dateTimeOffsets, e164Lengths } from '../../probe/mutations-document.js';
import { mutationCheck } from './mutated.js';
import { appliesTo, checkId, forBoth, probeOn, type Receiver } from './receivers.js';
import type { InterfaceId } from '../../../spec/constants.js';

/** One of §2.1's formats: the field of a receiver's document a shape of it goes in, and the clause that allows it. */
interface Format {
  field(receiver: Receiver): string;
  clauses: readonly string[];
}

const DATE_TIME: Format = { field: (r) => r.spec.fields.dateTime, clauses: ['§2.1-2'] };
const E164: Format = { field: (r) => r.spec.fields.phone, clauses: ['§2.1-1'] };
const LANGUAGE: Format = { field: () => 'contact.language', clauses: ['§2.1-3'] };

interface Shape extends Format {
  ids: string | Partial<Record<InterfaceId, string>>;
  /** Its value (as the title shows it). */
  value(scope: ProbeScope): string;
  /** How the title describes the value, after the field name. */
  describe: string;
  /** Further shapes of the same rule (probe/mutations-document.ts), each a case of the check after the first. */
  more?(field: string): Mutation[];
}

const SHAPES: readonly Shape[] = [
  {
    ids: 'FORMAT-001',
    ...DATE_TIME,
    describe: 'with fractional seconds (six digits, e.g. 10:30:00.123456+01:00; also 1, 3 and 9 digits)',
    value: () => dateTime(new Date(), { fraction: '123456' }),
    more: (field) => dateTimeFractions(field).filter((mutation) => !mutation.name.includes(' 6 ')),
  },
  {
    ids: 'FORMAT-002',
    ...DATE_TIME,
    describe: 'in UTC written with Z (e.g. 09:30:00Z)',
    value: () => dateTime(new Date(), { utc: true }),
  },
  {
    ids: 'FORMAT-003',
    ...DATE_TIME,
    describe: 'with a negative offset (e.g. 04:30:00-05:00; also -12:00, -03:30, +05:30, +14:00, +00:00)',
    value: () => dateTime(new Date(), { offsetMinutes: -300 }),
    more: (field) => dateTimeOffsets(field).filter((mutation) => !mutation.name.endsWith('-05:00')),
  },
  {
    ids: 'FORMAT-004',
    ...E164,
    describe: 'of 15 digits, the longest E.164 number (+493012345678901; also 14, 13 and 12 digits)',
    value: () => '+493012345678901',
    more: (field) => e164Lengths(field, 'long').slice(1),
  },
  {
    ids: 'FORMAT-005',
    ...E164,
    describe: 'of 7 digits, a short real E.164 number (Niue, +6834002; also 8 to 11 digits)',
    value: () => '+6834002',
    more: (field) => e164Lengths(field, 'short').slice(0, -1),
  },
  {
    ids: { A: 'A-FORMAT-006' },
    ...LANGUAGE,
    describe: 'with a script subtag (zh-Hant-TW, BCP 47)',
    value: () => 'zh-Hant-TW',
  },
];

export const formats = forBoth((receiver) =>
  SHAPES.filter((shape) => appliesTo(receiver, shape.ids)).map((shape) => {
    const field = shape.field(receiver);
    if (shape.more) {
      const first: Mutation = {
        name: `${field} ${shape.describe.replace(/;.*\)$/, ')')}`,
        clauses: shape.clauses,
        intent: 'accepted',
        request: ({ scope, doc }) => ({ body: compact(withPath(doc, field, shape.value(scope))) }),
      };
      return mutationCheck(receiver, checkId(receiver, shape.ids), [first, ...shape.more(field)], {
        sections: ['§2.1', receiver.spec.documentSection],
        tags: ['format', 'acceptance'],
        title: `${field} ${shape.describe} is accepted`,
        // On A each accepted job starts a conversation: the cases run after the callback checks, not among them.
        ...(receiver.spec.acceptanceStartsConversation ? { exclusive: true } : {}),
      });
    }
    return probeOn(receiver, checkId(receiver, shape.ids), {
      sections: ['§2.1', receiver.spec.documentSection],
      clauses: shape.clauses,
      tags: ['format', 'acceptance'],
      title: `${field} ${shape.describe} is accepted`,
      send: (scope) => ({ body: compact(withPath(receiver.document(scope), field, shape.value(scope))) }),
    });
  }),
);
