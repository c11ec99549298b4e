/**
 * The body limit, by its parts (§8, §7): 256 KB, over it 413, counted in bytes whatever the framing. The body at the
 * limit and one byte past it, sent with Content-Length, chunked (no length declared: the receiver must count what
 * arrives) and with `Expect: 100-continue` (the length declared before any byte of the body).
 */
import { MAX_BODY_BYTES } from '../../spec/constants.js';
import { bodyOfSize } from './bodies.js';
import type { OpenPointId } from '../../spec/model/latitude.js';
import type { Mutation } from './mutations.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';

/** 262 144 → "262 144": grouped by hand, as `toLocaleString` would, without loading ICU's locale data at start-up. */
const bytes = (size: number) => String(size).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/**
 * The framings HTTP/1.1 allows, each with the question it raises that the size does not (the model allows a 411 for
 * a chunked body, a 417 for an `Expect`: src/spec/model/latitude.ts); a case about the size sets it aside.
 */
const FRAMINGS: readonly [string, Partial<RequestRecipe>, OpenPointId?][] = [
  ['with Content-Length', {}],
  ['chunked, without Content-Length', { chunked: true }, 'chunked'],
  ['with Expect: 100-continue', { expectContinue: true }, 'expect-continue'],
];

/** A body of `size` bytes of `field` text, in each framing. */
function framed(size: number, intent: Mutation['intent'], field: string): Mutation[] {
  return FRAMINGS.map(([framing, recipe, question]) => ({
    name: `${bytes(size)} bytes ${framing}`,
    clauses: ['§8-1', ...(intent === 'too-large' ? ['§7-5'] : [])],
    intent,
    // A body at the limit refused for its framing is not refused for its size: B-FRAME-001 judges chunked bodies.
    ...(intent === 'accepted' && question ? { aside: [question] } : {}),
    request: ({ doc }) => ({ body: bodyOfSize(doc, field, size), ...recipe }),
    // The session sends Expect through node:http, on a connection of its own: never through a proxy.
    ...(recipe.expectContinue
      ? {
          unjudgeable: (scope: ProbeScope) =>
            scope.session.config.client?.proxy ? 'Expect: 100-continue is not sent through a proxy' : undefined,
        }
      : {}),
  }));
}

/** Interface B (§8 states the limit for events): one byte over it, refused with 413 in every framing. */
export const OVER_THE_LIMIT: readonly Mutation[] = framed(MAX_BODY_BYTES + 1, 'too-large', 'text');

/** Interface B: exactly 262 144 bytes (256 KiB), accepted in every framing (a `should`: KB may be read as 1000). */
export const AT_THE_LIMIT: readonly Mutation[] = framed(MAX_BODY_BYTES, 'accepted', 'text');
