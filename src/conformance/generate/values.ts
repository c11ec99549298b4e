/**
 * The values of generated documents, as fast-check arbitraries: every shape §2.1 allows for its formats, text in
 * every Unicode plane, identifiers, and the near misses of each (the invalid documents' mutations). A value's
 * arbitrary shrinks towards its plainest form (an ASCII letter, `Z`, no fraction), so a failing document shrinks
 * to the one shape that fails.
 *
 * Loaded only by a run with generated documents (fast-check is imported here, never on another command's path).
 */
import * as fc from 'fast-check';

const DIGIT = fc.constantFrom(...'0123456789');
const two = (value: number) => String(value).padStart(2, '0');

// --- §2.1 date and time: ISO 8601 with a time-zone offset -----------------------------------------------------

/**
 * Offsets of real places, the odd ones included: India (+05:30), Nepal (+05:45), Chatham (+12:45), Newfoundland
 * (-03:30), the Marquesas (-09:30), Kiribati (+14:00), Baker Island (-12:00).
 */
const REAL_OFFSETS = [
  '+00:00',
  '+01:00',
  '-05:00',
  '+05:30',
  '+05:45',
  '+12:45',
  '-03:30',
  '-09:30',
  '+14:00',
  '-12:00',
  '+09:30',
  '+03:00',
  '-08:00',
] as const;

/** `Z`, a real place's offset, or any `±hh:mm` the format allows (hours 00–23, minutes 00–59). */
export const offset: fc.Arbitrary<string> = fc.oneof(
  fc.constant('Z'),
  fc.constantFrom(...REAL_OFFSETS),
  fc
    .record({
      sign: fc.constantFrom('+', '-'),
      hours: fc.integer({ min: 0, max: 23 }),
      minutes: fc.integer({ min: 0, max: 59 }),
    })
    .map(({ sign, hours, minutes }) => `${sign}${two(hours)}:${two(minutes)}`),
);

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** The digits after the seconds' dot (1 to 9 of them), or empty for none. */
  fraction: string;
  offset: string;
}

/**
 * The parts of a date-time: years this century (the dates of contacts and appointments; a receiver's date type
 * need not reach year 0), any real calendar day (29 February of leap years included), any time, a fraction of
 * 1 to 9 digits or none, any offset.
 */
const dateTimeParts: fc.Arbitrary<DateTimeParts> = fc
  .record({
    year: fc.integer({ min: 2000, max: 2099 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.string({ unit: DIGIT, minLength: 0, maxLength: 9 }),
    offset,
  })
  .map((parts) => ({ ...parts, day: Math.min(parts.day, daysIn(parts.year, parts.month)) }));

function formatDateTimeParts(parts: DateTimeParts): string {
  const fraction = parts.fraction === '' ? '' : `.${parts.fraction}`;
  return `${parts.year}-${two(parts.month)}-${two(parts.day)}T${two(parts.hour)}:${two(parts.minute)}:${two(parts.second)}${fraction}${parts.offset}`;
}

export const dateTime: fc.Arbitrary<string> = dateTimeParts.map(formatDateTimeParts);

/**
 * Date-times that are surely not ISO 8601 with an offset (§2.1), each one change from a valid one. Shapes that
 * some reading of ISO 8601 or RFC 3339 allows and cai's validator refuses (a lower-case `t`, a comma before the
 * fraction, a leap second, `+0100` in an extended date) are not used: a receiver that accepts them is not wrong.
 */
const DATE_TIME_MISSES: readonly [string, (parts: DateTimeParts) => string][] = [
  ['without an offset', (parts) => formatDateTimeParts(parts).replace(/(Z|[+-]\d\d:\d\d)$/, '')],
  ['with a space for the T', (parts) => formatDateTimeParts(parts).replace('T', ' ')],
  ['a date alone', (parts) => formatDateTimeParts(parts).slice(0, 10)],
  ['in month 13', (parts) => formatDateTimeParts({ ...parts, month: 1 }).replace(/^(\d{4})-01-/, '$1-13-')],
  ['on day 32', (parts) => formatDateTimeParts({ ...parts, day: 1 }).replace(/^(\d{4}-\d\d)-01T/, '$1-32T')],
  ['on 30 February', (parts) => formatDateTimeParts({ ...parts, month: 2, day: 1 }).replace(/-02-01T/, '-02-30T')],
  ['at hour 24', (parts) => formatDateTimeParts({ ...parts, hour: 0 }).replace(/T00:/, 'T24:')],
  ['at minute 60', (parts) => formatDateTimeParts({ ...parts, minute: 0 }).replace(/(T\d\d):00:/, '$1:60:')],
  ['with an offset of 24 hours', (parts) => formatDateTimeParts({ ...parts, offset: '+24:00' })],
  ['with an offset of 60 minutes', (parts) => formatDateTimeParts({ ...parts, offset: '+05:60' })],
  [
    'with a dot and no fraction',
    (parts) => formatDateTimeParts({ ...parts, fraction: '' }).replace(/(T\d\d:\d\d:\d\d)/, '$1.'),
  ],
  [
    'as unix seconds',
    (parts) =>
      String(
        Math.floor(Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) / 1000),
      ),
  ],
  ['with a two-digit year', (parts) => formatDateTimeParts(parts).slice(2)],
];

export const dateTimeMiss: fc.Arbitrary<{ value: string; why: string }> = fc
  .tuple(fc.constantFrom(...DATE_TIME_MISSES), dateTimeParts)
  .map(([[why, miss], parts]) => ({ value: miss(parts), why: `a date-time ${why}` }));

// --- §2.1 telephone: E.164 ------------------------------------------------------------------------------------

/** `+`, a first digit 1–9 and 8 to 15 digits in all (the lengths of real national plans, Niue's 7 aside). */
export const e164: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.string({ unit: DIGIT, minLength: 7, maxLength: 14 }))
  .map(([first, rest]) => `+${first}${rest}`);

