/**
 * The stateful phase against a sender: generated conversations, each one run of the trigger whose documents get
 * answer scripts drawn by fast-check from every answer a receiver may give (each 2xx, with and without a body, the
 * duplicate answer, 429 with Retry-After in seconds and as an HTTP-date, 400, 401, 413 on B, 500, 502, 503, a cut
 * connection, any of them slow), in any order and length. The sender model (src/spec/model/sender.ts) judges every
 * attempt of every conversation; its findings are put under the sender relations (S1–S7). In three passes:
 *
 * 1. explore: fixed conversations that make every relation bear (five retryable answers in a row, a slow 429, two
 *    429s, a slow acceptance, the duplicate answer), then the conversations the seed draws, a few at once, until the
 *    budget is spent;
 * 2. shrink: for each relation broken in a drawn conversation, fast-check replays it (the seed and its place) and
 *    shrinks it to shorter and simpler scripts while it still breaks the relation, each candidate played through the
 *    trigger;
 * 3. confirm: the shortest is played once more and kept as the evidence; one that does not break the relation
 *    again is reported as seen once.
 *
 * `--seed S:PATH` replays one shrunk conversation exactly (fast-check's path), without exploring.
 */
import * as fc from 'fast-check';
import { SENDER_RUN_CAPS } from '../../bounds.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { attemptTerms } from '../../spec/model/sender-attempts.js';
import {
  attemptFindings,
  documentsPerRunOf,
  findingsOf,
  playsToConfirm,
  TIMED_TERMS,
  type SenderFinding,
} from '../checks/sender/judging.js';
import { describeConversation, error, rateLimited, type Scenario, type ScriptedAnswer } from '../listen/scenarios.js';
import { drawLazily, explorePass, replayOnce } from './draw.js';
import type { Stages } from '../listen/stage.js';
import type { SenderEvidence, SenderExploration, SenderShrunk, StageRecord } from '../evidence.js';
import { senderEvidence } from '../sender-stages.js';
import { senderRelations, type SenderRelationId } from '../../spec/model/sender-relations.js';
import { countConversation, explorationOf, judgedIds, unconfirmed } from './phase-verdict.js';
import { senderExploreSetup, type ExploreRequest, type ExploreSetup } from './setup.js';

type Conversation = ScriptedAnswer[][];

export interface SenderExploreTarget
  extends Pick<SenderEvidence, 'interface' | 'identity' | 'secrets' | 'waitMs' | 'observeMs'>,
    Pick<ExploreSetup, 'judged'> {
  stages: Stages;
  setup: ExploreRequest & { seed: number };
  concurrency: number;
  signal: AbortSignal;
  /** Called once the conversation whose waits are timed has been played alone: the rest of the run may start. */
  alonePlayed?: () => void;
}

/** How long a slow answer waits, and the Retry-After of a generated 429: short, so conversations stay short. */
const SLOW_MS = 1_000;
const RETRY_AFTER_SECONDS = 1;

const rate = (form: 'seconds' | 'date'): ScriptedAnswer => rateLimited(form, RETRY_AFTER_SECONDS);
const slow = (answer: ScriptedAnswer, ms = SLOW_MS): ScriptedAnswer => ({ ...answer, delayMs: ms });

/**
 * A conversation: one or two documents' scripts, each of up to four answers asking for a retry, then a final one.
 * fast-check shrinks an array to fewer items and a constant to the first of its list: the simplest comes first.
 */
