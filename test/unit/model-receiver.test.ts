/**
 * The model of a receiver (src/spec/model): the facts it reads from a request's bytes, the answers it allows in a
 * state, how the state moves, and the agreement between the model and the mutation catalogue — two statements of one
 * rule, each written apart: every mutation's intent is what the model makes of the request it builds.
 */
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { event, job } from '../../src/conformance/checks/receiver/receivers.js';
import {
  ATTEMPTS_MISSES,
  AUTHOR_MISSES,
  CHANNEL_MISSES,
  DIRECTION_MISSES,
  e164Misses,
  EVENT_ENUMERATIONS,
  EVENT_ID_PAST_LIMIT,
  EVENT_TYPE_MISSES,
  INTENT_MISSES,
  JOB_ENUMERATIONS,
  ORIGIN_CHANNEL_MISSES,
  OUTCOME_MISSES,
} from '../../src/conformance/probe/mutations-document.js';
import { identityVariants } from '../../src/conformance/probe/mutations.js';
import { AT_THE_LIMIT, OVER_THE_LIMIT } from '../../src/conformance/probe/mutations.js';
import type { Mutation } from '../../src/conformance/probe/mutations.js';
import { DIGEST, DIGEST_LENGTH, SIGNATURE_SPELLING, SIGNED_STRING } from '../../src/conformance/probe/mutations.js';
import {
  TIMESTAMP_FORM,
  WINDOW_FUTURE_INSIDE,
  WINDOW_FUTURE_OUTSIDE,
  WINDOW_PAST_INSIDE,
  WINDOW_PAST_OUTSIDE,
  WINDOW_SOURCE,
} from '../../src/conformance/probe/mutations.js';
import type { RequestRecipe } from '../../src/conformance/probe/recipe.js';
import { modelRequestOf, ProbeScope } from '../../src/conformance/probe/scope.js';
import { Session } from '../../src/conformance/probe/session.js';
import { judgeAnswer } from '../../src/conformance/probe/verdict.js';
import type { Exchange } from '../../src/conformance/evidence.js';
import { sign } from '../../src/signing/sign.js';
import type { InterfaceId } from '../../src/spec/constants.js';
import { breachesOf, inSet, type ModelAnswer } from '../../src/spec/model/answers.js';
import { requestFacts, type ModelRequest } from '../../src/spec/model/facts.js';
import { concurrentBreach, ReceiverModel } from '../../src/spec/model/receiver.js';

const SECRET = 'whsec_model_test';
const NOW = 1_767_225_600;
const CLOCK = { earliest: NOW, latest: NOW };

function session(iface: InterfaceId): Session {
  const built = new Session({
    interface: iface,
    url: 'http://127.0.0.1:1/events',
    identity: iface === 'B' ? 'acme' : 'platform-1',
    secrets: [SECRET],
    timeoutMs: 1000,
    dispatcher: new Agent(),
  });
  built.clock = { offsetSeconds: 0, dateHeader: null };
  return built;
}

/** A request as the model reads it, built as the probes build it. */
function requestOf(iface: InterfaceId, recipe: RequestRecipe): ModelRequest {
  return modelRequestOf(session(iface).build(recipe), iface);
}

const nowFacts = (iface: InterfaceId, recipe: RequestRecipe) =>
  requestFacts(
    requestOf(iface, recipe),
    { identity: iface === 'B' ? 'acme' : 'platform-1', secrets: [SECRET] },
    { earliest: Math.floor(Date.now() / 1000), latest: Math.floor(Date.now() / 1000) },
  );

const answer = (status: number, body: unknown = '', headers: Record<string, string> = {}): ModelAnswer => ({
  status,
  headers: body === '' ? headers : { 'content-type': 'application/json', ...headers },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

const doc = { event: 'conversation.message', event_id: 'evt-model-1', lead_id: 'lead-1', text: 'hello' };
const body = Buffer.from(JSON.stringify(doc));
const signed = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  interface: 'B',
  headers: {
    'content-type': 'application/json',
    'x-cai-provider': 'acme',
    'x-cai-timestamp': String(NOW),
    'x-cai-signature': sign(SECRET, NOW, body),
  },
  body,
  ...overrides,
});
const credentials = { identity: 'acme', secrets: [SECRET] };

