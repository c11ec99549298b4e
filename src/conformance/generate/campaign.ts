/**
 * The run of generated documents behind the generated checks (./checks.ts), once per receiver run, shared by its
 * checks: draw N valid and N invalid documents from the seed, check each with cai's own validator (a document the
 * generator got wrong is never sent: that would be cai's bug, not the receiver's), send them `concurrency` at a
 * time, each valid one twice (the repeat), and sort every answer into the four rules the checks judge. Then each
 * rule's first failure is shrunk with fast-check (the same seed and the failing document's place replay it; every
 * smaller candidate is sent, with a fresh event_id) to the smallest document that still fails, and that one is
 * sent once more to confirm it (a receiver that fails only now and then is reported as such).
 *
 * fast-check is loaded here and only here: this module is imported when a generated check runs.
 */
import * as fc from 'fast-check';
import { validateBody } from '../../spec/validate.js';
import type { Exchange } from '../evidence.js';
import type { Receiver } from '../checks/receiver/receivers.js';
import { compact, type Doc } from '../probe/bodies.js';
import { isAccepted, judgeAnswer } from '../probe/verdict.js';
import { ProbeScope } from '../probe/scope.js';
import type { Session } from '../probe/session.js';
import { pool } from '../pool.js';
import { materialise, validDraft, type Draft, type DraftContext } from './documents.js';
import { invalidDraft } from './mutations.js';
import type { GenerationSetup } from './setup.js';

/** The four rules: a valid document accepted, its repeat answered as one, an invalid one refused, and never a 5xx for it. */
export type Rule = 'accepted' | 'repeat' | 'refused' | 'no-5xx';
export type Kind = 'valid' | 'invalid';

export const RULES: readonly Rule[] = ['accepted', 'repeat', 'refused', 'no-5xx'];
export const KIND_OF: Readonly<Record<Rule, Kind>> = { accepted: 'valid', repeat: 'valid', refused: 'invalid', 'no-5xx': 'invalid' };

/** How shrinking ended: `done`, stopped at its `bound`, the failure `not-reproduced` when replayed, or `no-time` left. */
export type Shrinking = 'done' | 'bound' | 'not-reproduced' | 'no-time';

/** A rule's first failure, shrunk and confirmed. */
export interface Shrunk {
  /** The failing document's place among the N drawn of its kind (0-based). */
  index: number;
  /** An invalid document's change, in words. */
  mutation?: string;
  /** The smallest document that still failed, as sent at the confirmation. */
  doc: Doc;
  shrinking: Shrinking;
  /** Smaller failing documents shrinking went through, and the requests it sent. */
  steps: number;
  requests: number;
  /** The smallest document failed again when sent once more. */
  confirmed: boolean;
  /** The answers that show the failure: the confirmation's when it failed again, else those shrinking saw. */
  exchanges: Exchange[];
}

export interface RuleResult {
  /** Documents the rule judged, and those that broke it. */
  judged: number;
  failures: number;
  /** Requests of the documents it judged, of its shrinking and of its confirmation. */
  requests: number;
  shrunk?: Shrunk;
}

export interface Campaign {
  count: number;
  seed: number;
  /** Documents sent, of each kind. */
  sent: Record<Kind, number>;
  /** Documents drawn but never sent: cai's validator disagreed with what the generator meant (a bug in cai). */
  disagreements: { count: number; example?: string };
  /** The time bound stopped the sending before every document was sent. */
  timedOut: boolean;
  /** Requests that got no answer at all and were sent again once. */
  resent: number;
  rules: Record<Rule, RuleResult>;
  durationMs: number;
}

interface Sent {
  draft: Draft;
  doc: Doc;
  exchanges: Exchange[];
}

/** No answer, or a 5xx: §7 makes a 5xx "temporary unavailability", which a sender retries for 24 hours. */
function crashed(answer: Exchange): boolean {
  return answer.status === undefined || answer.status >= 500;
}

/** Answers that came on the second try, the first having had none (their first try is a request too). */
const SENT_AGAIN = new WeakSet<Exchange>();

const requestsOf = (exchanges: readonly Exchange[]) => exchanges.reduce((sum, exchange) => sum + 1 + exchange.rateLimitedRetries + (SENT_AGAIN.has(exchange) ? 1 : 0), 0);

