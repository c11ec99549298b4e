/**
 * Interface A, §3 step 5: the events the provider sends back to the job's callback_url. One job is sent and its
 * events gathered once (Session.once); each check judges one property of them: arrival, signature (§5),
 * X-CAI-Provider (§4.2, §5.6), schema (§2.4–§2.7), the lead_id (§2.2), how the conversation ends (§3, §6), and
 * the lifecycle facts the acknowledgment fixed (§2.3): its provider_job_id and assigned number. A second job,
 * whose lead_id has capitals, accents and punctuation, shows whether it comes back byte for byte. How the
 * provider's sender answers the listener's 503, 429 and 400 is callback-retries.ts.
 */
import { Headers } from '../../spec/constants.js';
import { isE164 } from '../../spec/formats.js';
import { validateDocument } from '../../spec/validate.js';
import type { CheckScope } from '../define.js';
import { fail, parseJson, pass, skip } from '../outcomes.js';
import { callbackCheck, eventOf, gatherJob, isFinal, judgeEach, seconds, signatureProblem, type JobEvents } from './callback-evidence.js';
import { callbackRetries } from './callback-retries.js';
import { providerJobIdOf } from './receivers.js';

/** The assigned number of a job's acknowledgment (§2.3), when the answer carries a string one. */
function assignedNumberOf(evidence: JobEvents): string | undefined {
  const value = parseJson(evidence.job.body);
  const number = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).assigned_number_e164 : undefined;
  return typeof number === 'string' ? number : undefined;
}

/**
 * A lead_id the platform may well issue (§2.2: a string), that a provider which lowercases, trims or normalises
 * identifiers would change: capitals, accented letters (`é` decomposed, as NFD text has it), a slash, a plus.
 */
function unusualLeadId(plain: string): string {
  return `Lead/${plain.replace(/^lead-conf-/, '')}-MÜLLER-Jose\u0301+1`;
}

function edgeLeadJob(scope: CheckScope): Promise<JobEvents | undefined> {
  return scope.session.once('callback-edge-lead', () =>
    gatherJob(scope, { name: 'lead-edge', change: (doc) => ({ ...doc, lead_id: unusualLeadId(String(doc.lead_id)) }) }),
  );
}

const leadUnchanged = (evidence: JobEvents) =>
  judgeEach(evidence, `lead_id ${JSON.stringify(evidence.leadId)}`, (request) => {
    const lead = eventOf(request)?.lead_id;
    return lead === evidence.leadId ? undefined : `lead_id ${JSON.stringify(lead)}`;
  });

const jobsCallbacks = [
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
    judge: (evidence, scope) => judgeEach(evidence, 'a valid X-CAI-Signature under the callback secret', (request) => signatureProblem(request, scope)),
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
    judge: leadUnchanged,
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

/**
 * The lifecycle as the acknowledgment fixed it. §2.4 leaves each field's presence to the event type, so only the
 * events that carry the field are judged; and the spec does not say in so many words that they must repeat the
 * acknowledgment's values (the envelope calls provider_job_id "the Provider's own identifier", from_number_e164
 * "origin number"), so these are `should`.
 */
const lifecycle = [
  callbackCheck({
    id: 'A-CB-012',
    title: 'events that carry provider_job_id carry the one the acknowledgment gave',
    sections: ['§2.3', '§2.4', '§2.5'],
    level: 'should',
    tags: ['lifecycle'],
    judge: (evidence) => {
      const acknowledged = providerJobIdOf(evidence.job);
      if (typeof acknowledged !== 'string') return skip('the acknowledgment has no string provider_job_id (see A-ACCEPT-002)');
      return judgeEach(evidence, `provider_job_id ${JSON.stringify(acknowledged)} where present`, (request) => {
        const event = eventOf(request);
        if (event === undefined || !('provider_job_id' in event)) return undefined;
        return event.provider_job_id === acknowledged ? undefined : `provider_job_id ${JSON.stringify(event.provider_job_id)}`;
      });
    },
  }),
  callbackCheck({
    id: 'A-CB-013',
    title: 'outbound messages come from the assigned_number_e164 the acknowledgment gave',
    sections: ['§2.3', '§3', '§2.4', '§2.5'],
    level: 'should',
    tags: ['lifecycle'],
    judge: (evidence) => {
      const assigned = assignedNumberOf(evidence);
      if (assigned === undefined || !isE164(assigned)) return skip('the acknowledgment has no E.164 assigned_number_e164 (see A-ACCEPT-002)');
      return judgeEach(evidence, `from_number_e164 ${assigned} on outbound messages`, (request) => {
        const event = eventOf(request);
        if (event?.event !== 'conversation.message' || event.direction !== 'outbound' || !('from_number_e164' in event)) return undefined;
        return event.from_number_e164 === assigned ? undefined : `from_number_e164 ${JSON.stringify(event.from_number_e164)}`;
      });
    },
  }),
  callbackCheck({
    id: 'A-CB-014',
    title: 'a lead_id with capitals, accents (NFD) and punctuation comes back unchanged',
    sections: ['§2.2', '§2.4'],
    level: 'must',
    tags: ['lifecycle', 'lead'],
    evidence: edgeLeadJob,
    judge: leadUnchanged,
  }),
];

export const callbacks = { A: [...jobsCallbacks, ...callbackRetries, ...lifecycle] };