describe('the facts of a request', () => {
  it('a valid, authentic request has no fault and raises no question', () => {
    expect(requestFacts(signed(), credentials, CLOCK)).toEqual({
      interface: 'B',
      faults: [],
      open: [],
      eventId: 'evt-model-1',
      identity: 'acme',
    });
  });

  it.each([
    ['another secret', { 'x-cai-signature': sign('other', NOW, body) }, 'authentication'],
    ['no signature', { 'x-cai-signature': undefined }, 'header'],
    [
      'a timestamp in milliseconds (13 digits: not the integer of seconds §5.4 reads)',
      { 'x-cai-timestamp': `${NOW}000`, 'x-cai-signature': sign(SECRET, `${NOW}000`, body) },
      'header',
    ],
    [
      'a timestamp 301 s old',
      { 'x-cai-timestamp': String(NOW - 301), 'x-cai-signature': sign(SECRET, NOW - 301, body) },
      'authentication',
    ],
    ['another provider', { 'x-cai-provider': 'ACME' }, 'authentication'],
    ['no provider', { 'x-cai-provider': undefined }, 'header'],
  ])('%s is a fault of its kind', (_name, headers, kind) => {
    const merged = Object.fromEntries(
      Object.entries({ ...signed().headers, ...headers }).filter(([, value]) => value !== undefined),
    ) as Record<string, string>;
    expect(requestFacts(signed({ headers: merged }), credentials, CLOCK).faults.map((fault) => fault.kind)).toEqual([
      kind,
    ]);
  });

  it('a timestamp on the edge, read by a clock known to a span of seconds, is an open question, not a fault', () => {
    const headers = {
      ...signed().headers,
      'x-cai-timestamp': String(NOW - 300),
      'x-cai-signature': sign(SECRET, NOW - 300, body),
    };
    const facts = requestFacts(signed({ headers }), credentials, { earliest: NOW, latest: NOW + 1 });
    expect(facts.faults).toEqual([]);
    expect(facts.open.map((point) => point.id)).toEqual(['window-edge']);
  });

  it('a refusal of a timestamp on the edge is not judged, at the level of a `should` as of a `must`', () => {
    const stamp = NOW + 300;
    const headers = {
      ...signed().headers,
      'x-cai-timestamp': String(stamp),
      'x-cai-signature': sign(SECRET, stamp, body),
    };
    const facts = requestFacts(signed({ headers }), credentials, { earliest: NOW - 1, latest: NOW + 1 });
    const expected = new ReceiverModel('B').expect(facts);
    expect(expected.should).not.toEqual(expected.must);
    const exchange = { status: 401, headers: {}, body: Buffer.from('{}'), expected } as unknown as Exchange;
    for (const level of ['must', 'should'] as const)
      expect(judgeAnswer(exchange, { level }).verdict).toBe('not-judged');
    expect(judgeAnswer({ ...exchange, status: 202 } as Exchange, { level: 'should' }).verdict).toBe('not-judged');
  });

  it('the right MAC spelled in upper case raises the question of its spelling (a `should`), not a fault', () => {
    const valid = sign(SECRET, NOW, body);
    const facts = requestFacts(
      signed({ headers: { ...signed().headers, 'x-cai-signature': `sha256=${valid.slice(7).toUpperCase()}` } }),
      credentials,
      CLOCK,
    );
    expect(facts.faults).toEqual([]);
    expect(facts.open.map((point) => point.id)).toEqual(['signature-spelling']);
  });

  it('an invalid document is a fault on B and an open question on A; a null optional field is arguable on both', () => {
    const invalid = Buffer.from(JSON.stringify({ ...doc, channel: 'carrier_pigeon' }));
    const headers = { ...signed().headers, 'x-cai-signature': sign(SECRET, NOW, invalid) };
    expect(
      requestFacts(signed({ body: invalid, headers }), credentials, CLOCK).faults.map((fault) => fault.kind),
    ).toEqual(['schema']);
    const nulled = Buffer.from(JSON.stringify({ ...doc, text: null }));
    const facts = requestFacts(
      signed({ body: nulled, headers: { ...headers, 'x-cai-signature': sign(SECRET, NOW, nulled) } }),
      credentials,
      CLOCK,
    );
    expect(facts.open.map((point) => point.id)).toEqual(['arguable-document']);
  });
});

