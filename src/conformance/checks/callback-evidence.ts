/**
 * What the Interface A callback checks share: a job sent to its own path of the callback listener (§3 step 5), the
 * events gathered for it, and the check builder that skips without a listener and fails when the job itself is
 * not accepted. Each piece of evidence is gathered once per run (Session.once) and judged by several checks.
 */
import { Headers } from '../../spec/constants.js';
import { verify } from '../../signing/verify.js';
import type { AnswerScript, CallbackRequest } from '../callback-listener.js';
import { compact, type Doc } from '../bodies.js';
import { defineCheck, type CheckDefinition, type CheckScope } from '../define.js';
import { isAccepted } from '../expectations.js';
import { describeAnswer, fail, parseJson, pass, skip } from '../outcomes.js';
import type { CheckLevel, CheckMeta, CheckOutcome, Exchange } from '../types.js';
import { job } from './receivers.js';

export interface JobEvents {
  job: Exchange;
  doc: Doc;
  leadId: string;
  token: string;
  requests: CallbackRequest[];
  /** When the job was sent, and how long its events were waited for. */
  startedAt: number;
  waitedMs: number;
  /** The second delivery of the same job, when it was sent twice. */
  repeat?: Exchange;
}

/** The result that ends a conversation (§3 step 5); any appointment.* counts here, A-CB-004 judges its validity. */
export function isFinal(type: unknown): boolean {
  return typeof type === 'string' && (type === 'job.closed' || type.startsWith('appointment.'));
}

/** The event of a request, when its body is a JSON object. */
export function eventOf(request: CallbackRequest): Record<string, unknown> | undefined {
  const value = parseJson(request.body);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export const anyFinal = (requests: readonly CallbackRequest[]) => requests.some((request) => isFinal(eventOf(request)?.event));

export const seconds = (ms: number) => Math.round(ms / 1000);

export interface JobOptions {
  /** Names the listener path, for a reader of the provider's log. */
  name: string;
  /** Changes the job before it is sent (e.g. its lead_id). */
  change?: (doc: Doc) => Doc;
  /** How the listener answers this job's events (default: 202 to each). */
  script?: AnswerScript;
  /** Send the job twice, the second right after the first is acknowledged (a retry whose answer was lost). */
  twice?: boolean;
  /** Stop waiting when this holds; default: a final event arrived. */
  until?: (requests: readonly CallbackRequest[]) => boolean;
}

/** Sends one job to a fresh listener path and gathers its events until `until` holds or --callback-wait ends. */
export async function gatherJob(scope: CheckScope, options: JobOptions): Promise<JobEvents | undefined> {
  const harness = scope.session.callback;
  if (!harness) return undefined;
  const token = `${options.name}-${harness.newToken()}`;
  if (options.script) harness.script(token, options.script);
  const base = job(scope, harness.callbackUrlFor(token));
  const doc = options.change ? options.change(base) : base;
  const startedAt = Date.now();
  const body = compact(doc);
  const answer = await scope.send({ body });
  const repeat = options.twice && isAccepted(answer) ? await scope.send({ body }) : undefined;
  const requests = isAccepted(answer) ? await harness.waitFor(token, options.until ?? anyFinal, scope.session.callbackWaitMs, scope.session.signal) : [];
  return { job: answer, doc, leadId: String(doc.lead_id), token, requests, startedAt, waitedMs: Date.now() - startedAt, ...(repeat ? { repeat } : {}) };
}

/** Waits on for the job's events `ms` longer (never past --callback-wait), and returns the evidence with them. */
export async function gatherMore(scope: CheckScope, events: JobEvents, ms: number): Promise<JobEvents> {
  const harness = scope.session.callback;
  if (!harness) return events;
  const left = scope.session.callbackWaitMs - (Date.now() - events.startedAt);
  const requests = await harness.waitFor(events.token, () => false, Math.min(ms, Math.max(0, left)), scope.session.signal);
  return { ...events, requests, waitedMs: Date.now() - events.startedAt };
}

/** The one job whose events A-CB-001 to -006, -012 and -013 judge: sent once, gathered until a final event. */
export function mainJob(scope: CheckScope): Promise<JobEvents | undefined> {
  return scope.session.once('callback-job', () => gatherJob(scope, { name: 'callbacks' }));
}

export interface CallbackCheck extends Pick<CheckMeta, 'id' | 'title' | 'sections'> {
  level: CheckLevel;
  /** Further tags after `callback`. */
  tags?: readonly string[];
  /** The evidence judged: the main job's by default. */
  evidence?: (scope: CheckScope) => Promise<JobEvents | undefined>;
  /** Judge even when no event arrived (the arrival check itself); the others are then skipped. */
  judgesSilence?: boolean;
  judge(evidence: JobEvents, scope: CheckScope): CheckOutcome | Promise<CheckOutcome>;
}

export const NO_LISTENER = 'needs the callback-secret options (and --callback-listen / --callback-url) to receive the events';

/** A check of the events a provider sends back (Interface A, needs the callback listener). */
export function callbackCheck(spec: CallbackCheck): CheckDefinition {
  return defineCheck({
    id: spec.id, interface: 'A', level: spec.level, sections: spec.sections, tags: ['callback', ...(spec.tags ?? [])], needs: 'callback',
    title: spec.title,
    run: async (scope) => {
      const evidence = await (spec.evidence ?? mainJob)(scope);
      if (!evidence) return skip(NO_LISTENER);
      if (!isAccepted(evidence.job)) return fail('2xx for the job whose events are judged', describeAnswer(evidence.job), evidence.job);
      if (evidence.requests.length === 0 && !spec.judgesSilence) return skip('no event arrived (see A-CB-001)');
      return spec.judge(evidence, scope);
    },
  });
}

/** Passes when `judge` finds nothing wrong with any event; otherwise fails on the first event it faults. */
export function judgeEach(evidence: JobEvents, expected: string, judge: (request: CallbackRequest) => string | undefined): CheckOutcome {
  const count = `${evidence.requests.length} event${evidence.requests.length === 1 ? '' : 's'}`;
  for (const [index, request] of evidence.requests.entries()) {
    const problem = judge(request);
    if (problem === undefined) continue;
    return failOnEvent(expected, `event ${index + 1} of ${count} (${String(eventOf(request)?.event ?? '?')}): ${problem}`, request);
  }
  return pass(expected, `${count}, all as expected`);
}

/** The signature of an event, checked against the callback secrets at the second it arrived (§5.1, §5.5). */
export function signatureProblem(request: CallbackRequest, scope: CheckScope): string | undefined {
  const result = verify({
    secrets: scope.session.callback?.secrets ?? [],
    signature: request.headers[Headers.signature],
    timestamp: request.headers[Headers.timestamp],
    rawBody: request.body,
    now: Math.floor(request.arrivedAt / 1000),
  });
  return result.valid ? undefined : `${result.reason}: ${result.message}`;
}

/**
 * A failure whose evidence is an event as received. No reproduction command: re-sending the job would be answered
 * as a duplicate and start nothing.
 */
export function failOnEvent(expected: string, actual: string, request: CallbackRequest): CheckOutcome {
  const received = request.body.toString('utf8');
  const excerpt = received.length > 300 ? `${received.slice(0, 300)}…` : received;
  return fail(expected, actual, undefined, [`the event as received: ${excerpt}`]);
}
