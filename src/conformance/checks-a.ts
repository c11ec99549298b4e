/**
 * Interface A checks: the provider's contact-jobs endpoint (§4.1) as a receiver, and, with a callback listener,
 * the events the provider sends back (§3 step 5, §4.2, §5). §4.1 leaves the provider's error statuses open,
 * so any 4xx counts as a rejection here; a 5xx never does.
 */
import { randomBytes } from 'node:crypto';
import { validateDocument } from '../spec/validate.js';
import { verify } from '../signing/verify.js';
import { Headers, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { compact, escapedField, jobDoc, looseLayout, NON_ASCII_TEXT, reversedKeys, withPath, type Doc } from './bodies.js';
import { expectStatus, type CheckDefinition, type CheckScope } from './define.js';
import { describeAnswer, fail, parseJson, pass, skip } from './outcomes.js';
import { ACCEPTED, type StatusExpectation } from './expectations.js';
import type { CallbackRequest } from './callback-listener.js';
import type { Exchange } from './types.js';
import { WINDOW_MARGIN_SECONDS } from './settings.js';

const REJECTED: StatusExpectation = { any4xx: true, describe: '4xx (rejected)' };
/** Where no callback listener runs, jobs point at a name that can never resolve (RFC 2606 `.invalid`). */
export const NOWHERE_CALLBACK_URL = 'https://callback.invalid/cai-conformance';

function freshLead(): string {
  return `lead-conf-${randomBytes(6).toString('hex')}`;
}

function job(scope: CheckScope, callbackUrl?: string): Doc {
  const harness = scope.session.callback;
  const url = callbackUrl ?? (harness ? harness.callbackUrlFor(`${scope.meta.id.toLowerCase()}-${harness.newToken()}`) : NOWHERE_CALLBACK_URL);
  return jobDoc(scope.eventId(), freshLead(), url, scope.session.config.branchCode);
}

const section = (...sections: string[]) => sections;

interface Ack {
  providerJobId?: unknown;
  number?: unknown;
}

function ackOf(exchange: Exchange): Ack {
  const value = parseJson(exchange.body);
  if (typeof value !== 'object' || value === null) return {};
  const record = value as Record<string, unknown>;
  return { providerJobId: record.provider_job_id, number: record.assigned_number_e164 };
}

const acceptance: CheckDefinition[] = [
  {
    id: 'A-ACCEPT-001',
    interface: 'A',
    title: 'a valid contact job is accepted with 202',
    sections: section('§4.1', '§2.2'),
    level: 'must',
    tags: ['acceptance', 'jobs'],
    run: (scope) => expectStatus(scope, { body: compact(job(scope)) }, ACCEPTED),
  },
  {
    id: 'A-ACCEPT-002',
    interface: 'A',
    title: 'the acknowledgment is JSON with a string provider_job_id and an E.164 assigned_number_e164',
    sections: section('§2.3', '§4.1', '§2.1'),
    level: 'must',
    tags: ['acceptance', 'ack'],
    run: async (scope) => {
      const answer = await scope.send({ body: compact(job(scope)) });
      const expected = '202 {"provider_job_id": string, "assigned_number_e164": E.164}';
      if (answer.status !== 202) return fail(expected, describeAnswer(answer), answer);
      const value = parseJson(answer.body);
      if (value === undefined) return fail(expected, `${describeAnswer(answer)} (not JSON)`, answer);
      const verdict = validateDocument(value, { kind: 'ack' });
      if (!verdict.valid) {
        const problems = verdict.errors.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
        return fail(expected, `${describeAnswer(answer)} — ${problems}`, answer);
      }
      return pass(expected, describeAnswer(answer));
    },
  },
  {
    id: 'A-ACCEPT-003',
    interface: 'A',
    title: 'the acknowledgment is sent with Content-Type: application/json',
    sections: section('§4.1', '§2'),
    level: 'must',
    tags: ['acceptance', 'ack', 'headers'],
    run: async (scope) => {
      const answer = await scope.send({ body: compact(job(scope)) });
      const type = answer.headers['content-type'] ?? '(none)';
      const expected = '202 with Content-Type: application/json';
      if (answer.status !== 202) return fail(expected, describeAnswer(answer), answer);
      return /^application\/json\s*(;|$)/i.test(type) ? pass(expected, `202, Content-Type: ${type}`) : fail(expected, `202, Content-Type: ${type}`, answer);
    },
  },
  {
    id: 'A-ACCEPT-004',
    interface: 'A',
    title: 'unknown fields are ignored (top level and inside contact, origin, brief)',
    sections: section('§9.2'),
    level: 'must',
    tags: ['acceptance', 'schema', 'versioning'],
    run: (scope) => {
      let doc = job(scope);
      doc = withPath(doc, 'x_future_field', { nested: true });
      doc = withPath(doc, 'contact.preferred_time', 'mornings');
      doc = withPath(doc, 'origin.utm', { source: 'newsletter' });
      doc = withPath(doc, 'brief.priority', 2);
      return expectStatus(scope, { body: compact(doc) }, ACCEPTED);
    },
  },
  {
    id: 'A-ACCEPT-005',
    interface: 'A',
    title: 'a job with only the required fields is accepted',
    sections: section('§2.2', '§4.1'),
    level: 'must',
    tags: ['acceptance', 'schema'],
    run: (scope) => {
      const full = job(scope);
      const contact = full.contact as Doc;
      const minimal = {
        lead_id: full.lead_id,
        event_id: full.event_id,
        branch_code: full.branch_code,
        contact: { name: contact.name, phone_e164: contact.phone_e164 },
        callback_url: full.callback_url,
      };
      return expectStatus(scope, { body: compact(minimal) }, ACCEPTED);
    },
  },
];

const SAME_ACK = '202 with the same provider_job_id as the first delivery';

const dedupe: CheckDefinition[] = [
  {
    id: 'A-DEDUP-001',
    interface: 'A',
    title: 'a repeated event_id gets the same acknowledgment and starts no second job',
    sections: section('§2.2', '§8'),
    level: 'must',
    tags: ['dedupe'],
    run: async (scope) => {
      const body = compact(job(scope));
      const first = await scope.send({ body });
      if (first.status !== 202) return fail('202 for the first delivery', describeAnswer(first), first);
      const repeat = await scope.send({ body });
      const a = ackOf(first).providerJobId;
      const b = ackOf(repeat).providerJobId;
      if (repeat.status !== 202) return fail(SAME_ACK, describeAnswer(repeat), repeat);
      return a !== undefined && a === b ? pass(SAME_ACK, describeAnswer(repeat)) : fail(SAME_ACK, `first ${JSON.stringify(a)}, repeat ${JSON.stringify(b)}`, repeat);
    },
  },
  {
    id: 'A-DEDUP-002',
    interface: 'A',
    title: 'concurrent repeats of one event_id all get the same provider_job_id',
    sections: section('§2.2'),
    level: 'must',
    tags: ['dedupe', 'concurrency'],
    run: async (scope) => {
      for (let round = 1; round <= 3; round += 1) {
        const body = compact(job(scope));
        const answers = await scope.sendAll(Array.from({ length: 8 }, () => ({ body })));
        const wrong = answers.find((answer) => answer.status !== 202);
        if (wrong) return fail('202 for every delivery', describeAnswer(wrong), wrong);
        const ids = new Set(answers.map((answer) => JSON.stringify(ackOf(answer).providerJobId)));
        if (ids.size !== 1) return fail('one provider_job_id for 8 concurrent deliveries', `round ${round}: ${ids.size} different provider_job_ids`, answers[0]);
      }
      return pass('one provider_job_id for 8 concurrent deliveries (3 rounds)', 'one provider_job_id in each round');
    },
  },
  {
    id: 'A-DEDUP-003',
    interface: 'A',
    title: 'a repeat that fails authentication is rejected, not acknowledged',
    sections: section('§4.1', '§5.5', '§2.2'),
    level: 'must',
    tags: ['dedupe', 'auth'],
    run: async (scope) => {
      const body = compact(job(scope));
      const first = await scope.send({ body });
      if (first.status !== 202) return fail('202 for the first delivery', describeAnswer(first), first);
      return expectStatus(scope, { body, signature: { kind: 'wrong-secret', secret: randomBytes(24).toString('hex') } }, REJECTED);
    },
  },
];

const rawBody: CheckDefinition[] = [
  {
    id: 'A-SIG-001',
    interface: 'A',
    title: 'the signature covers the raw bytes: odd whitespace, tabs and CRLF are accepted',
    sections: section('§5.2', '§5.3'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => expectStatus(scope, { body: Buffer.from(looseLayout(job(scope)), 'utf8') }, ACCEPTED),
  },
  {
    id: 'A-SIG-002',
    interface: 'A',
    title: 'the signature covers the raw bytes: keys in an unusual order are accepted',
    sections: section('§5.2'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => expectStatus(scope, { body: compact(reversedKeys(job(scope))) }, ACCEPTED),
  },
  {
    id: 'A-SIG-003',
    interface: 'A',
    title: 'the signature covers the raw bytes: \\u escapes and \\/ in strings are accepted',
    sections: section('§5.2', '§2'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => expectStatus(scope, { body: Buffer.from(escapedField({ ...job(scope), city: NON_ASCII_TEXT }, 'city'), 'utf8') }, ACCEPTED),
  },
  {
    id: 'A-SIG-004',
    interface: 'A',
    title: 'the signature covers the raw bytes: non-ASCII UTF-8 text is accepted',
    sections: section('§5.2', '§2', '§2.1'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => expectStatus(scope, { body: compact({ ...job(scope), city: NON_ASCII_TEXT }) }, ACCEPTED),
  },
  {
    id: 'A-SIG-005',
    interface: 'A',
    title: 'the signature covers the raw bytes: a trailing newline after the JSON is accepted',
    sections: section('§5.2'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => expectStatus(scope, { body: Buffer.concat([compact(job(scope)), Buffer.from('\n')]) }, ACCEPTED),
  },
];

function authCheck(id: string, title: string, sections: string[], tags: string[], recipe: (scope: CheckScope) => import('./types.js').RequestRecipe): CheckDefinition {
  return { id, interface: 'A', title, sections, level: 'must', tags: ['auth', ...tags], run: (scope) => expectStatus(scope, recipe(scope), REJECTED) };
}

const outside = SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS;
const inside = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;

const auth: CheckDefinition[] = [
  authCheck('A-AUTH-001', 'a signature made with another secret is rejected', section('§4.1', '§5.1', '§5.3'), ['signature'], (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'wrong-secret', secret: randomBytes(24).toString('hex') },
  })),
  authCheck('A-AUTH-002', 'the valid signature of another body is rejected', section('§5.2', '§5.3'), ['signature'], (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'other-body', body: compact(job(scope)) },
  })),
  authCheck('A-AUTH-003', 'a signature over another timestamp than the one sent is rejected', section('§5.2', '§5.4'), ['signature'], (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'other-timestamp', timestamp: scope.session.targetNowSeconds() - 7 },
  })),
  authCheck('A-AUTH-004', 'a job without X-CAI-Signature is rejected', section('§4.1', '§5.3'), ['headers'], (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'none' },
  })),
  authCheck('A-AUTH-005', 'a job without X-CAI-Timestamp is rejected', section('§4.1', '§5.4'), ['headers'], (scope) => ({
    body: compact(job(scope)),
    timestamp: { kind: 'none' },
  })),
  authCheck('A-AUTH-006', 'a truncated signature (63 hex digits) is rejected', section('§5.3', '§5.5'), ['headers', 'signature'], (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'truncated' },
  })),
  authCheck('A-AUTH-007', 'a signature header that is not sha256=<hex> is rejected', section('§4.1', '§5.3'), ['headers', 'signature'], (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'literal', value: 'sha256=not-a-hex-digest' },
  })),
  authCheck('A-AUTH-008', 'a timestamp that is not an integer of seconds is rejected', section('§4.1', '§5.4'), ['headers', 'window'], (scope) => ({
    body: compact(job(scope)),
    timestamp: { kind: 'literal', value: new Date().toISOString() },
  })),
  authCheck('A-AUTH-009', 'a timestamp in milliseconds (correctly signed) is rejected', section('§4.1', '§5.5'), ['window'], (scope) => ({
    body: compact(job(scope)),
    timestamp: { kind: 'milliseconds' },
  })),
  authCheck('A-AUTH-010', `a timestamp ${outside} s in the past (correctly signed) is rejected`, section('§5.5', '§8'), ['window', 'clock'], (scope) => ({
    body: compact(job(scope)),
    timestamp: { kind: 'now', shiftSeconds: -outside },
  })),
  authCheck('A-AUTH-011', `a timestamp ${outside} s in the future (correctly signed) is rejected`, section('§5.5', '§8'), ['window', 'clock'], (scope) => ({
    body: compact(job(scope)),
    timestamp: { kind: 'now', shiftSeconds: outside },
  })),
  {
    id: 'A-AUTH-012',
    interface: 'A',
    title: `a timestamp ${inside} s in the past is accepted`,
    sections: section('§5.5'),
    level: 'should',
    tags: ['auth', 'window', 'clock'],
    run: (scope) => expectStatus(scope, { body: compact(job(scope)), timestamp: { kind: 'now', shiftSeconds: -inside } }, ACCEPTED),
  },
  {
    id: 'A-AUTH-013',
    interface: 'A',
    title: `a timestamp ${inside} s in the future is accepted`,
    sections: section('§5.5'),
    level: 'should',
    tags: ['auth', 'window', 'clock'],
    run: (scope) => expectStatus(scope, { body: compact(job(scope)), timestamp: { kind: 'now', shiftSeconds: inside } }, ACCEPTED),
  },
  {
    id: 'A-AUTH-014',
    interface: 'A',
    title: 'a job without X-CAI-Source is rejected',
    sections: section('§4.1'),
    level: 'should',
    tags: ['auth', 'headers', 'source'],
    run: (scope) => expectStatus(scope, { body: compact(job(scope)), identity: { kind: 'none' } }, REJECTED),
  },
];

