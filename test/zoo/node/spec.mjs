// The interface as an outside team reads it from interface-spec-v1.0.md alone, in plain Node (node: built-ins
// only), without cai's code: the zoo's Node programs share it so that they can differ from cai, not from each other.
// The Python programs of the zoo (../python) read the spec again on their own.
import { createHmac, timingSafeEqual } from 'node:crypto';

// §6: the five event types, and nothing else.
export const EVENT_TYPES = [
  'conversation.message',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
  'job.closed',
];

export const ENUMS = {
  channel: ['whatsapp', 'webchat', 'sms', 'phone', 'email'], // §2.10
  direction: ['inbound', 'outbound'], // §2.10
  author: ['agent', 'contact', 'human'], // §2.11
  outcome: ['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out'], // §2.12
  originChannel: ['landing_form', 'contact_form', 'webchat', 'whatsapp_button', 'phone', 'referral'], // §2.8
  intent: ['book_appointment', 'pricing_information', 'service_information', 'reschedule', 'follow_up', 'other'], // §2.9
};

// §8 says "256 KB maximum, over it 413". Our reading: KB as 1024 bytes, so 262 144 bytes are within the limit and
// 262 145 are over it. A receiver must not refuse what a sender reading KiB may send; a sender keeps well below.
export const MAX_BODY_BYTES = 262_144;
// §6.1, §8: "at most 120 characters"; a character is a Unicode code point (what [...s] counts), not a UTF-16 unit
// nor a byte.
export const MAX_EVENT_ID_CHARS = 120;
// §5.5: 300 s, in both directions of clock skew.
export const WINDOW_SECONDS = 300;

/** §5.2-§5.3: `sha256=` and the lowercase hex of HMAC-SHA256(secret, timestamp + "." + raw body). */
export function signatureOf(secret, timestamp, body) {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** Compares two strings in constant time (§5.5); unequal lengths are unequal at once, which reveals only the length. */
export function sameSecretString(a, b) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The rules of the formats and enumerations, one function each, so that a deliberately broken receiver swaps one. */
export const RULES = {
  // §2.1 "ISO 8601 with time-zone offset", read as RFC 3339: a full date, `T`, a full time with optional
  // fraction, and `Z` or ±hh:mm (the ISO 8601 basic format and reduced precisions are not taken).
  dateTime(value) {
    const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/.exec(value);
    if (!match) return false;
    const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const offsetOk = match[8] === 'Z' || (Number(match[9]) <= 23 && Number(match[10]) <= 59);
    return (
      month >= 1 && month <= 12 && day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 60 && offsetOk
    );
  },
  // §2.1 E.164: a plus, a country code that does not start with 0, at most 15 digits in all.
  e164: (value) => /^\+[1-9]\d{1,14}$/.test(value),
  // §2.1 BCP 47 (RFC 5646 langtag, private use and the regular grandfathered tags), case-insensitive.
  language: (value) =>
    /^(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:-[\da-wy-z](?:-[a-z\d]{2,8})+)*(?:-x(?:-[a-z\d]{1,8})+)?$/i.test(
      value,
    ) ||
    /^x(?:-[a-z\d]{1,8})+$/i.test(value) ||
    /^(?:i-(?:ami|bnn|default|enochian|hak|klingon|lux|mingo|navajo|pwn|tao|tay|tsu)|en-GB-oed|sgn-(?:BE-FR|BE-NL|CH-DE))$/i.test(
      value,
    ),
  enumValue: (name, value) => ENUMS[name].includes(value),
  eventType: (value) => EVENT_TYPES.includes(value),
  eventIdLength: (value) => [...value].length,
  integer: (value) => Number.isInteger(value),
};

const text = (value) => typeof value === 'string';

/** Checks each field that is present against its rule; `fields` maps a name to a predicate. */
function checkFields(doc, fields, where) {
  for (const [name, ok] of Object.entries(fields)) {
    if (!(name in doc)) continue;
    if (!ok(doc[name])) return `${where}${name} is not valid`;
  }
  return undefined;
}

/**
 * §2.4-§2.7: the problem with an event, or undefined when it is valid. Beyond `event` and `event_id` no field is
 * required (§2.4 does not say which are); every field the spec names is checked where present, and unknown fields
 * are ignored (§9.2). The envelope of §2.4 is that of all Interface B events.
 */
export function eventProblem(doc, rules = RULES) {
  if (!isObject(doc)) return 'the body is not a JSON object';
  if (!text(doc.event)) return 'event is missing or not a string';
  if (!rules.eventType(doc.event)) return 'event is not one of the types of §6';
  if (!text(doc.event_id)) return 'event_id is missing or not a string';
  const length = rules.eventIdLength(doc.event_id);
  if (length < 1 || length > MAX_EVENT_ID_CHARS) return `event_id must have 1 to ${MAX_EVENT_ID_CHARS} characters`;
  const dateTime = (value) => text(value) && rules.dateTime(value);
  const oneOf = (name) => (value) => text(value) && rules.enumValue(name, value);
  const envelope = {
    lead_id: text,
    provider_job_id: text,
    channel: oneOf('channel'),
    from_number_e164: (value) => text(value) && rules.e164(value),
    direction: oneOf('direction'),
    author: oneOf('author'),
    text,
    occurred_at: dateTime,
  };
  const byType = doc.event.startsWith('appointment.')
    ? { branch_code: text, scheduled_at: dateTime, service: text, notes: text } // §2.6
    : doc.event === 'job.closed'
      ? { outcome: oneOf('outcome'), attempts: (value) => rules.integer(value) && value >= 0 } // §2.7
      : {};
  return checkFields(doc, { ...envelope, ...byType }, '');
}

/** §2.2: the problem with a contact job, or undefined when it is valid. */
export function jobProblem(doc, rules = RULES) {
  if (!isObject(doc)) return 'the body is not a JSON object';
  const required = (value) => text(value) && value.length > 0;
  for (const name of ['lead_id', 'event_id', 'branch_code', 'callback_url'])
    if (!required(doc[name])) return `${name} is missing or not a string`;
  if (!/^https?:\/\/[^\s]+$/i.test(doc.callback_url) || !URL.canParse(doc.callback_url))
    return 'callback_url is not an http(s) URL';
  const top = checkFields(doc, { city: text }, '');
  if (top) return top;
  if (!isObject(doc.contact)) return 'contact is missing or not an object';
  if (!text(doc.contact.name)) return 'contact.name is missing or not a string';
  if (!text(doc.contact.phone_e164)) return 'contact.phone_e164 is missing or not a string';
  const contact = checkFields(
    doc.contact,
    { phone_e164: rules.e164, email: text, language: (value) => text(value) && rules.language(value) },
    'contact.',
  );
  if (contact) return contact;
  for (const [name, fields] of [
    [
      'origin',
      {
        channel: (value) => text(value) && rules.enumValue('originChannel', value),
        source: text,
        campaign: text,
        captured_at: (value) => text(value) && rules.dateTime(value),
      },
    ],
    ['brief', { intent: (value) => text(value) && rules.enumValue('intent', value), notes: text }],
  ]) {
    if (!(name in doc)) continue;
    if (!isObject(doc[name])) return `${name} is not an object`;
    const problem = checkFields(doc[name], fields, `${name}.`);
    if (problem) return problem;
  }
  return undefined;
}

/** §2: the body as UTF-8 JSON, or undefined when it is not (a bad byte sequence included). */
export function parseJsonBody(bytes) {
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return undefined;
  }
}