describe('the answers the model allows, state by state', () => {
  it('B: a new event is accepted by any 2xx that does not claim a duplicate; once accepted, its repeat gets §2.13', () => {
    const model = new ReceiverModel('B');
    const facts = requestFacts(signed(), credentials, CLOCK);
    const first = model.expect(facts);
    expect(first.standing).toBe('new');
    expect(breachesOf(first.terms, answer(200, { ok: true }), { level: 'must' })).toEqual([]);
    expect(
      breachesOf(first.terms, answer(202, { ok: true, duplicate: true }), { level: 'must' }).map(
        (breach) => breach.term,
      ),
    ).toEqual(['new']);
    expect(breachesOf(first.terms, answer(500), { level: 'must' }).map((breach) => breach.term)).toEqual(['outcome']);
    model.observe(first, answer(202, { ok: true }));
    const repeat = model.expect(requestFacts(signed(), credentials, CLOCK));
    expect(repeat.standing).toBe('repeat');
    expect(breachesOf(repeat.terms, answer(202, { ok: true, duplicate: true }), { level: 'must' })).toEqual([]);
    expect(breachesOf(repeat.terms, answer(202, { ok: true }), { level: 'must' }).map((breach) => breach.term)).toEqual(
      ['repeat'],
    );
    expect(
      breachesOf(repeat.terms, answer(200, { ok: true, duplicate: true }), { level: 'must' }).map(
        (breach) => breach.term,
      ),
    ).toEqual(['repeat']);
    expect(
      breachesOf(repeat.terms, answer(202, { ok: true, duplicate: true }, { 'content-type': 'text/plain' }), {
        level: 'must',
      }).map((breach) => breach.term),
    ).toEqual(['json-label']);
  });

  it('a refusal leaves no trace; no answer leaves the event maybe accepted, so either answer to its repeat is right', () => {
    const model = new ReceiverModel('B');
    const forged = requestFacts(
      signed({ headers: { ...signed().headers, 'x-cai-signature': sign('other', NOW, body) } }),
      credentials,
      CLOCK,
    );
    const refused = model.expect(forged);
    expect(inSet(refused.must, 401)).toBe(true);
    model.observe(refused, answer(401, { ok: false }));
    expect(model.expect(requestFacts(signed(), credentials, CLOCK)).standing).toBe('new');
    model.observe(model.expect(requestFacts(signed(), credentials, CLOCK)), {
      headers: {},
      body: Buffer.alloc(0),
      error: 'reset',
    });
    const after = model.expect(requestFacts(signed(), credentials, CLOCK));
    expect(after.standing).toBe('new-or-repeat');
    expect(breachesOf(after.terms, answer(202, { ok: true }), { level: 'must' })).toEqual([]);
    expect(breachesOf(after.terms, answer(202, { ok: true, duplicate: true }), { level: 'must' })).toEqual([]);
  });

  it('A: a new job gets 202 with the §2.3 acknowledgment of its own; its repeat the same provider_job_id', () => {
    const model = new ReceiverModel('A');
    const factsOf = (id: string) =>
      nowFacts('A', {
        body: Buffer.from(JSON.stringify({ ...job(new ProbeScope(session('A'), { id: 'T' })), event_id: id })),
      });
    const first = model.expect(factsOf('job-1'));
    expect(
      breachesOf(first.terms, answer(200, { provider_job_id: 'p1', assigned_number_e164: '+34600000001' }), {
        level: 'must',
      }).map((breach) => breach.term),
    ).toEqual(['status']);
    expect(
      breachesOf(first.terms, answer(202, { provider_job_id: 7, assigned_number_e164: '+34600000001' }), {
        level: 'must',
      }).map((breach) => breach.term),
    ).toEqual(['acknowledgment']);
    model.observe(first, answer(202, { provider_job_id: 'p1', assigned_number_e164: '+34600000001' }));
    const repeat = model.expect(factsOf('job-1'));
    expect(
      breachesOf(repeat.terms, answer(202, { provider_job_id: 'p2', assigned_number_e164: '+34600000001' }), {
        level: 'must',
      }).map((breach) => breach.term),
    ).toEqual(['repeat']);
    const other = model.expect(factsOf('JOB-1'));
    expect(
      breachesOf(other.terms, answer(202, { provider_job_id: 'p1', assigned_number_e164: '+34600000001' }), {
        level: 'must',
      }).map((breach) => breach.term),
    ).toEqual(['new']);
  });

  it('deliveries of one new event_id at once: exactly one new on B, one provider_job_id on A', () => {
    const model = new ReceiverModel('B');
    const together = model.expectTogether([
      requestFacts(signed(), credentials, CLOCK),
      requestFacts(signed(), credentials, CLOCK),
    ]);
    expect(together.map((each) => each.standing)).toEqual(['new-or-repeat', 'new-or-repeat']);
    expect(
      concurrentBreach('B', together, [answer(202, { ok: true }), answer(202, { ok: true, duplicate: true })]),
    ).toBeUndefined();
    expect(concurrentBreach('B', together, [answer(202, { ok: true }), answer(202, { ok: true })])).toMatch(
      /not answered as a repeat: more than one taken as new/,
    );
    expect(
      concurrentBreach('B', together, [
        answer(202, { ok: true, duplicate: true }),
        answer(202, { ok: true, duplicate: true }),
      ]),
    ).toMatch(/none recorded/);
    expect(
      concurrentBreach('A', together, [answer(202, { provider_job_id: 'a' }), answer(202, { provider_job_id: 'b' })]),
    ).toMatch(/2 different provider_job_ids/);
  });
});

