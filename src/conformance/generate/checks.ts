/**
 * The generated checks: documents drawn from the schemas rather than picked by hand (`--generate N [--seed S]`).
 * Four rules of each receiver, judged on the same run of documents (./campaign.ts, run once and shared): every
 * valid document is accepted, its repeat is answered as one (§6.1 and §2.13 on B, the same provider_job_id on A,
 * §2.2), every invalid one (one change of a valid one) is refused (400 on B, §7; any 4xx on A, a `should` as the
 * hand-written A-SCHEMA checks), and none of those gets a 5xx (§7: a 5xx asks the sender to retry for 24 hours).
 * A failure is shown by the smallest document that still fails, with the seed that draws the same documents.
 *
 * Optional (a plain run is unchanged) and exclusive (their documents are sent `--concurrency` at a time, alone).
 * This module loads no fast-check: the campaign, which does, is imported when one of these checks runs.
 */
import { compact, type Doc } from '../probe/bodies.js';
import { defineCheck, failed, notJudged, passed, type Outcome, type ReceiverCheck } from '../check.js';
import { EVENTS_RECEIVER, JOBS_RECEIVER, type ByInterface, type Receiver } from '../checks/receiver/receivers.js';
import { describeAnswer } from '../evidence.js';
import type { ProbeScope } from '../probe/scope.js';
import type { CheckLevel } from '../types.js';
import type { Campaign, Rule, Shrunk } from './campaign.js';
import { generationOf } from './setup.js';

interface RuleText {
  rule: Rule;
  level: Record<Receiver['interface'], CheckLevel>;
  sections: Record<Receiver['interface'], readonly string[]>;
  /** The clauses of the spec (src/spec/clauses.ts) the rule enforces, per interface. */
  clauses: Record<Receiver['interface'], readonly string[]>;
  title(noun: string, receiver: Receiver): string;
  expected(noun: string, receiver: Receiver): string;
  /** What a document that passes is, in the actual line: `accepted`, `refused`. */
  kept: string;
  /** What one that fails is, in the actual line. */
  broke: string;
}

/**
 * One tag only: a selection by another (`--only dedupe`) must not start a run of generated documents; they are
 * asked for with --generate N or by this tag.
 */
const GENERATE_TAGS = ['generate'] as const;

const RULE_TEXTS: readonly RuleText[] = [
  {
    rule: 'accepted', level: { B: 'must', A: 'must' }, sections: { B: ['§2', '§2.1', '§2.4', '§4.2', '§6.5'], A: ['§2.2', '§2.1', '§4.1'] },
    clauses: { B: ['§4.2-5', '§2.1-1', '§2.1-2', '§2.1-3', '§2.4-3', '§9.2-1'], A: ['§4.1-4', '§2.1-1', '§2.1-2', '§2.1-3', '§2.2-2', '§9.2-1'] },
    title: (noun) => `generated valid ${noun}s (every optional field present or absent, every enumeration value and §2.1 format shape) are accepted`,
    expected: (noun) => `2xx for every valid ${noun}`, kept: 'accepted', broke: 'not accepted',
  },
  {
    rule: 'repeat', level: { B: 'must', A: 'must' }, sections: { B: ['§6.1', '§2.13'], A: ['§2.2'] },
    clauses: { B: ['§6.1-2', '§2.13-1'], A: ['§2.2-5'] },
    title: (noun, receiver) => `a generated valid ${noun} sent again is answered as a repeat (${receiver.interface === 'B' ? '202 {"ok":true,"duplicate":true}' : 'the same provider_job_id'})`,
    expected: (noun, receiver) => (receiver.interface === 'B' ? `202 {"ok":true,"duplicate":true} for every accepted ${noun} sent again` : `2xx with the first provider_job_id for every accepted ${noun} sent again`),
    kept: 'answered as repeats', broke: 'not answered as a repeat',
  },
  {
    rule: 'refused', level: { B: 'must', A: 'should' }, sections: { B: ['§7', '§2', '§2.1', '§8'], A: ['§2.2', '§2.1', '§4.1'] },
    clauses: { B: ['§7-1', '§2.4-1', '§2.4-2', '§2.4-3'], A: ['§2.2-1', '§2.2-2'] },
    title: (noun, receiver) => `generated invalid ${noun}s (one change each: a field removed, a wrong type, an enumeration or format near miss) are rejected${receiver.interface === 'B' ? ' with 400' : ''}`,
    expected: (noun, receiver) => `${receiver.interface === 'B' ? '400' : '4xx'} for every invalid ${noun} (a 5xx is judged by ${receiver.interface}-GEN-004)`,
    kept: 'rejected', broke: 'not rejected as expected',
  },
  {
    rule: 'no-5xx', level: { B: 'must', A: 'should' }, sections: { B: ['§7'], A: ['§4.1', '§7'] },
    clauses: { B: ['§7-1'], A: ['§2.2-2'] },
    title: (noun) => `no generated invalid ${noun} gets a 5xx or no answer (§7: a 5xx asks the sender to retry for 24 hours)`,
    expected: (noun) => `an answer below 500 for every invalid ${noun}`, kept: 'answered below 500', broke: 'answered 5xx or not at all',
  },
];

interface Gathered {
  campaign: Campaign;
}

