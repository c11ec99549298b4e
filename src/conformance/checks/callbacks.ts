/**
 * Interface A, §3 step 5: the events the provider sends back to the job's callback_url. One job is sent and its
 * events gathered once (Session.once); each check judges one property of them: arrival, signature (§5),
 * X-CAI-Provider (§4.2, §5.6), schema (§2.4–§2.7), the lead_id (§2.2), and how the conversation ends.
 */
import { Headers } from '../../spec/constants.js';
import { validateDocument } from '../../spec/validate.js';
import { verify } from '../../signing/verify.js';
import { compact } from '../bodies.js';
import type { CallbackRequest } from '../callback-listener.js';
import { defineCheck, type CheckDefinition, type CheckScope } from '../define.js';
import { isAccepted } from '../expectations.js';
import { describeAnswer, fail, parseJson, pass, skip } from '../outcomes.js';
import type { CheckLevel, CheckMeta, CheckOutcome, Exchange } from '../types.js';
import { job } from './receivers.js';

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

/** Sends the one job whose events every callback check judges, and waits for a final event (or --callback-wait). */
function callbackEvidence(scope: CheckScope): Promise<CallbackEvidence | undefined> {
  const harness = scope.session.callback;
  if (!harness) return Promise.resolve(undefined);
  return scope.session.once('callback-job', async () => {
    const token = `callbacks-${harness.newToken()}`;
    const doc = job(scope, harness.callbackUrlFor(token));
    const started = Date.now();
    const answer = await scope.send({ body: compact(doc) });
    const requests = isAccepted(answer)
      ? await harness.waitFor(token, (received) => received.some((request) => isFinal(eventOf(request)?.event)), scope.session.callbackWaitMs)
      : [];
    return { job: answer, leadId: String(doc.lead_id), requests, startedAt: started, waitedMs: Date.now() - started };
  });
}

interface CallbackCheck extends Pick<CheckMeta, 'id' | 'title' | 'sections'> {
  level: CheckLevel;
  /** Judge even when no event arrived (the arrival check itself); the others are then skipped. */
  judgesSilence?: boolean;
  judge(evidence: CallbackEvidence, scope: CheckScope): CheckOutcome;
}

function callbackCheck(spec: CallbackCheck): CheckDefinition {
  return defineCheck({
    id: spec.id, interface: 'A', level: spec.level, sections: spec.sections, tags: ['callback'], needs: 'callback',
    title: spec.title,
    run: async (scope) => {
      const evidence = await callbackEvidence(scope);
      if (!evidence) return skip('needs the callback-secret options (and --callback-listen / --callback-url) to receive the events');
      if (!isAccepted(evidence.job)) return fail('202 for the job whose events are judged', describeAnswer(evidence.job), evidence.job);
      if (evidence.requests.length === 0 && !spec.judgesSilence) return skip('no event arrived (see A-CB-001)');
      return spec.judge(evidence, scope);
    },
  });
}

/** Passes when `judge` finds nothing wrong with any event; otherwise fails on the first event it faults. */
function judgeEach(evidence: CallbackEvidence, expected: string, judge: (request: CallbackRequest) => string | undefined): CheckOutcome {
  const count = `${evidence.requests.length} event${evidence.requests.length === 1 ? '' : 's'}`;
  for (const [index, request] of evidence.requests.entries()) {
    const problem = judge(request);
    if (problem === undefined) continue;
    // No reproduction command here: re-sending the job would be answered as a duplicate and start nothing. The
    // evidence is the event as received.
    const received = request.body.toString('utf8');
    const excerpt = received.length > 300 ? `${received.slice(0, 300)}…` : received;
    return fail(expected, `event ${index + 1} of ${count} (${String(eventOf(request)?.event ?? '?')}): ${problem}`, undefined, [`the event as received: ${excerpt}`]);
  }
  return pass(expected, `${count}, all as expected`);
}

const seconds = (ms: number) => Math.round(ms / 1000);

const jobsCallbacks: CheckDefinition[] = [
  callbackCheck({
    id: 'A-CB-001',
    title: "the provider sends events back to the job's callback_url within --callback-wait",
    sections: ['§3', '§4.2', '§6'],
    level: 'must',
    judgesSilence: true,
    judge: (evidence, scope) => {
      const expected = `at least one event within ${seconds(scope.session.callbackWaitMs)} s`;
      const first = ((evidence.requests[0]?.receivedAt ?? 0) - evidence.startedAt) / 1000;
      return evidence.requests.length > 0
        ? pass(expected, `${evidence.requests.length} event(s), the first ${first.toFixed(1)} s after the job`)
        : fail(expected, `no event within ${seconds(evidence.waitedMs)} s`);
    },
  }),
  callbackCheck({
    id: 'A-CB-002',
    title: 'every event is signed with the events secret, within the window',
    sections: ['§5.1', '§5.3', '§5.5', '§4.2'],
    level: 'must',
    judge: (evidence, scope) =>
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
  }),
  callbackCheck({
    id: 'A-CB-003',
    title: "every event carries the provider's own X-CAI-Provider code",
    sections: ['§4.2', '§5.6', '§3'],
    level: 'must',
    judge: (evidence, scope) => {
      const code = scope.session.config.providerCode;
      return judgeEach(evidence, `X-CAI-Provider: ${code ?? '(the --provider code)'}`, (request) => {
        const got = request.headers[Headers.provider];
        if (got === undefined) return 'no X-CAI-Provider header';
        if (code !== undefined && got !== code) return `X-CAI-Provider: ${got}`;
        return undefined;
      });
    },
  }),
  callbackCheck({
    id: 'A-CB-004',
    title: 'every event is a valid event document',
    sections: ['§2.4', '§6', '§2.5', '§2.6', '§2.7'],
    level: 'must',
    judge: (evidence) =>
      judgeEach(evidence, 'a valid Interface B event (cai validate event)', (request) => {
        const value = parseJson(request.body);
        if (value === undefined) return 'not JSON';
        const verdict = validateDocument(value, { kind: 'event' });
        return verdict.valid ? undefined : verdict.errors.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
      }),
  }),
  callbackCheck({
    id: 'A-CB-005',
    title: "every event carries the job's lead_id unchanged",
    sections: ['§2.2', '§2.4'],
    level: 'must',
    judge: (evidence) =>
      judgeEach(evidence, `lead_id "${evidence.leadId}"`, (request) => {
        const lead = eventOf(request)?.lead_id;
        return lead === evidence.leadId ? undefined : `lead_id ${JSON.stringify(lead)}`;
      }),
  }),
  callbackCheck({
    id: 'A-CB-006',
    title: 'the conversation ends with an appointment or job.closed event within --callback-wait',
    sections: ['§3', '§6'],
    level: 'should',
    judge: (evidence) => {
      const last = evidence.requests.map((request) => eventOf(request)?.event).find(isFinal);
      const expected = 'an appointment.* or job.closed event';
      return last ? pass(expected, String(last)) : fail(expected, `only ${evidence.requests.length} non-final event(s) within ${seconds(evidence.waitedMs)} s`);
    },
  }),
];

export const callbacks = { A: jobsCallbacks };
