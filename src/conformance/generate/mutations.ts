/**
 * Invalid documents: each is a valid one (./documents.ts) with ONE change, drawn from what the schema says of a
 * field: a required field removed, a value of the wrong JSON type, an enumeration's near miss (its case, a space,
 * a synonym, a value of another enumeration), a §2.1 format's near miss, an event_id one character over §8's 120.
 * Both the document and its change shrink, so a failure shrinks to the fewest fields around the one change.
 * Changes whose invalidity is arguable (null for an optional field, an empty lead_id that §6.3 accepts as
 * unknown, date-time shapes some reading of ISO 8601 allows) are not drawn: a receiver that accepts them is not wrong.
 */
import * as fc from 'fast-check';
import type { EventType, InterfaceId } from '../../spec/constants.js';
import * as schemas from '../../spec/schemas.js';
import { withPath } from '../probe/bodies.js';
import { eventDraft, jobDraft, type Draft, type DraftContext } from './documents.js';
import { dateTimeMiss, e164Miss, languageMiss, text } from './values.js';

/** One change: a field removed, a field set to a value, or the event_id made one character too long. */
export type Change = { why: string; path: string } & ({ remove: true } | { value: unknown } | { overlong: true });

export function applyChange(draft: Draft, change: Change): Draft {
  if ('overlong' in change)
    return { doc: draft.doc, id: { tail: draft.id?.tail ?? '', length: 'over' }, mutation: change.why };
  const doc = withPath(draft.doc, change.path, 'remove' in change ? undefined : change.value);
  // A change of the event_id itself: the document carries it as changed, not a fresh one.
  const id = change.path === 'event_id' ? undefined : draft.id;
  return { doc, ...(id ? { id } : {}), mutation: change.why };
}

const described = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string ${JSON.stringify(value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
};

const removed = (paths: readonly string[]): fc.Arbitrary<Change> =>
  fc.constantFrom(...paths).map((path) => ({ path, remove: true, why: `${path} removed` }));

const setTo = (paths: readonly string[], values: fc.Arbitrary<unknown>): fc.Arbitrary<Change> =>
  fc
    .tuple(fc.constantFrom(...paths), values)
    .map(([path, value]) => ({ path, value, why: `${path} given as ${described(value)}` }));

/** Values of another JSON type than a string; null only where the field is required (omitting it is the way). */
const notString = (required: boolean) =>
  fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.array(text(8), { maxLength: 2 }),
    fc.record({ value: text(8) }),
    ...(required ? [fc.constant(null)] : []),
  );
const notObject = (required: boolean) =>
  fc.oneof(
    text(12),
    fc.integer(),
    fc.boolean(),
    fc.array(fc.integer(), { maxLength: 2 }),
    ...(required ? [fc.constant(null)] : []),
  );
/** §2.7 attempts: a whole number of 0 or more. */
const notCount = fc.oneof(
  fc.integer({ min: 0, max: 9 }).map(String),
  fc.constantFrom(1.5, 2.25, -1, -7),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
);

/** Near misses of an enumeration value: other spellings, and the values of other enumerations or versions. */
const SYNONYMS: Readonly<Record<string, string>> = {
  'conversation.message': 'message.created',
  'appointment.booked': 'appointment.created',
  'appointment.rescheduled': 'appointment.moved',
  'appointment.cancelled': 'appointment.canceled',
  'job.closed': 'job.completed',
  whatsapp: 'whatsapp_button',
  webchat: 'web_chat',
  sms: 'text',
  phone: 'call',
  email: 'e-mail',
  inbound: 'incoming',
  outbound: 'outgoing',
  agent: 'bot',
  contact: 'customer',
  human: 'operator',
  no_answer: 'unanswered',
  not_interested: 'declined',
  wrong_number: 'invalid_number',
  callback_later: 'call_back_later',
  opted_out: 'unsubscribed',
  landing_form: 'landing_page',
  contact_form: 'form',
  whatsapp_button: 'whatsapp',
  referral: 'referrer',
  book_appointment: 'booking',
  pricing_information: 'pricing',
  service_information: 'information',
  reschedule: 'rebook',
  follow_up: 'followup',
  other: 'misc',
};

const NEAR_MISSES: readonly [string, (value: string) => string][] = [
  ['in capitals', (value) => value.toUpperCase()],
  ['capitalised', (value) => value.charAt(0).toUpperCase() + value.slice(1)],
  ['with a leading space', (value) => ` ${value}`],
  ['with a trailing space', (value) => `${value} `],
  [
    'with a hyphen for its separator',
    (value) => (/[_.]/.test(value) ? value.replace(/[_.]/g, '-') : `${value.slice(0, 2)}-${value.slice(2)}`),
  ],
  ['cut short', (value) => value.slice(0, -1)],
  ['as a synonym', (value) => SYNONYMS[value] ?? `${value}s`],
  ['empty', () => ''],
];