/** The run of generated documents of this receiver run: started by the first generated check, shared by the others. */
async function campaignOf(scope: ProbeScope, receiver: Receiver): Promise<Campaign | undefined> {
  const setup = generationOf(scope.session);
  if (!setup) return undefined;
  return scope.session.once(`generate-${receiver.interface}`, async () => (await import('./campaign.js')).runCampaign(scope.session, setup, receiver));
}

/** A document as one line of JSON, cut after `limit` characters. */
function oneLine(doc: Doc, limit = 2000): string {
  const text = compact(doc).toString('utf8');
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length} characters)` : text;
}

function seedNote(campaign: Campaign): string {
  return `seed ${campaign.seed}: \`--generate ${campaign.count} --seed ${campaign.seed}\` draws the same documents again (each with a fresh event_id)`;
}

/** The notes every generated check carries: the seed, and what cut the run short. */
function runNotes(campaign: Campaign): string[] {
  const notes = [seedNote(campaign)];
  if (campaign.timedOut) notes.push(`the time bound stopped the run after ${campaign.sent.valid} valid and ${campaign.sent.invalid} invalid documents of ${campaign.count} each (docs/limits.md)`);
  if (campaign.resent > 0) notes.push(`${campaign.resent} request(s) got no answer at all (the connection cut) and were sent again once, as §7 has a sender do`);
  if (campaign.disagreements.count > 0) {
    notes.push(`${campaign.disagreements.count} generated document(s) not sent: cai's validator disagreed with its generator, a bug in cai (please report it): ${campaign.disagreements.example ?? ''}`);
  }
  return notes;
}

function shrinkNotes(shrunk: Shrunk, kind: string, campaign: Campaign): string[] {
  const which = `${kind} document #${shrunk.index + 1} of ${campaign.count}`;
  const how: Record<Shrunk['shrinking'], string> = {
    done: `the first to fail was ${which}; shrunk in ${shrunk.steps} step(s) to the smallest that still fails`,
    bound: `the first to fail was ${which}; shrunk in ${shrunk.steps} step(s), stopped at the shrinking bound (docs/limits.md): a smaller one may fail too`,
    'not-reproduced': `the first to fail was ${which}, which passed when sent again to be shrunk: an intermittent failure, not shrunk`,
    'no-time': `the first to fail was ${which}; not shrunk: the run's time bound was spent (docs/limits.md)`,
  };
  const confirmation = shrunk.confirmed
    ? 'sent once more with a fresh event_id, it failed again'
    : 'sent once more with a fresh event_id, it passed: the receiver fails now and then (intermittent), shown here as it failed';
  return [how[shrunk.shrinking], `the document${shrunk.mutation ? `, ${shrunk.mutation}` : ''}: ${oneLine(shrunk.doc)}`, confirmation];
}

function judgeRule(text: RuleText, receiver: Receiver, noun: string, campaign: Campaign | undefined): Outcome {
  if (!campaign) return notJudged('no documents were generated for this run (run it with --generate N)');
  const result = campaign.rules[text.rule];
  const expected = text.expected(noun, receiver);
  if (result.judged === 0) {
    const why = campaign.timedOut ? 'the time bound stopped the run first' : text.rule === 'repeat' ? `no valid ${noun} was accepted, so none was sent again` : `no ${noun} was sent`;
    return notJudged(why);
  }
  const notes = runNotes(campaign);
  if (result.failures === 0) return passed(expected, `${result.judged} of ${result.judged} ${text.kept}`, notes);
  const shrunk = result.shrunk;
  if (!shrunk) return failed(expected, `${result.failures} of ${result.judged} ${text.broke}`, {}, notes);
  const answers = shrunk.exchanges.map((exchange) => describeAnswer(exchange)).join(', then ');
  const intermittent = shrunk.shrinking === 'not-reproduced' || !shrunk.confirmed ? ' (intermittent)' : '';
  const actual = `${result.failures} of ${result.judged} ${text.broke}${intermittent}; the smallest that still fails got ${answers}`;
  return failed(expected, actual, { exchanges: shrunk.exchanges }, [...shrinkNotes(shrunk, text.rule === 'accepted' || text.rule === 'repeat' ? 'valid' : 'invalid', campaign), ...notes]);
}

function generatedChecks(receiver: Receiver): ReceiverCheck[] {
  const noun = receiver.interface === 'B' ? 'event' : 'job';
  return RULE_TEXTS.map((text, index) =>
    defineCheck<Gathered>({
      id: `${receiver.interface}-GEN-00${index + 1}`, interface: receiver.interface, level: text.level[receiver.interface], sections: text.sections[receiver.interface], clauses: text.clauses[receiver.interface], tags: GENERATE_TAGS,
      title: text.title(noun, receiver),
      optional: true,
      exclusive: true,
      gather: async (scope) => {
        const campaign = await campaignOf(scope, receiver);
        if (!campaign) return {} as Gathered;
        scope.requests += campaign.rules[text.rule].requests;
        return { campaign };
      },
      judge: ({ campaign }) => judgeRule(text, receiver, noun, campaign),
    }),
  );
}

export const generated: ByInterface = { B: generatedChecks(EVENTS_RECEIVER), A: generatedChecks(JOBS_RECEIVER) };
