/**
 * The body limit, by its parts (§8, §7): 256 KB, over it 413, counted in bytes whatever the framing. The body at the
 * limit and one byte past it, sent with Content-Length, chunked (no length declared: the receiver must count what
 * arrives) and with `Expect: 100-continue` (the length declared before any byte of the body).
 */
import { MAX_BODY_BYTES } from '../../spec/constants.js';
import { bodyOfSize } from './bodies.js';
import type { Exchange } from '../evidence.js';
import type { Mutation } from './mutations.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';

const bytes = (size: number) => size.toLocaleString('en-GB').replace(/,/g, ' ');

const FRAMINGS: readonly [string, Partial<RequestRecipe>, Mutation['alsoRefusedWith']?][] = [
  ['with Content-Length', {}],
  ['chunked, without Content-Length', { chunked: true }, { statuses: [411], why: 'a receiver may require Content-Length' }],
  ['with Expect: 100-continue', { expectContinue: true }, { statuses: [417], why: 'a receiver may refuse the expectation' }],
];

/** A body of `size` bytes of `field` text, in each framing. */
function framed(size: number, demand: Mutation['demand'], field: string): Mutation[] {
  return FRAMINGS.map(([framing, recipe, also]) => ({
    name: `${bytes(size)} bytes ${framing}`,
    clauses: ['§8-1', ...(demand === 'too-large' ? ['§7-5'] : [])],
    demand,
    ...(demand !== 'accepted' && also ? { alsoRefusedWith: also } : {}),
    // A body at the limit refused for its framing is not refused for its size: B-FRAME-001 judges chunked bodies.
    ...(demand === 'accepted' && also ? { excused: (answer: Exchange) => (answer.status !== undefined && also.statuses.includes(answer.status) ? `${answer.status}: ${also.why}` : undefined) } : {}),
    request: ({ doc }) => ({ body: bodyOfSize(doc, field, size), ...recipe }),
    // The session sends Expect through node:http, on a connection of its own: never through a proxy.
    ...(recipe.expectContinue ? { unjudgeable: (scope: ProbeScope) => (scope.session.config.client?.proxy ? 'Expect: 100-continue is not sent through a proxy' : undefined) } : {}),
  }));
}

/** Interface B (§8 states the limit for events): one byte over it, refused with 413 in every framing. */
export const OVER_THE_LIMIT: readonly Mutation[] = framed(MAX_BODY_BYTES + 1, 'too-large', 'text');

/** Interface B: exactly 262 144 bytes (256 KiB), accepted in every framing (a `should`: KB may be read as 1000). */
export const AT_THE_LIMIT: readonly Mutation[] = framed(MAX_BODY_BYTES, 'accepted', 'text');