function enumMiss(path: string, values: readonly string[]): fc.Arbitrary<Change> {
  return fc
    .tuple(fc.constantFrom(...values), fc.constantFrom(...NEAR_MISSES))
    .map(([value, [how, miss]]) => ({ path, value: miss(value), why: `${path} ${JSON.stringify(value)} ${how}` }));
}

function formatMiss(
  paths: readonly string[],
  misses: fc.Arbitrary<{ value: string; why: string }>,
): fc.Arbitrary<Change> {
  return fc
    .tuple(fc.constantFrom(...paths), misses)
    .map(([path, miss]) => ({ path, value: miss.value, why: `${path}: ${miss.why} (${JSON.stringify(miss.value)})` }));
}

/** The changes of an event of `type`: only to fields that type has, so the change cannot fall on an unknown field (§9.2). */
function eventChanges(type: EventType): fc.Arbitrary<Change> {
  const appointment = type.startsWith('appointment.');
  const closed = type === 'job.closed';
  // The type's fields (its schema, §2.4–§2.7) but event and event_id (drawn apart below) and attempts, a count.
  const strings = Object.keys(schemas.EventSchemas[type].shape).filter(
    (field) => !['event', 'event_id', 'attempts'].includes(field),
  );
  const enums = [
    enumMiss('event', schemas.EventTypeSchema.options),
    enumMiss('channel', schemas.EventChannel.options),
    enumMiss('direction', schemas.Direction.options),
    enumMiss('author', schemas.Author.options),
    ...(closed ? [enumMiss('outcome', schemas.Outcome.options)] : []),
  ];
  return fc.oneof(
    { weight: 1, arbitrary: removed(['event', 'event_id']) },
    { weight: 1, arbitrary: setTo(['event', 'event_id'], notString(true)) },
    { weight: 2, arbitrary: setTo(strings, notString(false)) },
    ...(closed ? [{ weight: 1, arbitrary: setTo(['attempts'], notCount) }] : []),
    { weight: 3, arbitrary: fc.oneof(...enums) },
    { weight: 3, arbitrary: formatMiss(['occurred_at', ...(appointment ? ['scheduled_at'] : [])], dateTimeMiss) },
    { weight: 1, arbitrary: formatMiss(['from_number_e164'], e164Miss) },
    // §8: one character over 120, counted as characters (an astral tail makes it 121 characters and more UTF-16 units).
    {
      weight: 1,
      arbitrary: fc.constant<Change>({
        path: 'event_id',
        overlong: true,
        why: 'event_id of 121 characters (§8: at most 120)',
      }),
    },
  );
}

/** §2.2's URL of the events (cai's schema: an absolute http(s) URL), near misses of it. */
const URL_MISSES: readonly [string, string][] = [
  ['without a scheme', 'platform.example/cai/events'],
  ['relative', '/cai/events'],
  ['of another scheme', 'ftp://platform.example/cai/events'],
  ['with a space in its host', 'https://platform example/cai/events'],
  ['without a host', 'https://'],
];
const urlMiss = fc.constantFrom(...URL_MISSES).map(([why, value]) => ({ value, why: `a URL ${why}` }));

function jobChanges(): fc.Arbitrary<Change> {
  const required = ['lead_id', 'event_id', 'branch_code', 'contact.name', 'contact.phone_e164', 'callback_url'];
  const optionalStrings = [
    'city',
    'contact.email',
    'contact.language',
    'origin.channel',
    'origin.source',
    'origin.campaign',
    'origin.captured_at',
    'brief.intent',
    'brief.notes',
  ];
  return fc.oneof(
    { weight: 2, arbitrary: removed([...required, 'contact']) },
    { weight: 1, arbitrary: setTo(required, notString(true)) },
    { weight: 1, arbitrary: setTo(optionalStrings, notString(false)) },
    { weight: 1, arbitrary: setTo(['contact'], notObject(true)) },
    { weight: 1, arbitrary: setTo(['origin', 'brief'], notObject(false)) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        enumMiss('origin.channel', schemas.OriginChannel.options),
        enumMiss('brief.intent', schemas.BriefIntent.options),
      ),
    },
    { weight: 2, arbitrary: formatMiss(['origin.captured_at'], dateTimeMiss) },
    { weight: 2, arbitrary: formatMiss(['contact.phone_e164'], e164Miss) },
    { weight: 1, arbitrary: formatMiss(['contact.language'], languageMiss) },
    { weight: 1, arbitrary: formatMiss(['callback_url'], urlMiss) },
  );
}

/** The invalid documents of a receiver: one change of a valid event (B) or contact job (A). */
export function invalidDraft(iface: InterfaceId, context: DraftContext): fc.Arbitrary<Draft> {
  if (iface === 'A')
    return fc.tuple(jobDraft(context), jobChanges()).map(([draft, change]) => applyChange(draft, change));
  return fc.oneof(
    ...schemas.EventTypeSchema.options.map((type) =>
      fc.tuple(eventDraft(type, context), eventChanges(type)).map(([draft, change]) => applyChange(draft, change)),
    ),
  );
}
