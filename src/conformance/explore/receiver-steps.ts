/**
 * The steps of a generated conversation with a receiver, as data drawn by fast-check: new documents of every shape
 * the spec allows (generate/documents.ts), repeats that keep an event_id and change any other part of the request,
 * new ids made close to earlier ones in the ways an implementation might transform an identifier before comparing
 * it, near-miss invalid documents (generate/mutations.ts), requests that fail authentication with every credential
 * the run has, bodies over the size limit, several deliveries at once, and pauses. A step names earlier ids by
 * their place (`slot`), resolved when it runs, so any sequence is valid and shrinks to any shorter one.
 *
 * fast-check is loaded here: this module is imported only when the stateful phase runs.
 */
import * as fc from 'fast-check';
import type { InterfaceId } from '../../spec/constants.js';
import { validDraft, type Draft, type DraftContext, type IdShape } from '../generate/documents.js';
import { invalidDraft } from '../generate/mutations.js';
import { text } from '../generate/values.js';
import {
  BODY_FORMS,
  FORGERIES,
  ID_TRANSFORMS,
  MALFORMED,
  type BodyForm,
  type Forgery,
  type IdTransform,
  type Malformed,
} from './receiver-requests.js';

/** Which event_id a step's document carries. */
export type IdChoice =
  | { kind: 'fresh'; shape: IdShape }
  /** An event_id the conversation used before (accepted, refused or unknown), by its place. */
  | { kind: 'earlier'; slot: number }
  /** A new event_id made from an earlier one. */
  | { kind: 'near'; slot: number; transform: IdTransform }
  /**
   * A name a language's objects already have (`constructor`, `__proto__`): a memory kept in a plain object finds it
   * there before it was ever sent. Another run may have sent it, so the model takes it for maybe known.
   */
  | { kind: 'builtin'; name: BuiltinName };

/** Names that plain objects, dictionaries and maps of common languages have before anything is stored in them. */
export const BUILTIN_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__class__',
  '__dict__',
  'length',
] as const;
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** How the request is framed and labelled: §2's content type, chunked or sized, and which of the run's secrets signs. */
export interface Wire {
  form: BodyForm;
  chunked: boolean;
  charset: boolean;
  /** Which of the run's secrets signs it (§5.9: all of them verify during a rotation), by place. */
  secret: number;
  /** Chunked with its two chunks meeting between characters, not inside one (the first conversation's). */
  wholeCharacters?: true;
}

export type Step =
  | { kind: 'send'; draft: Draft; id: IdChoice; wire: Wire }
  | { kind: 'invalid'; draft: Draft; id: IdChoice }
  /** The valid document's bytes broken as `how` says; `at` places a cut (a fraction of the body, in thousandths). */
  | { kind: 'malformed'; draft: Draft; id: IdChoice; how: Malformed; at: number }
  | { kind: 'forged'; draft: Draft; id: IdChoice; forgery: Forgery }
  /** Over §8's limit by a long text, or by white space after a small document (a limit measured on the parsed JSON misses it). */
  | { kind: 'oversize'; draft: Draft; id: IdChoice; padding: 'text' | 'whitespace' }
  | { kind: 'burst'; draft: Draft; id: IdChoice; copies: number }
  | { kind: 'together'; steps: readonly SingleStep[] }
  /** Many other new documents, a few at once: what a memory of repeats bounded by count forgets the earlier ones in. */
  | { kind: 'crowd'; draft: Draft; count: number }
  | { kind: 'pause'; ms: number };

/** A step of one request (several, for a burst): what `together` sends at once. */
export type SingleStep = Exclude<Step, { kind: 'together' | 'pause' | 'crowd' }>;

export interface StepContext {
  interface: InterfaceId;
  draft: DraftContext;
}

const slot = fc.nat({ max: 63 });

const idShape: fc.Arbitrary<IdShape> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      tail: fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 3, arbitrary: text(90) }),
      length: fc.oneof(
        { weight: 3, arbitrary: fc.constant<IdShape['length']>('natural') },
        { weight: 1, arbitrary: fc.constant<IdShape['length']>('limit') },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<NonNullable<IdShape['uuid']>>('lower', 'upper')
      .map((uuid): IdShape => ({ tail: '', length: 'natural', uuid })),
  },
);