const E164_MISSES: readonly [string, (number: string) => string][] = [
  ['without its +', (number) => number.slice(1)],
  ['with 00 for the +', (number) => `00${number.slice(1)}`],
  ['with spaces', (number) => `${number.slice(0, 3)} ${number.slice(3, 7)} ${number.slice(7)}`],
  ['with dashes', (number) => `${number.slice(0, 3)}-${number.slice(3)}`],
  ['of 16 digits', (number) => `${number}${'0'.repeat(16 - (number.length - 1))}`],
  ['starting with +0', (number) => `+0${number.slice(2)}`],
  ['with a letter', (number) => `${number.slice(0, -1)}x`],
  ['in parentheses', (number) => `+${number.slice(1, 3)} (${number.slice(3, 6)}) ${number.slice(6)}`],
  // Digits to Unicode, not to E.164 (ASCII 0-9): what a pattern of Unicode digits (Python's \d) lets through.
  [
    'in Arabic-Indic digits',
    (number) => `+${[...number.slice(1)].map((digit) => String.fromCharCode(0x660 + Number(digit))).join('')}`,
  ],
];

export const e164Miss: fc.Arbitrary<{ value: string; why: string }> = fc
  .tuple(fc.constantFrom(...E164_MISSES), e164)
  .map(([[why, miss], number]) => ({ value: miss(number), why: `a telephone number ${why}` }));

// --- §2.1 language: BCP 47 ------------------------------------------------------------------------------------

const LANGUAGES = [
  'en',
  'es',
  'pt',
  'fr',
  'de',
  'zh',
  'ja',
  'ar',
  'tr',
  'sl',
  'nl',
  'yue',
  'ast',
  'gsw',
  'haw',
] as const;
const SCRIPTS = ['Latn', 'Cyrl', 'Hant', 'Hans', 'Arab'] as const;
const REGIONS = ['GB', 'US', 'ES', 'BR', 'PT', 'TW', 'MX', '419', '001'] as const;
const VARIANTS = ['1996', 'rozaj', 'valencia', 'fonipa'] as const;
const EXTENSIONS = ['u-ca-gregory', 'u-nu-latn', 't-en', 'u-co-phonebk'] as const;
const PRIVATE_USE = ['x-cai', 'x-twain', 'x-private1'] as const;
/**
 * A tag of its own shape: private use alone. The irregular grandfathered tags (`i-klingon`, RFC 5646 §2.2.8) are
 * well-formed but deprecated, and a receiver that knows only the `langtag` production refuses them defensibly: they
 * are not drawn.
 */
