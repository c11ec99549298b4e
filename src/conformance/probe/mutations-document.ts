/**
 * The document's rules, by their parts (§2.1, §2.4–§2.12, §8): every value of each enumeration and its near misses
 * (another case, surrounding white space, a synonym, another separator); integers and the forms that only look like
 * one; E.164 in every length it allows and the ways a number is written that are not E.164; date-times in every shape
 * §2.1 allows; event_id at its length limit, counted in characters of every width.
 */
import {
  AUTHORS,
  BRIEF_INTENTS,
  DIRECTIONS,
  EVENT_CHANNELS,
  MAX_EVENT_ID_LENGTH,
  ORIGIN_CHANNELS,
  OUTCOMES,
  type EventType,
} from '../../spec/constants.js';
import { astralPadded, compact, dateTime, withPath } from './bodies.js';
import type { Intent, Mutation } from './mutations.js';
import { plural } from '../../text.js';

/** The valid document with `field` (dotted) set to `value`. */
function setTo(
  field: string,
  value: unknown,
  name: string,
  clauses: readonly string[],
  intent: Intent,
  on?: EventType,
): Mutation {
  return {
    name,
    clauses,
    intent,
    ...(on ? { on } : {}),
    request: ({ doc }) => ({ body: compact(withPath(doc, field, value)) }),
  };
}

const shown = (value: unknown) => JSON.stringify(value);

/** Values a field must refuse (§7: 400 on B), each with what makes it wrong. */
function nearMisses(
  field: string,
  clauses: readonly string[],
  misses: readonly [unknown, string][],
  on?: EventType,
): Mutation[] {
  return misses.map(([value, why]) => setTo(field, value, `${field} ${shown(value)} (${why})`, clauses, 'schema', on));
}

/** Every value an enumeration allows, each in a valid document: each must be accepted. */
function everyValue(field: string, clauses: readonly string[], values: readonly string[], on?: EventType): Mutation[] {
  return values.map((value) => setTo(field, value, `${field} ${shown(value)}`, clauses, 'accepted', on));
}

// --- Enumerations (§2.8–§2.12, §6) ----------------------------------------------------------------------------

/** §6: the event types are exact strings. */
export const EVENT_TYPE_MISSES = nearMisses(
  'event',
  ['§6-1', '§2.4-1'],
  [
    ['conversation.deleted', 'not a type of §6'],
    ['Conversation.Message', 'a type in another case'],
    ['conversation.message ', 'a type with a trailing space'],
    ['appointment.canceled', 'another spelling of appointment.cancelled'],
    ['job_closed', 'another separator'],
  ],
);

export const CHANNEL_MISSES = nearMisses(
  'channel',
  ['§2.10-1', '§2.4-3'],
  [
    ['carrier_pigeon', 'not a channel of §2.10'],
    ['WhatsApp', 'another case'],
    ['WHATSAPP', 'upper case'],
    [' whatsapp', 'a leading space'],
    ['whatsapp ', 'a trailing space'],
    ['text', 'a synonym of sms'],
    ['e-mail', 'another spelling of email'],
  ],
);

export const DIRECTION_MISSES = nearMisses(
  'direction',
  ['§2.10-1', '§2.4-3'],
  [
    ['sideways', 'not a direction of §2.10'],
    ['Inbound', 'another case'],
    ['OUTBOUND', 'upper case'],
    ['inbound ', 'a trailing space'],
    ['incoming', 'a synonym of inbound'],
    ['outgoing', 'a synonym of outbound'],
  ],
);

export const AUTHOR_MISSES = nearMisses(
  'author',
  ['§2.11-1', '§2.4-3'],
  [
    ['robot', 'not an author of §2.11'],
    ['Agent', 'another case'],
    [' agent', 'a leading space'],
    ['bot', 'a synonym of agent'],
    ['operator', 'a synonym of human'],
    ['customer', 'a synonym of contact'],
  ],
);

export const OUTCOME_MISSES = nearMisses(
  'outcome',
  ['§2.12-1', '§2.7-1'],
  [
    ['abducted', 'not an outcome of §2.12'],
    ['No_Answer', 'another case'],
    ['no-answer', 'another separator'],
    ['no answer', 'a space for the underscore'],
    ['not_interested ', 'a trailing space'],
    ['declined', 'a synonym of not_interested'],
  ],
  'job.closed',
);

/** Every value of every enumeration of the events (§2.10–§2.12); the event types themselves are B-ACCEPT-001 to -005. */
export const EVENT_ENUMERATIONS: readonly Mutation[] = [
  ...everyValue('channel', ['§2.10-1'], EVENT_CHANNELS),
  ...everyValue('direction', ['§2.10-1'], DIRECTIONS),
  ...everyValue('author', ['§2.11-1'], AUTHORS),
  ...everyValue('outcome', ['§2.12-1'], OUTCOMES, 'job.closed'),
];