const freshId: fc.Arbitrary<IdChoice> = idShape.map((shape) => ({ kind: 'fresh', shape }));
const earlierId: fc.Arbitrary<IdChoice> = slot.map((place) => ({ kind: 'earlier', slot: place }));
const nearId: fc.Arbitrary<IdChoice> = fc
  .tuple(slot, fc.constantFrom(...ID_TRANSFORMS))
  .map(([place, transform]) => ({ kind: 'near', slot: place, transform }));
const builtinId: fc.Arbitrary<IdChoice> = fc.constantFrom(...BUILTIN_NAMES).map((name) => ({ kind: 'builtin', name }));

/** New ids most of the time, earlier ones and close ones often enough that repeats and near misses are common. */
const anyId = fc.oneof(
  { weight: 8, arbitrary: freshId },
  { weight: 6, arbitrary: earlierId },
  { weight: 4, arbitrary: nearId },
  { weight: 1, arbitrary: builtinId },
);

const wire: fc.Arbitrary<Wire> = fc.record({
  form: fc.oneof(
    { weight: 4, arbitrary: fc.constant<BodyForm>('compact') },
    { weight: 3, arbitrary: fc.constantFrom(...BODY_FORMS) },
  ),
  chunked: fc.boolean(),
  charset: fc.boolean(),
  secret: fc.nat({ max: 7 }),
});

/** The arbitraries of one step, for a receiver of the interface (a body over §8's limit only where §8 states one). */
export function stepArbitraries(context: StepContext, options: { sizeLimit: boolean }): fc.Arbitrary<Step>[] {
  const valid = validDraft(context.interface, context.draft);
  const invalid = invalidDraft(context.interface, context.draft);
  const send = fc.record({ draft: valid, id: anyId, wire }).map((step): Step => ({ kind: 'send', ...step }));
  const refused = fc
    .record({ draft: invalid, id: fc.oneof(freshId, earlierId) })
    .map((step): Step => ({ kind: 'invalid', ...step }));
  const forged = fc
    .record({ draft: valid, id: fc.oneof(freshId, earlierId), forgery: fc.constantFrom(...FORGERIES) })
    .map((step): Step => ({ kind: 'forged', ...step }));
  const malformed = fc
    .record({
      draft: valid,
      id: fc.oneof(freshId, earlierId),
      how: fc.constantFrom(...MALFORMED),
      at: fc.integer({ min: 1, max: 999 }),
    })
    .map((step): Step => ({ kind: 'malformed', ...step }));
  const burst = fc
    .record({ draft: valid, id: fc.oneof(freshId, earlierId), copies: fc.integer({ min: 2, max: 6 }) })
    .map((step): Step => ({ kind: 'burst', ...step }));
  const together = fc
    .array(fc.oneof(send, forged, refused), { minLength: 2, maxLength: 3 })
    .map((steps): Step => ({ kind: 'together', steps: steps as SingleStep[] }));
  // A memory of repeats bounded by time (a cache's time-to-live) forgets within seconds; by count, within hundreds.
  const pause = fc
    .oneof(fc.integer({ min: 100, max: 1_500 }), fc.integer({ min: 3_000, max: 6_000 }))
    .map((ms): Step => ({ kind: 'pause', ms }));
  const crowd = fc
    .record({ draft: valid, count: fc.integer({ min: 70, max: 160 }) })
    .map((step): Step => ({ kind: 'crowd', ...step }));
  const weighted: { weight: number; arbitrary: fc.Arbitrary<Step> }[] = [
    { weight: 10, arbitrary: send },
    { weight: 4, arbitrary: refused },
    { weight: 2, arbitrary: malformed },
    { weight: 4, arbitrary: forged },
    { weight: 2, arbitrary: burst },
    { weight: 2, arbitrary: together },
    { weight: 1, arbitrary: pause },
    { weight: 1, arbitrary: crowd },
  ];
  if (options.sizeLimit)
    weighted.push({
      weight: 1,
      arbitrary: fc
        .record({ draft: valid, id: fc.oneof(freshId, earlierId), padding: fc.constantFrom('text', 'whitespace') })
        .map((step): Step => ({ kind: 'oversize', ...step })),
    });
  return [fc.oneof(...weighted)];
}