export function conversationArbitrary(iface: InterfaceId): fc.Arbitrary<Conversation> {
  const maybeSlow = (arbitrary: fc.Arbitrary<ScriptedAnswer>) =>
    fc
      .tuple(arbitrary, fc.constantFrom(false, false, false, true))
      .map(([answer, late]) => (late ? slow(answer) : answer));
  const retry = maybeSlow(
    fc.constantFrom<ScriptedAnswer>(
      error(503),
      error(500),
      error(502),
      { kind: 'reset' },
      rate('seconds'),
      rate('date'),
    ),
  );
  const finals: ScriptedAnswer[] = [
    { kind: 'accepted', status: 202 },
    { kind: 'accepted', status: 202, empty: true },
    { kind: 'duplicate' },
    { kind: 'accepted', status: 200 },
    { kind: 'accepted', status: 201 },
    { kind: 'accepted', status: 204 },
    error(400),
    error(401),
    ...(interfaceSpec(iface).sizeLimitStated ? [error(413)] : []),
  ];
  const final = maybeSlow(fc.constantFrom(...finals));
  const script = fc.tuple(fc.array(retry, { maxLength: 4 }), final).map(([retries, last]) => [...retries, last]);
  return fc.array(script, { minLength: 1, maxLength: 2 });
}

/**
 * The fixed conversations of every run, played first: between them every relation bears, with answers the scenarios
 * do not script: five answers asking for a retry in a row, cut connections among them (the growth of the waits over
 * cuts too), a 502; a slow 429, two 429s in a row (the second one's Retry-After as well), a slow acceptance (a sender
 * must not send again while it waits), a 202 without a body; the duplicate answer as the first one.
 */
const COVERAGE: Conversation[] = [
  [
    [
      error(502),
      { kind: 'reset' },
      { kind: 'reset' },
      { kind: 'reset' },
      { kind: 'reset' },
      { kind: 'accepted', status: 202, empty: true },
    ],
  ],
  [[slow(rate('seconds')), rate('date'), slow({ kind: 'accepted', status: 202 }, 1_500)]],
  [[{ kind: 'duplicate' }]],
];

interface Played {
  record: StageRecord;
  /** Per relation, the breach the model found: a `must` one before a `should` one. */
  breaches: Partial<Record<SenderRelationId, SenderFinding>>;
  kept: Partial<Record<SenderRelationId, number>>;
}

/** The model's verdict on one conversation: every delivery term, every attempt term. */
function judge(target: SenderExploreTarget, record: StageRecord): Omit<Played, 'record'> {
  const evidence = senderEvidence(target, [record], documentsPerRunOf(target.stages.played));
  const findings = [
    ...findingsOf(evidence),
    ...attemptTerms(target.interface).flatMap((term) => attemptFindings(evidence, term)),
  ];
  const breaches: Played['breaches'] = {};
  const kept: Played['kept'] = {};
  for (const finding of findings) {
    if (finding.verdict === 'kept') kept[finding.relation] = (kept[finding.relation] ?? 0) + 1;
    if (finding.verdict !== 'broken') continue;
    const known = breaches[finding.relation];
    if (!known || (known.level === 'should' && finding.level === 'must')) breaches[finding.relation] = finding;
  }
  return { breaches, kept };
}

/**
 * Plays each conversation as a stage of its own (`state-1`, `state-2`, …), judges it, and counts its attempts and the
 * relations it bore into the exploration; `keep` keeps its record as evidence of the stateful checks.
 */
function playerOf(target: SenderExploreTarget, exploration: SenderExploration): Play {
  let names = 0;
  const stageLimit = SENDER_RUN_CAPS.stageWaits * target.waitMs + target.observeMs;
  return async (conversation, deadlineMono, keep) => {
    names += 1;
    const id = `state-${names}` as const;
    // Documents past the conversation's scripts are accepted at once: a sender of many documents in a row stays quick.
    const entry: Scenario = {
      id,
      interfaces: [target.interface],
      script: conversation[0] ?? [],
      scripts: conversation,
      scriptedDeliveries: conversation.length,
      purpose: `generated: ${describeConversation(conversation, target.interface)}`,
    };
    const record = await target.stages.play(entry, {
      id,
      deadlineMono: Math.min(deadlineMono, performance.now() + stageLimit),
    });
    const played = { record, ...judge(target, record) };
    countConversation(exploration, played.kept);
    exploration.attempts += record.attempts.length;
    if (keep) exploration.records.push(record);
    return played;
  };
}