function schemaCheck(id: string, title: string, sections: string[], change: (doc: Doc) => Doc | Buffer): CheckDefinition {
  return {
    id,
    interface: 'A',
    title,
    sections,
    level: 'must',
    tags: ['schema'],
    run: (scope) => {
      const changed = change(job(scope));
      return expectStatus(scope, { body: Buffer.isBuffer(changed) ? changed : compact(changed) }, REJECTED);
    },
  };
}

const schema: CheckDefinition[] = [
  schemaCheck('A-SCHEMA-001', 'a job without lead_id is rejected', section('§2.2'), (doc) => withPath(doc, 'lead_id', undefined)),
  schemaCheck('A-SCHEMA-002', 'a job without event_id is rejected', section('§2.2'), (doc) => withPath(doc, 'event_id', undefined)),
  schemaCheck('A-SCHEMA-003', 'a job without branch_code is rejected', section('§2.2'), (doc) => withPath(doc, 'branch_code', undefined)),
  schemaCheck('A-SCHEMA-004', 'a job without contact.phone_e164 is rejected', section('§2.2'), (doc) => withPath(doc, 'contact.phone_e164', undefined)),
  schemaCheck('A-SCHEMA-005', 'a job without contact.name is rejected', section('§2.2'), (doc) => withPath(doc, 'contact.name', undefined)),
  schemaCheck('A-SCHEMA-006', 'a job without callback_url is rejected', section('§2.2'), (doc) => withPath(doc, 'callback_url', undefined)),
  schemaCheck('A-SCHEMA-007', 'a contact.phone_e164 that is not E.164 is rejected', section('§2.1', '§2.2'), (doc) => withPath(doc, 'contact.phone_e164', '0612 345 678')),
  schemaCheck('A-SCHEMA-008', 'an origin.channel outside its enumeration is rejected', section('§2.8', '§2.2'), (doc) => withPath(doc, 'origin.channel', 'fax')),
  schemaCheck('A-SCHEMA-009', 'a brief.intent outside its enumeration is rejected', section('§2.9', '§2.2'), (doc) => withPath(doc, 'brief.intent', 'world_domination')),
  schemaCheck('A-SCHEMA-010', 'contact given as a string is rejected', section('§2.2'), (doc) => withPath(doc, 'contact', 'Ana, +34600000000')),
  schemaCheck('A-SCHEMA-011', 'an origin.captured_at without a time-zone offset is rejected', section('§2.1', '§2.2'), (doc) =>
    withPath(doc, 'origin.captured_at', '2026-11-22T13:00:00'),
  ),
  schemaCheck('A-SCHEMA-012', 'malformed JSON is rejected with a 4xx, never 5xx', section('§2', '§4.1'), (doc) =>
    Buffer.from(compact(doc).toString('utf8').slice(0, -1) + ',}', 'utf8'),
  ),
  schemaCheck('A-SCHEMA-013', 'a JSON array instead of an object is rejected', section('§4.1', '§2.2'), (doc) => compact([doc])),
];

