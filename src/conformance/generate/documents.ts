/**
 * Valid documents drawn from the schemas of §2 (src/spec/schemas.ts): events of every type (§2.4–§2.7) and contact
 * jobs (§2.2), each optional field present or absent, each enumeration value, each §2.1 format in its shapes
 * (./values.ts), now and then a field §9.2 says receivers ignore. A draft is a document without its event_id: the
 * run gives each one sent a fresh one (so no run collides with itself or another), with the draft's generated tail
 * and length, so the same seed draws the same documents whatever run sends them.
 */
import { createHash } from 'node:crypto';
import * as fc from 'fast-check';
import {
  AUTHORS,
  BRIEF_INTENTS,
  DIRECTIONS,
  EVENT_CHANNELS,
  EVENT_TYPES,
  MAX_EVENT_ID_LENGTH,
  ORIGIN_CHANNELS,
  OUTCOMES,
  type EventType,
  type InterfaceId,
} from '../../spec/constants.js';
import { eventTypeSpec } from '../../spec/event-types.js';
import type { Doc } from '../probe/bodies.js';
import { dateTime, e164, email, identifier, languageTag, messageText, optional, text, unknownField } from './values.js';

/**
 * How a draft's event_id is made from a fresh one: the fresh id, a hyphen and the generated tail, cut at the §8
 * limit of 120 characters (counted as §8 counts them: characters, not UTF-16 units or bytes); `limit` pads it to
 * exactly 120 with the tail's characters, `over` to 121 (an invalid document).
 */
export interface IdShape {
  tail: string;
  length: 'natural' | 'limit' | 'over';
  /**
   * A UUID instead (tail and length aside), in this case: senders often name events so, and a receiver may keep them
   * in a UUID column, which takes either case (and no hyphens) for the same value; to §2.4 they are other strings.
   */
  uuid?: 'lower' | 'upper';
}

/** A UUID (version 4's layout) made from `fresh`: unique as it is, and the same for the same fresh id. */
function uuidOf(fresh: string, letters: 'lower' | 'upper'): string {
  const hex = createHash('sha256').update(fresh).digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  return letters === 'upper' ? uuid.toUpperCase() : uuid;
}

/** A generated document before it is sent. */
export interface Draft {
  /** The document; its event_id is set at send time when `id` is given. */
  doc: Doc;
  /** Absent when the document carries its own event_id (or none): an invalid document's mutation of it. */
  id?: IdShape;
  /** What makes the document invalid, in words (absent for a valid one). */
  mutation?: string;
}

/** What a run fixes in its documents: a known lead (--lead-id), a catalog branch (--branch-code), the jobs' callback_url. */
export interface DraftContext {
  leadId?: string;
  branchCode?: string;
  callbackUrl: string;
}

/** The event_id a draft is sent with, from a fresh one (see IdShape). */
export function eventIdFor(fresh: string, shape: IdShape): string {
  if (shape.uuid) return uuidOf(fresh, shape.uuid);
  const tail = [...shape.tail];
  const chars = [...(tail.length > 0 ? `${fresh}-${shape.tail}` : fresh)];
  const length =
    shape.length === 'over'
      ? MAX_EVENT_ID_LENGTH + 1
      : shape.length === 'limit'
        ? MAX_EVENT_ID_LENGTH
        : Math.min(chars.length, MAX_EVENT_ID_LENGTH);
  const pad = tail.length > 0 ? tail : ['x'];
  for (let index = 0; chars.length < length; index += 1) chars.push(pad[index % pad.length] as string);
  return chars.slice(0, length).join('');
}

/** The document a draft is sent as, with `fresh` made into its event_id. */
export function materialise(draft: Draft, fresh: string): Doc {
  return draft.id ? { ...draft.doc, event_id: eventIdFor(fresh, draft.id) } : draft.doc;
}

const idShape: fc.Arbitrary<IdShape> = fc.record({
  tail: fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 3, arbitrary: text(90) }),
  length: fc.oneof(
    { weight: 2, arbitrary: fc.constant<IdShape['length']>('natural') },
    { weight: 1, arbitrary: fc.constant<IdShape['length']>('limit') },
  ),
});

/** Only the fields present (fc.record with no required key leaves the others out). */
const someOf = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields, { requiredKeys: [] });

const withExtra = (doc: Doc, extra: [string, unknown] | undefined): Doc =>
  extra ? { ...doc, [extra[0]]: extra[1] } : doc;

/** The fields of an event of `type` beyond `event` and `event_id`: §2.4's envelope, and §2.6's or §2.7's own. */
function eventFields(type: EventType, context: DraftContext) {
  const envelope = {
    lead_id: context.leadId !== undefined ? fc.constant(context.leadId) : identifier,
    provider_job_id: identifier,
    channel: fc.constantFrom(...EVENT_CHANNELS),
    from_number_e164: e164,
    direction: fc.constantFrom(...DIRECTIONS),
    author: fc.constantFrom(...AUTHORS),
    text: messageText,
    occurred_at: dateTime,
  };
  // §2.6: the appointment events carry where and when.
  if (eventTypeSpec(type).section === '§2.6') {
    return {
      ...envelope,
      branch_code: context.branchCode !== undefined ? fc.constant(context.branchCode) : identifier,
      scheduled_at: dateTime,
      service: text(),
      notes: messageText,
    };
  }
  if (type === 'job.closed') {
    // A count of attempts: small as a rule, and any that a 32-bit integer column holds.
    return {
      ...envelope,
      outcome: fc.constantFrom(...OUTCOMES),
      attempts: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
    };
  }
  return envelope;
}

/** A valid event of one type (§2.4–§2.7). */
export function eventDraft(type: EventType, context: DraftContext): fc.Arbitrary<Draft> {
  return fc
    .record({ fields: someOf(eventFields(type, context)), extra: optional(unknownField), id: idShape })
    .map(({ fields, extra, id }) => ({ doc: withExtra({ event: type, event_id: '', ...fields }, extra), id }));
}

/** A valid contact job (§2.2): its callback_url is the run's, so a provider's events for it are answered. */
export function jobDraft(context: DraftContext): fc.Arbitrary<Draft> {
  return fc
    .record({
      required: fc.record({
        lead_id: identifier,
        branch_code: context.branchCode !== undefined ? fc.constant(context.branchCode) : identifier,
        contact: fc.record(
          { name: text(), phone_e164: e164, email, language: languageTag },
          { requiredKeys: ['name', 'phone_e164'] },
        ),
      }),
      city: optional(text()),
      origin: optional(
        someOf({
          channel: fc.constantFrom(...ORIGIN_CHANNELS),
          source: text(),
          campaign: text(),
          captured_at: dateTime,
        }),
      ),
      brief: optional(someOf({ intent: fc.constantFrom(...BRIEF_INTENTS), notes: messageText })),
      extra: optional(unknownField),
      id: idShape,
    })
    .map(({ required, city, origin, brief, extra, id }) => {
      const doc: Doc = { lead_id: required.lead_id, event_id: '', branch_code: required.branch_code };
      if (city !== undefined) doc.city = city;
      doc.contact = required.contact;
      if (origin !== undefined) doc.origin = origin;
      if (brief !== undefined) doc.brief = brief;
      doc.callback_url = context.callbackUrl;
      return { doc: withExtra(doc, extra), id };
    });
}

/** The valid documents of a receiver: events of every type (B), contact jobs (A). */
export function validDraft(iface: InterfaceId, context: DraftContext): fc.Arbitrary<Draft> {
  return iface === 'B' ? fc.oneof(...EVENT_TYPES.map((type) => eventDraft(type, context))) : jobDraft(context);
}
