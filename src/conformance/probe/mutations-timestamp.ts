/**
 * The timestamp's rules, by their parts (§5.4, §5.5): an integer of unix seconds, read from X-CAI-Timestamp and
 * nowhere else, within 300 s of now on either side.
 */
import { SIGNATURE_WINDOW_SECONDS } from '../../spec/constants.js';
import { WINDOW_EDGE_FRACTION, WINDOW_MARGIN_SECONDS } from '../tolerances.js';
import { compact, dateTime, withPath } from './bodies.js';
import { changedBy, type Mutation } from './mutations.js';
import type { TimestampNotation } from './recipe.js';

/**
 * §4.1, §4.2, §5.4: `<unix_seconds>`, integer: the same instant written otherwise, signed as sent (so only its form is
 * wrong). A receiver that parses it with a float or a lenient integer parser accepts one. A leading zero is not among
 * them: whether `0<digits>` is an integer as written is open, and B-AUTH-017 / A-AUTH-015 judge what it binds.
 */
const NOTATIONS: readonly [TimestampNotation, string][] = [
  ['plus-sign', 'the timestamp with a plus sign (+1767225600)'],
  ['decimal', 'the timestamp with a decimal fraction (1767225600.0)'],
  ['exponent', 'the timestamp in exponent notation (1.7672256e9)'],
  ['hex', 'the timestamp in hexadecimal (0x6955b900)'],
];

export const TIMESTAMP_FORM: readonly Mutation[] = [
  {
    name: 'an ISO 8601 date instead of seconds',
    clauses: ['§5.4-1'],
    intent: 'header',
    request: ({ doc }) => ({ body: compact(doc), timestamp: { kind: 'literal', value: new Date().toISOString() } }),
  },
  ...changedBy(NOTATIONS, ['§5.4-1'], 'header', (notation) => ({ timestamp: { kind: 'written', notation } })),
];

/** How far from now a timestamp is that stands clear of the §5.5 window's edge: outside the window, or inside it. */
export const OUTSIDE = SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS;
export const INSIDE = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;

/**
 * §5.5: the window's edges on both sides. Outside: 60 s clear of the edge, and one second past it (301 s). Inside:
 * 60 s clear, and on the edge itself (300 s: the spec says a request *outside* the window is rejected, and 300 s is
 * not outside a window of 300 seconds). Whole seconds, as the timestamp is.
 *
 * A case one second from the edge is sent at `fraction` of cai's second (tolerances.ts): where the target's clock
 * agrees with cai's to the second, it then reads the timestamp on the side the case means; where cai cannot be sure
 * (another offset, a slow answer), the model leaves the case undecided and it is sent again, then not judged.
 */
function windowSide(side: 'past' | 'future', outside: boolean): readonly Mutation[] {
  const sign = side === 'past' ? -1 : 1;
  const [clear, edge, edgeWords, intent, fraction] = outside
    ? ([
        OUTSIDE,
        SIGNATURE_WINDOW_SECONDS + 1,
        'one second outside',
        'authentication',
        WINDOW_EDGE_FRACTION[side],
      ] as const)
    : ([INSIDE, SIGNATURE_WINDOW_SECONDS, 'on the edge', 'accepted', WINDOW_EDGE_FRACTION.inside] as const);
  const rows: [[number, number?], string][] = [
    [[sign * clear], `a timestamp ${clear} s in the ${side}`],
    [[sign * edge, fraction], `a timestamp ${edge} s in the ${side} (${edgeWords})`],
  ];
  const clauses = intent === 'accepted' ? ['§5.5-2'] : ['§5.5-1', '§8-3'];
  return changedBy(rows, clauses, intent, ([shiftSeconds, at]) => ({
    timestamp: { kind: 'now', shiftSeconds },
    ...(at !== undefined ? { atSecondFraction: at } : {}),
  }));
}

export const WINDOW_PAST_OUTSIDE = windowSide('past', true);
export const WINDOW_FUTURE_OUTSIDE = windowSide('future', true);
export const WINDOW_PAST_INSIDE = windowSide('past', false);
export const WINDOW_FUTURE_INSIDE = windowSide('future', false);

const HOUR_MS = 3_600_000;

/**
 * §5.4: the timestamp is taken from X-CAI-Timestamp. The clock the window is measured against is that header's and
 * no other: not the document's own date-time, not an HTTP `Date` header of the request.
 */
export const WINDOW_SOURCE: readonly Mutation[] = [
  {
    name: 'a fresh X-CAI-Timestamp on a document whose date-time is an hour old',
    clauses: ['§5.4-1', '§5.5-2'],
    intent: 'accepted',
    request: ({ doc, dateTimeField }) => ({
      body: compact(withPath(doc, dateTimeField, dateTime(new Date(Date.now() - HOUR_MS)))),
    }),
  },
  {
    name: 'a fresh X-CAI-Timestamp with a Date header an hour old',
    clauses: ['§5.4-1', '§5.5-2'],
    intent: 'accepted',
    request: ({ doc }) => ({ body: compact(doc), headers: { date: new Date(Date.now() - HOUR_MS).toUTCString() } }),
  },
  {
    name: `an X-CAI-Timestamp ${OUTSIDE} s old on a document whose date-time is now`,
    clauses: ['§5.4-1', '§5.5-1'],
    intent: 'authentication',
    request: ({ doc, dateTimeField }) => ({
      body: compact(withPath(doc, dateTimeField, dateTime(new Date()))),
      timestamp: { kind: 'now', shiftSeconds: -OUTSIDE },
    }),
  },
];