export async function runCampaign(session: Session, setup: GenerationSetup, receiver: Receiver): Promise<Campaign> {
  const started = Date.now();
  const deadline = started + setup.timeLimitMs;
  const scope = new ProbeScope(session, { id: `${receiver.interface}-GEN` });
  const planned = (rule: Rule) => setup.checks.has(`${receiver.interface}-GEN-00${RULES.indexOf(rule) + 1}`);
  const wanted = (kind: Kind) => RULES.some((rule) => KIND_OF[rule] === kind && planned(rule));
  const context: DraftContext = {
    ...(session.config.leadId !== undefined && receiver.interface === 'B' ? { leadId: session.config.leadId } : {}),
    ...(session.config.branchCode !== undefined ? { branchCode: session.config.branchCode } : {}),
    callbackUrl: receiver.interface === 'A' ? generatedCallbackUrl(session, scope, receiver) : '',
  };
  const arbitraries: Record<Kind, fc.Arbitrary<Draft>> = { valid: validDraft(receiver.interface, context), invalid: invalidDraft(receiver.interface, context) };
  const drafts: Record<Kind, Draft[]> = {
    valid: wanted('valid') ? fc.sample(arbitraries.valid, { seed: setup.seed, numRuns: setup.count }) : [],
    invalid: wanted('invalid') ? fc.sample(arbitraries.invalid, { seed: setup.seed, numRuns: setup.count }) : [],
  };
  const campaign: Campaign = {
    count: setup.count,
    seed: setup.seed,
    sent: { valid: 0, invalid: 0 },
    disagreements: { count: 0 },
    timedOut: false,
    resent: 0,
    rules: { accepted: emptyRule(), repeat: emptyRule(), refused: emptyRule(), 'no-5xx': emptyRule() },
    durationMs: 0,
  };
  const documentKind = receiver.interface === 'B' ? 'event' : 'job';

  /** Sends a draft with a fresh event_id (twice for `repeat`), once cai's validator agrees with what it is meant to be. */
  const send = async (kind: Kind, draft: Draft, repeat: boolean): Promise<Sent | undefined> => {
    const doc = materialise(draft, scope.eventId());
    const body = compact(doc);
    const verdict = validateBody(body, { kind: documentKind });
    if (verdict.valid !== (kind === 'valid')) {
      campaign.disagreements.count += 1;
      campaign.disagreements.example ??= `${kind === 'valid' ? 'meant valid' : `meant invalid (${draft.mutation ?? 'no change'})`}, found ${verdict.valid ? 'valid' : `invalid: ${verdict.errors.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`}`;
      return undefined;
    }
    const first = await sendOnce(body);
    if (!repeat || !isAccepted(first) || session.signal.aborted) return { draft, doc, exchanges: [first] };
    return { draft, doc, exchanges: [first, await sendOnce(body)] };
  };

  /**
   * One request, sent again once when no answer came at all (a keep-alive connection the receiver closed just as
   * it was reused is cut before any answer): what §7 has every sender do, with the same event_id. A receiver that
   * cuts the connection again gives no answer, which the rules judge.
   */
  const sendOnce = async (body: Buffer): Promise<Exchange> => {
    const answer = await scope.send({ body });
    if (answer.status !== undefined || answer.error?.code === 'aborted' || session.signal.aborted) return answer;
    campaign.resent += 1;
    const again = await scope.send({ body });
    again.rateLimitedRetries += answer.rateLimitedRetries;
    SENT_AGAIN.add(again);
    return again;
  };

  /** Which rules the answers break (true), keep (false), or do not bear on (absent). */
  const judged = (kind: Kind, exchanges: readonly Exchange[]): Partial<Record<Rule, boolean>> => {
    const [first, second] = exchanges as [Exchange, Exchange | undefined];
    if (kind === 'valid') {
      const verdicts: Partial<Record<Rule, boolean>> = { accepted: !isAccepted(first) };
      if (isAccepted(first) && second) verdicts.repeat = judgeAnswer(second, { level: 'must', terms: ['outcome', 'repeat'] }).verdict === 'failed';
      return verdicts;
    }
    return crashed(first) ? { 'no-5xx': true } : { 'no-5xx': false, refused: judgeAnswer(first, { level: 'must' }).verdict === 'failed' };
  };

  const firstFailures = new Map<Rule, { index: number; sent: Sent }>();
  const record = (kind: Kind, index: number, sent: Sent) => {
    campaign.sent[kind] += 1;
    for (const [rule, fails] of Object.entries(judged(kind, sent.exchanges)) as [Rule, boolean][]) {
      if (!planned(rule)) continue;
      const result = campaign.rules[rule];
      result.judged += 1;
      // The pair is the repeat rule's evidence; the first request alone the acceptance's.
      result.requests += requestsOf(rule === 'accepted' ? sent.exchanges.slice(0, 1) : sent.exchanges);
      if (!fails) continue;
      result.failures += 1;
      const known = firstFailures.get(rule);
      if (!known || index < known.index) firstFailures.set(rule, { index, sent });
    }
  };

  // Valid and invalid documents in turn, so a run cut by its time bound has sent some of each.
  const items = Array.from({ length: setup.count }, (_, index) => (['valid', 'invalid'] as const).filter((kind) => drafts[kind].length > 0).map((kind) => ({ kind, index }))).flat();
  await pool(items, Math.max(1, setup.concurrency), async ({ kind, index }) => {
    if (Date.now() >= deadline) {
      campaign.timedOut = true;
      return;
    }
    const sent = await send(kind, drafts[kind][index] as Draft, kind === 'valid' && planned('repeat'));
    if (sent && !session.signal.aborted) record(kind, index, sent);
  }, () => session.signal.aborted || campaign.timedOut);

  for (const rule of RULES) {
    const failure = firstFailures.get(rule);
    if (!failure || session.signal.aborted) continue;
    const shrunk = await shrink(rule, failure.index, failure.sent);
    campaign.rules[rule].shrunk = shrunk;
    campaign.rules[rule].requests += shrunk.requests;
  }
  campaign.durationMs = Date.now() - started;
  return campaign;

  /**
   * fast-check replays the failing document from the seed and its place (`path`), then tries its shrinks, each
   * smaller (fewer optional fields, shorter strings, plainer values, the change kept), keeping each that still
   * fails, until none does or the bound is met. Then the smallest is sent once more.
   */
  async function shrink(rule: Rule, index: number, first: Sent): Promise<Shrunk> {
    const kind = KIND_OF[rule];
    const repeat = rule === 'repeat';
    let smallest: Sent | undefined;
    let steps = 0;
    let requests = 0;
    let shrinking = 'no-time' as Shrinking;
    const timeLeft = Math.min(setup.shrinkTimeMs, deadline - Date.now());
    if (timeLeft > 0) {
      const outcome = await fc.check(
        fc.asyncProperty(arbitraries[kind], async (draft) => {
          if (session.signal.aborted) return true;
          if (requests >= setup.shrinkRequests) {
            shrinking = 'bound';
            return true;
          }
          const sent = await send(kind, draft, repeat);
          if (!sent) return true;
          requests += requestsOf(sent.exchanges);
          const fails = judged(kind, sent.exchanges)[rule] === true;
          if (fails) {
            smallest = sent;
            steps += 1;
          }
          return !fails;
        }),
        { seed: setup.seed, path: String(index), numRuns: 1, interruptAfterTimeLimit: timeLeft },
      );
      if (outcome.interrupted) shrinking = 'bound';
      else if (!outcome.failed) shrinking = 'not-reproduced';
      else if (shrinking !== 'bound') shrinking = 'done';
    }
    // The first replay is the failing document itself: only the smaller ones are steps.
    steps = Math.max(0, steps - 1);
    const candidate = smallest ?? first;
    const again = session.signal.aborted ? undefined : await send(kind, candidate.draft, repeat);
    if (again) requests += requestsOf(again.exchanges);
    const confirmed = again !== undefined && judged(kind, again.exchanges)[rule] === true;
    const shown = confirmed && again ? again : candidate;
    return {
      index,
      ...(candidate.draft.mutation ? { mutation: candidate.draft.mutation } : {}),
      doc: shown.doc,
      shrinking,
      steps,
      requests,
      confirmed,
      exchanges: shown.exchanges,
    };
  }
}

/**
 * Where the generated jobs' events go: a path of the callback listener that no job's stage owns, answered 404, so a
 * provider ends each generated conversation after its first event (§7: no retry of a 4xx) rather than playing
 * thousands of them (no check reads them: the callback checks judge their own jobs' events). Without a listener,
 * where every check's jobs point (an address that never resolves).
 */
function generatedCallbackUrl(session: Session, scope: ProbeScope, receiver: Receiver): string {
  return session.callback ? `${session.callback.publicUrl}/cai-conformance-generated` : String(receiver.document(scope).callback_url);
}

function emptyRule(): RuleResult {
  return { judged: 0, failures: 0, requests: 0 };
}