/** Every mutation of the catalogue, with the receiver it is sent to. */
const B_MUTATIONS: readonly Mutation[] = [
  SIGNED_STRING,
  DIGEST,
  DIGEST_LENGTH,
  SIGNATURE_SPELLING,
  TIMESTAMP_FORM,
  WINDOW_PAST_OUTSIDE,
  WINDOW_FUTURE_OUTSIDE,
  WINDOW_PAST_INSIDE,
  WINDOW_FUTURE_INSIDE,
  WINDOW_SOURCE,
  OVER_THE_LIMIT,
  AT_THE_LIMIT,
  EVENT_TYPE_MISSES,
  CHANNEL_MISSES,
  DIRECTION_MISSES,
  AUTHOR_MISSES,
  OUTCOME_MISSES,
  ATTEMPTS_MISSES,
  EVENT_ID_PAST_LIMIT,
  EVENT_ENUMERATIONS,
  e164Misses('from_number_e164', ['§2.1-1']),
  identityVariants('X-CAI-Provider', ['§5.6-1'], 'authentication'),
].flat();
const A_MUTATIONS: readonly Mutation[] = [
  SIGNED_STRING,
  DIGEST,
  TIMESTAMP_FORM,
  WINDOW_PAST_OUTSIDE,
  WINDOW_FUTURE_INSIDE,
  JOB_ENUMERATIONS,
  ORIGIN_CHANNEL_MISSES,
  INTENT_MISSES,
].flat();

/** What the intent of a mutation means on a receiver: acceptance, or the refusal of its kind (§7 on B, any 4xx on A). */
function intended(iface: InterfaceId, intent: Mutation['intent']): { accept: boolean; statuses: number[] } {
  if (intent === 'accepted') return { accept: true, statuses: [202] };
  if (iface === 'A') return { accept: false, statuses: [400, 401, 403, 422] };
  return {
    accept: false,
    statuses: { authentication: [401], header: [400, 401], schema: [400], 'too-large': [413] }[intent],
  };
}

describe('the model agrees with every mutation of the catalogue (two statements of one rule)', () => {
  it.each([
    ...B_MUTATIONS.map((mutation) => ['B', mutation.name, mutation] as const),
    ...A_MUTATIONS.map((mutation) => ['A', mutation.name, mutation] as const),
  ])('%s: %s', (iface, _name, mutation) => {
    const scope = new ProbeScope(session(iface), { id: 'M' });
    const valid = iface === 'B' ? event(scope, mutation.on) : job(scope);
    const recipe = mutation.request({
      scope,
      doc: valid,
      dateTimeField: iface === 'B' ? 'occurred_at' : 'origin.captured_at',
    });
    const expectation = new ReceiverModel(iface).expect(nowFacts(iface, recipe));
    const { accept, statuses } = intended(iface, mutation.intent);
    // The level the check judges the mutation at: a `should` for the questions the spec leaves open.
    const set = expectation.should;
    for (const status of statuses)
      expect(inSet(set, status), `${mutation.name}: ${status} at the level of a should`).toBe(true);
    expect(inSet(set, 202), `${mutation.name}: acceptance`).toBe(accept);
    if (!accept && iface === 'B' && mutation.intent !== 'header')
      expect(inSet(expectation.must, 202), `${mutation.name}: acceptance at the level of a must`).toBe(false);
  });
});