// ---- callbacks (§3 step 5): one job whose events several checks judge ----

interface CallbackEvidence {
  job: Exchange;
  leadId: string;
  requests: CallbackRequest[];
  startedAt: number;
  waitedMs: number;
}

/** The result that ends a conversation (§3 step 5); any appointment.* counts here, A-CB-004 judges its validity. */
function isFinal(type: unknown): boolean {
  return typeof type === 'string' && (type === 'job.closed' || type.startsWith('appointment.'));
}

function eventOf(request: CallbackRequest): Record<string, unknown> | undefined {
  const value = parseJson(request.body);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function callbackEvidence(scope: CheckScope): Promise<CallbackEvidence | undefined> {
  const harness = scope.session.callback;
  if (!harness) return Promise.resolve(undefined);
  return scope.session.once('callback-job', async () => {
    const token = `callbacks-${harness.newToken()}`;
    const doc = job(scope, harness.callbackUrlFor(token));
    const started = Date.now();
    const answer = await scope.send({ body: compact(doc) });
    const requests =
      answer.status === 202
        ? await harness.waitFor(token, (received) => received.some((request) => isFinal(eventOf(request)?.event)), scope.session.callbackWaitMs)
        : [];
    return { job: answer, leadId: String(doc.lead_id), requests, startedAt: started, waitedMs: Date.now() - started };
  });
}

function callbackCheck(
  id: string,
  title: string,
  sections: string[],
  level: 'must' | 'should',
  judge: (evidence: CallbackEvidence, scope: CheckScope) => ReturnType<CheckDefinition['run']> | Awaited<ReturnType<CheckDefinition['run']>>,
): CheckDefinition {
  return {
    id,
    interface: 'A',
    title,
    sections,
    level,
    tags: ['callback'],
    needs: 'callback',
    run: async (scope) => {
      const evidence = await callbackEvidence(scope);
      if (!evidence) return skip('needs the callback-secret options (and --callback-listen / --callback-url) to receive the events');
      if (evidence.job.status !== 202) return fail('202 for the job whose events are judged', describeAnswer(evidence.job), evidence.job);
      if (evidence.requests.length === 0 && id !== 'A-CB-001') return skip('no event arrived (see A-CB-001)');
      return judge(evidence, scope);
    },
  };
}

function firstFailure(evidence: CallbackEvidence, judge: (request: CallbackRequest) => string | undefined): { index: number; problem: string } | undefined {
  for (const [index, request] of evidence.requests.entries()) {
    const problem = judge(request);
    if (problem !== undefined) return { index, problem };
  }
  return undefined;
}

function judgeEach(evidence: CallbackEvidence, expected: string, judge: (request: CallbackRequest) => string | undefined) {
  const failure = firstFailure(evidence, judge);
  const count = `${evidence.requests.length} event${evidence.requests.length === 1 ? '' : 's'}`;
  if (!failure) return pass(expected, `${count}, all as expected`);
  const request = evidence.requests[failure.index] as CallbackRequest;
  const event = eventOf(request);
  // No reproduction command here: re-sending the job would be answered as a duplicate and start nothing. The
  // evidence is the event as received.
  const received = request.body.toString('utf8');
  const excerpt = received.length > 300 ? `${received.slice(0, 300)}…` : received;
  return fail(expected, `event ${failure.index + 1} of ${count} (${String(event?.event ?? '?')}): ${failure.problem}`, undefined, [`the event as received: ${excerpt}`]);
}

const callbacks: CheckDefinition[] = [
  callbackCheck('A-CB-001', 'the provider sends events back to the job\'s callback_url within --callback-wait', section('§3', '§4.2', '§6'), 'must', (evidence, scope) => {
    const expected = `at least one event within ${Math.round(scope.session.callbackWaitMs / 1000)} s`;
    return evidence.requests.length > 0
      ? pass(expected, `${evidence.requests.length} event(s), the first ${(((evidence.requests[0]?.receivedAt ?? 0) - evidence.startedAt) / 1000).toFixed(1)} s after the job`)
      : fail(expected, `no event within ${Math.round(evidence.waitedMs / 1000)} s`);
  }),
  callbackCheck('A-CB-002', 'every event is signed with the events secret, within the window', section('§5.1', '§5.3', '§5.5', '§4.2'), 'must', (evidence, scope) =>
    judgeEach(evidence, 'a valid X-CAI-Signature under the callback secret', (request) => {
      const result = verify({
        secrets: scope.session.callback?.secrets ?? [],
        signature: request.headers[Headers.signature],
        timestamp: request.headers[Headers.timestamp],
        rawBody: request.body,
        now: Math.floor(request.receivedAt / 1000),
      });
      return result.valid ? undefined : `${result.reason}: ${result.message}`;
    }),
  ),
  callbackCheck('A-CB-003', 'every event carries the provider\'s own X-CAI-Provider code', section('§4.2', '§5.6', '§3'), 'must', (evidence, scope) => {
    const code = scope.session.config.providerCode;
    return judgeEach(evidence, `X-CAI-Provider: ${code ?? '(the --provider code)'}`, (request) => {
      const got = request.headers[Headers.provider];
      if (got === undefined) return 'no X-CAI-Provider header';
      if (code !== undefined && got !== code) return `X-CAI-Provider: ${got}`;
      return undefined;
    });
  }),
  callbackCheck('A-CB-004', 'every event is a valid event document', section('§2.4', '§6', '§2.5', '§2.6', '§2.7'), 'must', (evidence) =>
    judgeEach(evidence, 'a valid Interface B event (cai validate event)', (request) => {
      const value = parseJson(request.body);
      if (value === undefined) return 'not JSON';
      const verdict = validateDocument(value, { kind: 'event' });
      return verdict.valid ? undefined : verdict.errors.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
    }),
  ),
  callbackCheck('A-CB-005', 'every event carries the job\'s lead_id unchanged', section('§2.2', '§2.4'), 'must', (evidence) =>
    judgeEach(evidence, `lead_id "${evidence.leadId}"`, (request) => {
      const lead = eventOf(request)?.lead_id;
      return lead === evidence.leadId ? undefined : `lead_id ${JSON.stringify(lead)}`;
    }),
  ),
  callbackCheck('A-CB-006', 'the conversation ends with an appointment or job.closed event within --callback-wait', section('§3', '§6'), 'should', (evidence) => {
    const last = evidence.requests.map((request) => eventOf(request)?.event).find(isFinal);
    return last
      ? pass('an appointment.* or job.closed event', String(last))
      : fail('an appointment.* or job.closed event', `only ${evidence.requests.length} non-final event(s) within ${Math.round(evidence.waitedMs / 1000)} s`);
  }),
];

export const interfaceAChecks: readonly CheckDefinition[] = [...acceptance, ...dedupe, ...rawBody, ...auth, ...schema, ...callbacks];