export const ORIGIN_CHANNEL_MISSES = nearMisses(
  'origin.channel',
  ['§2.8-1', '§2.2-2'],
  [
    ['fax', 'not a channel of §2.8'],
    ['Webchat', 'another case'],
    ['web_chat', 'another separator'],
    [' phone', 'a leading space'],
    ['whatsapp', "a channel of Interface B's §2.10, not of §2.8"],
    ['form', 'a synonym of contact_form'],
  ],
);

export const INTENT_MISSES = nearMisses(
  'brief.intent',
  ['§2.9-1', '§2.2-2'],
  [
    ['world_domination', 'not an intent of §2.9'],
    ['Book_Appointment', 'another case'],
    ['book-appointment', 'another separator'],
    ['other ', 'a trailing space'],
    ['booking', 'a synonym of book_appointment'],
  ],
);

/** Every value of the enumerations of a job (§2.8, §2.9). */
export const JOB_ENUMERATIONS: readonly Mutation[] = [
  ...everyValue('origin.channel', ['§2.8-1'], ORIGIN_CHANNELS),
  ...everyValue('brief.intent', ['§2.9-1'], BRIEF_INTENTS),
];

// --- Integers (§2.7) -------------------------------------------------------------------------------------------

/** §2.7: `attempts` is an integer; numbers and strings that only look like one are not. */
export const ATTEMPTS_MISSES = nearMisses(
  'attempts',
  ['§2.7-1'],
  [
    ['3', 'a string of digits'],
    [1.5, 'a number with a fraction'],
    ['1.5', 'a string with a fraction'],
    [true, 'a boolean'],
  ],
  'job.closed',
);

/**
 * §2.7 bounds `attempts` nowhere and RFC 8259 §6 lets a parser limit the range of numbers, so an integer past a
 * 64-bit column (2^63, as JavaScript writes it) may be accepted or refused with 400 (src/spec/model/latitude.ts:
 * arguable); never 5xx, which tells the sender to retry for 24 hours (§7) a document that can never be stored.
 */
export const ATTEMPTS_PAST_64_BITS: readonly Mutation[] = [
  setTo(
    'attempts',
    2 ** 63,
    `attempts ${shown(2 ** 63)} (past 2^63 − 1, the largest 64-bit integer)`,
    ['§2.7-1'],
    'schema',
    'job.closed',
  ),
];

// --- Values at the edge of their type (§2.4–§2.7, §6.3) ----------------------------------------------------------

/**
 * Valid values a receiver may find odd, each in an otherwise valid event: each must be accepted. An empty lead_id is a
 * string (§2.4) the platform does not recognise, which §6.3 accepts; an empty text is a string (§2.4, §2.5: a message
 * of an attachment, a blank line); an appointment's scheduled_at may lie in the past (§2.6 bounds it nowhere: an
 * appointment cancelled after its time); job.closed may count 0 attempts (§2.7: the number made, an integer: a contact
 * who opted out before the first).
 */
export const EDGE_VALUES: readonly Mutation[] = [
  setTo('lead_id', '', 'lead_id "" (a lead the platform does not recognise, §6.3)', ['§6.3-1', '§2.4-3'], 'accepted'),
  setTo('text', '', 'text "" (a string, §2.4)', ['§2.4-3', '§2.5-1'], 'accepted'),
  setTo(
    'scheduled_at',
    '2024-05-01T10:00:00+02:00',
    'scheduled_at in the past on appointment.cancelled (2024-05-01T10:00:00+02:00, §2.6)',
    ['§2.6-1'],
    'accepted',
    'appointment.cancelled',
  ),
  setTo('attempts', 0, 'attempts 0 on job.closed (an integer, §2.7)', ['§2.7-1'], 'accepted', 'job.closed'),
];

/** §2.4, §2.6: a field typed string given as a number (on an appointment event, one of §2.6's). */
export function numberFor(field: string, on?: EventType): Mutation {
  const clauses = on?.startsWith('appointment.') ? ['§2.6-1'] : ['§2.4-3'];
  return setTo(field, 4711, `${field} given as a number (4711)`, clauses, 'schema', on);
}

// --- Date-times (§2.1) as values a field must refuse --------------------------------------------------------------

/**
 * §2.1: a date-time is ISO 8601 with its offset, and nothing else: words, a date alone, the offset left out, text
 * after it (a pattern without its end anchor, a parser that stops where the date-time ends, accept it), an offset
 * of 25 hours (ISO 8601's hours run to 23: a pattern that checks two digits only accepts it), or 30 February (a
 * pattern that checks the digits, not the calendar, accepts it).
 */
export function dateTimeMisses(field: string, clauses: readonly string[], on?: EventType): Mutation[] {
  return nearMisses(
    field,
    clauses,
    [
      ['tomorrow at ten', 'words'],
      ['2026-11-22', 'a date alone'],
      ['2026-11-22T13:00:00', 'no time-zone offset'],
      ['2026-11-22T13:00:00+01:00 CET', 'text after the offset'],
      ['2026-11-22T13:00:00+25:00', 'an offset past 23:59'],
      ['2026-02-30T13:00:00+01:00', 'a day February does not have'],
    ],
    on,
  );
}