/** What the passes of one phase share: the target, the conversations it draws and plays, the exploration. */
interface Phase {
  target: SenderExploreTarget;
  arbitrary: fc.Arbitrary<Conversation>;
  play: Play;
  exploration: SenderExploration;
  judged: ReadonlySet<SenderRelationId>;
}

export async function exploreSender(target: SenderExploreTarget): Promise<SenderExploration> {
  const setup = senderExploreSetup(target.interface, target.setup, target.concurrency);
  const started = Date.now();
  const exploration: SenderExploration = { ...explorationOf(setup.seed), attempts: 0, records: [] };
  const phase: Phase = {
    target,
    arbitrary: conversationArbitrary(target.interface),
    play: playerOf(target, exploration),
    exploration,
    judged: judgedIds<SenderRelationId>(senderRelations(target.interface), target.judged),
  };

  if (setup.path !== undefined) {
    exploration.replayed = setup.path;
    await shrinkAndConfirm(phase, undefined, setup.path, setup.shrinkTimeMs);
    exploration.durationMs = Date.now() - started;
    return exploration;
  }

  // 1. Explore: the fixed conversations, then the drawn ones, until the budget is spent. The first fixed one times
  // the waits of backoff: alone, as the timed scenario, so that the sender's own timers are not held up by the others.
  const deadline = performance.now() + setup.timeLimitMs;
  const firstBroken = new Map<SenderRelationId, FirstBroken>();
  await explorePass({
    fixed: COVERAGE,
    drawn: drawLazily(phase.arbitrary, setup.seed, setup.conversations),
    concurrency: setup.concurrency,
    spent: () => performance.now() >= deadline || target.signal.aborted,
    alone: () => target.alonePlayed?.(),
    play: async (index, conversation) => {
      const played = await phase.play(conversation, deadline + target.waitMs / 2, true);
      noteFirstBroken(firstBroken, phase.judged, { index, conversation, played });
    },
  });
  exploration.timedOut =
    performance.now() >= deadline && exploration.conversations < COVERAGE.length + setup.conversations;

  // 2 and 3. Shrink and confirm each relation broken, a must one first, within one budget of time for them all.
  const shrinkUntil = performance.now() + setup.shrinkTimeMs;
  const ordered = [...firstBroken].sort(([, a], [, b]) =>
    a.finding.level === b.finding.level ? 0 : a.finding.level === 'must' ? -1 : 1,
  );
  for (const [relation, first] of ordered) {
    if (target.signal.aborted) break;
    const seen = { relation, finding: first.finding, conversation: first.conversation, record: first.played.record };
    if (first.index >= 0 && performance.now() < shrinkUntil) {
      await shrinkAndConfirm(phase, seen, String(first.index), shrinkUntil - performance.now());
      continue;
    }
    // A fixed conversation is not one fast-check drew, and a budget spent leaves none to shrink: confirmed as it is.
    const path = first.index < 0 ? undefined : String(first.index);
    const failure = await confirm(phase.play, seen.conversation, seen, path, 0);
    if (failure) exploration.failures[relation] = failure;
  }
  exploration.durationMs = Date.now() - started;
  return exploration;
}

type Play = (conversation: Conversation, deadlineMono: number, keep: boolean) => Promise<Played>;

/** The conversation each judged relation is shrunk from: a must breach over a should one, then the first drawn. */
interface FirstBroken {
  index: number;
  conversation: Conversation;
  played: Played;
  finding: SenderFinding;
}

