/**
 * The formats of §2.1 as regular expressions. Every format check is a plain `pattern`, so the JSON Schema
 * emitted from the zod schemas (`cai schema`) expresses exactly the same rules and an independent validator
 * (ajv) reaches the same verdict as `cai validate`. All patterns are written for the `u` flag, which JSON
 * Schema validators use.
 */
import { MAX_EVENT_ID_LENGTH } from './constants.js';

/** §2.1 E.164: `+`, a first digit 1–9, at most 15 digits in all. */
export const E164_PATTERN = /^\+[1-9][0-9]{1,14}$/u;

// A real calendar date: day 29–31 only in the months that have it, 29 February only in leap years
// (divisible by 4, except centuries not divisible by 400).
const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
const DATE = `(?:[0-9]{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
// Hours 00–23, minutes and seconds 00–59, optional fraction. Leap seconds (:60) are refused: the date
// libraries receivers use (JavaScript's Date among them) reject them.
const TIME = '(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?';
const OFFSET = '(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])';

/**
 * §2.1 "ISO 8601 with time-zone offset": the extended calendar form `YYYY-MM-DDThh:mm:ss[.fff]` followed by
 * `Z` or `±hh:mm` (the RFC 3339 profile of ISO 8601). A date-time without an offset is ambiguous, so invalid.
 */
export const DATE_TIME_PATTERN = new RegExp(`^${DATE}T${TIME}${OFFSET}$`, 'u');

/** Letters of `text` matched case-insensitively without a flag (JSON Schema patterns carry no flags). */
function anyCase(text: string): string {
  return text.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);
}

// RFC 5646 §2.1 ABNF. Subtags are case-insensitive (§2.1.1).
const ALPHA = '[A-Za-z]';
const ALNUM = '[A-Za-z0-9]';
const LANGUAGE = `(?:${ALPHA}{2,3}(?:-${ALPHA}{3}){0,3}|${ALPHA}{4}|${ALPHA}{5,8})`;
const SCRIPT = `(?:-${ALPHA}{4})`;
const REGION = `(?:-(?:${ALPHA}{2}|[0-9]{3}))`;
const VARIANT = `(?:-(?:${ALNUM}{5,8}|[0-9]${ALNUM}{3}))`;
const EXTENSION = `(?:-[0-9A-WY-Za-wy-z](?:-${ALNUM}{2,8})+)`;
const PRIVATE_USE = `(?:[Xx](?:-${ALNUM}{1,8})+)`;
const LANGTAG = `${LANGUAGE}${SCRIPT}?${REGION}?${VARIANT}*${EXTENSION}*(?:-${PRIVATE_USE})?`;
// The irregular grandfathered tags; the regular ones (art-lojban, zh-min-nan…) already match `langtag`.
const IRREGULAR = [
  'en-GB-oed',
  'i-ami',
  'i-bnn',
  'i-default',
  'i-enochian',
  'i-hak',
  'i-klingon',
  'i-lux',
  'i-mingo',
  'i-navajo',
  'i-pwn',
  'i-tao',
  'i-tay',
  'i-tsu',
  'sgn-BE-FR',
  'sgn-BE-NL',
  'sgn-CH-DE',
].map(anyCase);

/** §2.1 BCP 47 language tag, well-formed by the RFC 5646 syntax (registry membership is not checked). */
export const LANGUAGE_TAG_PATTERN = new RegExp(`^(?:${LANGTAG}|${PRIVATE_USE}|${IRREGULAR.join('|')})$`, 'u');

/** §2.2 `callback_url`: an absolute http(s) URL with a host and no whitespace. */
export const HTTP_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/u;

/**
 * §2.4, §6.1, §8: `event_id` of 1 to MAX_EVENT_ID_LENGTH (120) characters. Written as a pattern rather than `maxLength` so zod and
 * JSON Schema validators count the same thing: Unicode code points (the `u` flag), not UTF-16 units.
 */
export const EVENT_ID_PATTERN = new RegExp(`^[\\s\\S]{1,${MAX_EVENT_ID_LENGTH}}$`, 'u');

export interface FormatInfo {
  /** What a valid value looks like, for messages. */
  expected: string;
  message: string;
}

/** Pattern source → description, to turn a failed `pattern` into a message a person can act on. */
export const FORMAT_BY_PATTERN: ReadonlyMap<string, FormatInfo> = new Map([
  [
    E164_PATTERN.source,
    {
      message: 'not an E.164 telephone number',
      expected: '"+" and 2 to 15 digits, the first 1-9, e.g. "+447700900123"',
    },
  ],
  [
    DATE_TIME_PATTERN.source,
    {
      message: 'not an ISO 8601 date-time with offset',
      expected: 'a real date and time with Z or ±hh:mm, e.g. "2026-11-22T13:00:00+01:00"',
    },
  ],
  [
    LANGUAGE_TAG_PATTERN.source,
    {
      message: 'not a well-formed BCP 47 language tag',
      expected: 'a tag such as "en", "es-ES" or "zh-Hant-TW"',
    },
  ],
  [
    HTTP_URL_PATTERN.source,
    {
      message: 'not an absolute http(s) URL',
      expected: 'e.g. "https://platform.example/cai/events"',
    },
  ],
  [
    EVENT_ID_PATTERN.source,
    {
      message: `event_id must be 1 to ${MAX_EVENT_ID_LENGTH} characters (§8)`,
      expected: `1 to ${MAX_EVENT_ID_LENGTH} characters`,
    },
  ],
]);

export function isE164(value: string): boolean {
  return E164_PATTERN.test(value);
}

export function isDateTimeWithOffset(value: string): boolean {
  return DATE_TIME_PATTERN.test(value);
}

export function isLanguageTag(value: string): boolean {
  return LANGUAGE_TAG_PATTERN.test(value);
}