// --- E.164 (§2.1) ----------------------------------------------------------------------------------------------

/**
 * A number written in Arabic-Indic digits (U+0660–U+0669): digits to Unicode (category Nd), so Python's `\d`, .NET's
 * and Go's Unicode classes match them, but not the ASCII digits E.164 numbers are (§2.1; ITU-T E.164 digits 0–9).
 */
const ARABIC_INDIC_E164 = '+\u0664\u0664\u0667\u0667\u0660\u0660\u0669\u0660\u0660\u0661\u0662\u0663';

/** §2.1: E.164 is `+`, a country code that does not start with 0, and at most 15 digits in all, nothing else. */
export function e164Misses(field: string, clauses: readonly string[]): Mutation[] {
  return nearMisses(field, clauses, [
    ['0612 345 678', 'a national number'],
    ['447700900123', 'no plus sign'],
    ['00447700900123', 'the 00 international prefix for the plus'],
    ['+44 7700 900123', 'spaces'],
    ['+44-7700-900123', 'dashes'],
    ['+0447700900123', 'a country code starting with 0'],
    ['+4930123456789012', '16 digits'],
    [ARABIC_INDIC_E164, 'Arabic-Indic digits, not ASCII'],
  ]);
}

/** E.164 numbers of every length §2.1 allows and numbering plans use, from the longest: each must be accepted. */
export function e164Lengths(field: string, lengths: 'long' | 'short'): Mutation[] {
  const numbers: readonly [string, string][] =
    lengths === 'long'
      ? [
          ['+493012345678901', '15 digits, the longest E.164 number'],
          ['+49301234567890', '14 digits'],
          ['+4915123456789', '13 digits'],
          ['+447700900123', '12 digits'],
        ]
      : [
          ['+33612345678', '11 digits'],
          ['+3725123456', '10 digits'],
          ['+299321000', '9 digits'],
          ['+68221234', '8 digits'],
          ['+6834002', '7 digits, a real short number (Niue)'],
        ];
  return numbers.map(([value, what]) => setTo(field, value, `${field} ${value} (${what})`, ['§2.1-1'], 'accepted'));
}

// --- Date-times (§2.1) -----------------------------------------------------------------------------------------

/** §2.1, ISO 8601 with a time-zone offset: fractions of any length. */
export function dateTimeFractions(field: string): Mutation[] {
  return ['123456', '1', '123', '123456789'].map((fraction) => {
    const digits = fraction.length;
    return {
      name: `${field} with ${plural(digits, 'fractional digit')} (e.g. 10:30:00.${fraction}+01:00)`,
      clauses: ['§2.1-2'],
      intent: 'accepted',
      request: ({ doc }) => ({ body: compact(withPath(doc, field, dateTime(new Date(), { fraction }))) }),
    };
  });
}

/** §2.1: any offset: negative, of half hours, the widest (+14:00, -12:00), and zero written +00:00. */
export function dateTimeOffsets(field: string): Mutation[] {
  return [-300, -720, -210, 330, 840, 0].map((minutes) => {
    const sign = minutes < 0 ? '-' : '+';
    const offset = `${sign}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
    return {
      name: `${field} with the offset ${offset}`,
      clauses: ['§2.1-2'],
      intent: 'accepted',
      request: ({ doc }) => ({ body: compact(withPath(doc, field, dateTime(new Date(), { offsetMinutes: minutes }))) }),
    };
  });
}

// --- event_id length (§8, §6.1, §2.4) --------------------------------------------------------------------------

/** `length` characters (code points): the event_id's own, then `filler` (one code point of any UTF-8 width). */
function eventIdOf(prefix: string, length: number, filler: string): string {
  return [...`${prefix}-${filler.repeat(length)}`].slice(0, length).join('');
}

/** §8: one character past the limit, counted in any unit, is refused. */
export const EVENT_ID_PAST_LIMIT: readonly Mutation[] = [
  {
    name: `${MAX_EVENT_ID_LENGTH + 1} ASCII characters`,
    clauses: ['§2.4-2', '§8-2'],
    intent: 'schema',
    request: ({ doc }) => ({
      body: compact({ ...doc, event_id: eventIdOf(String(doc.event_id), MAX_EVENT_ID_LENGTH + 1, 'x') }),
    }),
  },
  {
    name: `${MAX_EVENT_ID_LENGTH + 1} characters, most outside the BMP`,
    clauses: ['§2.4-2', '§8-2'],
    intent: 'schema',
    request: ({ doc }) => ({
      body: compact({ ...doc, event_id: astralPadded(`${String(doc.event_id)}-`, MAX_EVENT_ID_LENGTH + 1) }),
    }),
  },
];