function noteFirstBroken(
  firstBroken: Map<SenderRelationId, FirstBroken>,
  judged: ReadonlySet<SenderRelationId>,
  seen: Omit<FirstBroken, 'finding'>,
): void {
  for (const [relation, finding] of Object.entries(seen.played.breaches) as [SenderRelationId, SenderFinding][]) {
    if (!judged.has(relation)) continue;
    const known = firstBroken.get(relation);
    const stronger = known && known.finding.level === 'should' && finding.level === 'must';
    const weaker = known && known.finding.level === 'must' && finding.level === 'should';
    if (!known || stronger || (seen.index < known.index && !weaker)) firstBroken.set(relation, { ...seen, finding });
  }
}

interface Seen {
  relation: SenderRelationId;
  finding: SenderFinding;
}

/** Whether a conversation broke the relation at the level it was first seen at (a `must` breach is hunted as one). */
function breaks(played: Played, seen: Seen): SenderFinding | undefined {
  const found = played.breaches[seen.relation];
  return found && (seen.finding.level === 'should' || found.level === 'must') ? found : undefined;
}

/**
 * fast-check replays the conversation at `path` and shrinks it while it still breaks the relation (on a replay, the
 * first judged one it breaks), for at most `shrinkTimeMs`; the shortest is then confirmed. Each candidate is a run of
 * the trigger of its own.
 */
async function shrinkAndConfirm(
  phase: Phase,
  hunted: (Seen & { conversation: Conversation; record: StageRecord }) | undefined,
  path: string,
  shrinkTimeMs: number,
): Promise<void> {
  const { target, exploration, judged, play } = phase;
  let shrinks = 0;
  let last: Seen | undefined = hunted;
  const deadline = performance.now() + Math.max(0, shrinkTimeMs);
  const details = await fc.check(
    fc.asyncProperty(phase.arbitrary, async (conversation) => {
      if (target.signal.aborted) return true;
      const played = await play(conversation, deadline, false);
      const relation =
        hunted?.relation ?? (Object.keys(played.breaches) as SenderRelationId[]).find((id) => judged.has(id));
      const finding = relation === undefined ? undefined : hunted ? breaks(played, hunted) : played.breaches[relation];
      if (relation === undefined || finding === undefined) return true;
      shrinks += 1;
      last = { relation, finding };
      return false;
    }),
    replayOnce(exploration.seed, path, Math.max(1, shrinkTimeMs)),
  );
  const seen = last;
  if (seen === undefined) return;
  const conversation = details.counterexample?.[0];
  if (!conversation) {
    // Not broken again on the replay: the first sighting stands, reported as seen once (one of timing is no failure).
    if (hunted && !TIMED_TERMS.has(seen.finding.term))
      exploration.failures[seen.relation] = {
        scripts: hunted.conversation,
        actual: seen.finding.actual ?? '',
        should: seen.finding.level === 'should',
        record: hunted.record,
        path,
        ...unconfirmed(details.interrupted),
      };
    return;
  }
  const failure = await confirm(play, conversation, seen, details.counterexamplePath ?? path, Math.max(0, shrinks - 1));
  if (failure) exploration.failures[seen.relation] = failure;
}

/**
 * Plays the conversation again, as often as judging.ts asks to confirm the term, and keeps the last play as the
 * evidence. A breach of timing not seen again is no failure: the sender's timers may have lagged, or its jitter drawn.
 */
async function confirm(
  play: Play,
  conversation: Conversation,
  seen: Seen,
  path: string | undefined,
  shrinks: number,
): Promise<SenderShrunk | undefined> {
  let played = await play(conversation, Number.POSITIVE_INFINITY, true);
  let again = breaks(played, seen);
  for (let plays = 2; again && plays < playsToConfirm(seen.finding.term); plays += 1) {
    played = await play(conversation, Number.POSITIVE_INFINITY, true);
    again = breaks(played, seen);
  }
  if (!again && TIMED_TERMS.has(seen.finding.term)) return undefined;
  const finding = again ?? seen.finding;
  return {
    scripts: conversation,
    actual: finding.actual ?? '',
    should: finding.level === 'should',
    record: played.record,
    ...(path !== undefined ? { path } : {}),
    confirmed: again !== undefined,
    shrinks,
  };
}