const WHOLE_TAGS = ['x-whatever', 'x-cai-private'] as const;

export const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

/**
 * Well-formed BCP 47 tags (RFC 5646 §2.1) of several shapes: a language alone, with a script, a region (letters
 * or UN M.49 digits), variants, extensions and private use, in any letter case (§2.1.1: case carries no meaning).
 * Subtags come from the registry, so a receiver that checks them against it is not caught out by an invented one.
 */
export const languageTag: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        language: fc.constantFrom(...LANGUAGES),
        script: optional(fc.constantFrom(...SCRIPTS)),
        region: optional(fc.constantFrom(...REGIONS)),
        variant: optional(fc.constantFrom(...VARIANTS)),
        extension: optional(fc.constantFrom(...EXTENSIONS)),
        privateUse: optional(fc.constantFrom(...PRIVATE_USE)),
        letterCase: fc.constantFrom('canonical', 'lower', 'upper'),
      })
      .map(({ letterCase, ...parts }) => {
        const tag = [parts.language, parts.script, parts.region, parts.variant, parts.extension, parts.privateUse]
          .filter((part) => part !== undefined)
          .join('-');
        return letterCase === 'lower' ? tag.toLowerCase() : letterCase === 'upper' ? tag.toUpperCase() : tag;
      }),
  },
  { weight: 1, arbitrary: fc.constantFrom(...WHOLE_TAGS) },
);

const LANGUAGE_MISSES: readonly [string, string][] = [
  ['with an underscore', 'en_GB'],
  ['as a name', 'English (UK)'],
  ['of one letter', 'e'],
  ['ending in a hyphen', 'en-'],
  ['with an empty subtag', 'en--GB'],
  ['with a 9-letter subtag', 'en-abcdefghi'],
  ['with a space', 'en GB'],
  ['empty', ''],
];

export const languageMiss: fc.Arbitrary<{ value: string; why: string }> = fc
  .constantFrom(...LANGUAGE_MISSES)
  .map(([why, value]) => ({ value, why: `a language tag ${why}` }));

// --- Text and identifiers --------------------------------------------------------------------------------------

const SURROGATES = 0x800;
const LAST_CODE_POINT = 0x10ffff;

/**
 * Any code point but the surrogates, from `a` up (so that text shrinks to `a`s). fast-check's own unit of any code
 * point (`binary`) builds a table of all of them at first use: seconds of a run for nothing.
 */
const codePoint: fc.Arbitrary<string> = fc.integer({ min: 0, max: LAST_CODE_POINT - SURROGATES }).map((n) => {
  const shifted = (n + 0x61) % (LAST_CODE_POINT - SURROGATES + 1);
  return String.fromCodePoint(shifted < 0xd800 ? shifted : shifted + SURROGATES);
});

/**
 * Text in every Unicode plane: ASCII, whole graphemes (accents, scripts, emoji sequences), and any code point
 * (astral ones, controls, noncharacters; never a lone surrogate, which UTF-8 cannot carry, §2). Empty too:
 * §2 types these fields as strings and requires nothing of their length.
 */
export function text(maxLength = 40): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: codePoint, maxLength }),
  );
}

/** A longer text now and then (a message of a few hundred characters, still far under §8's 256 KB). */
export const messageText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: text() },
  { weight: 1, arbitrary: text(600) },
);

/** A non-empty identifier (§2.2, §2.4: strings, never empty): mostly an ASCII token, sometimes any text. */
export const identifier: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:'),
      minLength: 1,
      maxLength: 40,
    }),
  },
  { weight: 1, arbitrary: fc.string({ unit: codePoint, minLength: 1, maxLength: 40 }) },
);

/** A plausible e-mail address, or now and then any text (§2.2 types contact.email as a string). */
export const email: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: text() },
);

/** A field §9.2 lets a receiver ignore: the documents carry one now and then. */
export const unknownField: fc.Arbitrary<[string, unknown]> = fc.tuple(
  fc.constantFrom('x_cai_extra', 'metadata', 'priority'),
  fc.oneof(
    text(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), text(), { maxKeys: 3 }),
  ),
);
