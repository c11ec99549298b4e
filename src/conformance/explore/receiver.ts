/**
 * The stateful phase against a receiver: generated conversations (fast-check's `fc.commands`, run with
 * `fc.asyncModelRun`), each judged request by request by the model of the receiver, in three passes:
 *
 * 1. explore: a first conversation that takes every kind of step once (so every relation has evidence on every
 *    run), then the conversations the seed draws, a few at once, until the budget of requests or time is spent;
 *    every breach is noted under its relation, with the place of the first conversation that showed it;
 * 2. shrink: for each relation broken, fast-check replays that conversation (the seed and its place) and shrinks it
 *    to the shortest that still breaks the relation, each candidate sent for real with ids of its own;
 * 3. confirm: the shortest is run once more and kept as the evidence (its steps and exchanges); one that does not
 *    break the relation again is reported as seen once.
 *
 * `--seed S:PATH` replays one shrunk conversation exactly (fast-check's path), without exploring.
 */
import * as fc from 'fast-check';
import type { ReceiverRelationId } from '../../spec/model/relations.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { PhaseExploration, Shrinking } from '../evidence.js';
import type { Session } from '../probe/session.js';
import {
  ConversationRunner,
  RelationBroken,
  type Conversation,
  type RelationBreach,
  type StepRecord,
} from './receiver-run.js';
import { applyChange } from '../generate/mutations.js';
import { drawLazily, explorePass, replayOnce } from './draw.js';
import { countConversation, explorationOf, unconfirmed } from './phase-verdict.js';
import { ID_TRANSFORMS, MALFORMED } from './receiver-requests.js';
import { stepArbitraries, type Step, type StepContext } from './receiver-steps.js';
import type { ExploreSetup } from './setup.js';

/** A relation's failure: the shortest conversation found that breaks it, run once more. */
export interface Shrunk extends Shrinking {
  breach: RelationBreach;
  steps: StepRecord[];
}

export interface Exploration extends PhaseExploration<ReceiverRelationId, Shrunk> {
  requests: number;
}

/** The steps of a conversation fast-check drew (its iterable holds each command in a wrapper of its own). */
function stepsOf(commands: Iterable<StepCommand>): Step[] {
  return [...commands].map((item) => ((item as unknown as { cmd?: StepCommand }).cmd ?? item).step);
}

/** One step as fast-check runs it: the conversation runner is the real system; the model lives in its scope. */
class StepCommand implements fc.AsyncCommand<object, ConversationRunner> {
  constructor(readonly step: Step) {}

  check(): boolean {
    return true;
  }

  run(_model: object, runner: ConversationRunner): Promise<void> {
    return runner.run(this.step);
  }

  toString(): string {
    return this.step.kind;
  }
}

export interface ExploreTarget {
  session: Session;
  setup: ExploreSetup;
  context: StepContext;
  /** The free-text field of the receiver's document. */
  textField: string;
  /** The relations the run judges (the planned checks'). */
  relations: ReadonlySet<ReceiverRelationId>;
}

/** Fields each interface requires, given as null once in the first conversation (a validator that reads into one before checking it fails). */
const REQUIRED_NULLS = { A: ['contact', 'contact.name', 'callback_url'], B: ['event', 'occurred_at'] } as const;

/** Others sent between an event_id and its repeat in the first conversation: more than a memory of the last 100 holds. */
const CROWD_BEFORE_REPEAT = 110;

/**
 * Every kind of step once, in an order that makes each relation bear: the first conversation of every run. Its
 * first event_id is long (the same first 64 characters then mean something), with capitals, accents, hyphens and a
 * number (what the transforms of ID_TRANSFORMS change).
 */
function coverageSteps(context: StepContext, sizeLimit: boolean, seed: number): Step[] {
  // The first valid step and the first invalid one with an event_id of the seed's first 200: drawn until both are in.
  let send: Extract<Step, { kind: 'send' }> | undefined;
  let invalid: Extract<Step, { kind: 'invalid' }> | undefined;
  for (const step of drawLazily(stepArbitraries(context, { sizeLimit })[0] as fc.Arbitrary<Step>, seed, 200)) {
    if (send === undefined && step.kind === 'send') send = step;
    if (invalid === undefined && step.kind === 'invalid' && step.draft.id !== undefined) invalid = step;
    if (send !== undefined && invalid !== undefined) break;
  }
  if (!send) return [];
  const fresh = { kind: 'fresh', shape: { tail: '', length: 'natural' } } as const;
  const plain = { ...send, wire: { form: 'compact' as const, chunked: false, charset: false, secret: 0 } };
  const marked = { kind: 'fresh', shape: { tail: `Café-ñ-07-${'o'.repeat(56)}`, length: 'natural' } } as const;
  const first = { kind: 'earlier', slot: 0 } as const;
  const justUsed = { kind: 'earlier', slot: -1 } as const;
  return [
    { ...plain, id: marked },
    { ...plain, id: first },
    // The same event_id spelt with \u escapes: one value once parsed (RFC 8259 §7), so a repeat.
    { ...plain, id: first, wire: { ...plain.wire, form: 'escaped-id' } },
    { kind: 'forged', draft: plain.draft, id: first, forgery: 'wrong-secret' },
    { kind: 'forged', draft: plain.draft, id: fresh, forgery: 'stale' },
    ...(['empty-secret', 'stale-and-fresh'] as const).map(
      (forgery): Step => ({ kind: 'forged', draft: plain.draft, id: fresh, forgery }),
    ),
    // The stale one's id, refused, then sent validly: new (no trace).
    { ...plain, id: justUsed },
    ...ID_TRANSFORMS.map((transform): Step => ({ ...plain, id: { kind: 'near', slot: 0, transform } })),
    // A UUID, then in capitals, then without hyphens: one value to a UUID column, three event_ids to §2.4.
    { ...plain, id: { kind: 'fresh', shape: { tail: '', length: 'natural', uuid: 'lower' } } },
    ...(['upper-case', 'no-hyphens'] as const).map(
      (transform): Step => ({ ...plain, id: { kind: 'near', slot: -1, transform } }),
    ),
    // An invalid document's id, then a valid one with it: new (no trace).
    ...(invalid
      ? [
          { ...invalid, id: fresh },
          { ...plain, id: justUsed },
        ]
      : []),
    // Every near miss of JSON's grammar, and the unknown fields where parsers differ, on every run: each is one
    // request, and a fault only one of them shows (a reader that replaces bytes it cannot decode) is then always seen.
    ...MALFORMED.map((how): Step => ({ kind: 'malformed', draft: plain.draft, id: fresh, how, at: 500 })),
    ...(['deep-field', 'unpaired-surrogate'] as const).map(
      (form): Step => ({ ...plain, id: fresh, wire: { ...plain.wire, form } }),
    ),
    ...REQUIRED_NULLS[context.interface].map(
      (path): Step => ({
        kind: 'invalid',
        draft: applyChange(plain.draft, { path, value: null, why: `${path} given as null` }),
        id: fresh,
      }),
    ),
    // Chunked, its chunks meeting between characters: a receiver that takes it has chosen to read chunked bodies
    // (the model holds it to that). Then cut inside a character of several bytes (probe/session.ts), a moment apart.
    ...[{ wholeCharacters: true } as const, {}].map(
      (cut): Step => ({
        ...plain,
        id: { kind: 'fresh', shape: { tail: 'ñandú-€-🙂', length: 'natural' } },
        wire: { ...plain.wire, chunked: true, ...cut },
      }),
    ),
    ...(['constructor', '__proto__', 'toString'] as const).map(
      (name): Step => ({ ...plain, id: { kind: 'builtin', name } }),
    ),
    { kind: 'burst', draft: plain.draft, id: fresh, copies: 3 },
    { kind: 'crowd', draft: plain.draft, count: CROWD_BEFORE_REPEAT },
    { ...plain, id: first },
    ...(sizeLimit
      ? (['text', 'whitespace'] as const).map(
          (padding): Step => ({ kind: 'oversize', draft: plain.draft, id: fresh, padding }),
        )
      : []),
  ];
}

/** What the passes of one phase share: the target, the conversations it draws, and the exploration they add to. */
interface Phase {
  target: ExploreTarget;
  /** Conversations as fast-check draws them: up to `maxSteps` steps of any kind (a replay path replays a shrunk one). */
  arbitrary: fc.Arbitrary<Iterable<StepCommand>>;
  exploration: Exploration;
  /** A conversation of its own (its own ids), stopped at a breach of one of `stopAt`, its crowds' waves at `until`. */
  runner(stopAt?: ReadonlySet<ReceiverRelationId>, until?: number): ConversationRunner;
}

/** Counts a conversation that ran into the exploration: its requests, and the evidence of each relation. */
function tally(exploration: Exploration, conversation: Conversation): void {
  countConversation(exploration, conversation.evidence);
  exploration.requests += conversation.requests;
}

export async function exploreReceiver(target: ExploreTarget): Promise<Exploration> {
  const { session, setup, context } = target;
  const started = Date.now();
  const sizeLimit = interfaceSpec(context.interface).sizeLimitStated;
  // fast-check shrinks only the commands that ran; replaying a shrunk conversation needs its replay path as well.
  const [path, replayPath] = (setup.path ?? '').split('~');
  const exploration: Exploration = { ...explorationOf(setup.seed), requests: 0 };
  let names = 0;
  const phase: Phase = {
    target,
    arbitrary: fc.commands(
      stepArbitraries(context, { sizeLimit }).map((arbitrary) => arbitrary.map((step) => new StepCommand(step))),
      { maxCommands: setup.maxSteps, ...(replayPath ? { replayPath } : {}) },
    ) as unknown as fc.Arbitrary<Iterable<StepCommand>>,
    exploration,
    runner: (stopAt, until) =>
      new ConversationRunner({
        session,
        name: `${context.interface}-STATE-c${(names += 1)}`,
        textField: target.textField,
        ...(stopAt ? { stopAt } : {}),
        ...(until !== undefined ? { until } : {}),
      }),
  };
  const firstBroken = new Map<ReceiverRelationId, FirstBroken>();

  if (setup.path !== undefined) {
    exploration.replayed = setup.path;
    await shrinkAndConfirm(phase, target.relations, { index: -1, path: path ?? '' });
    exploration.durationMs = Date.now() - started;
    return exploration;
  }

  // 1. Explore: the coverage conversation, then the drawn ones, until the budget is spent.
  const coverage = coverageSteps(context, sizeLimit, setup.seed);
  const deadline = started + setup.timeLimitMs;
  await explorePass({
    fixed: [coverage],
    drawn: drawLazily(phase.arbitrary.map(stepsOf), setup.seed, setup.maxConversations),
    concurrency: setup.concurrency,
    spent: () => exploration.requests >= setup.requests || Date.now() >= deadline || session.signal.aborted,
    play: async (index, steps) => {
      // The budget bounds the drawn conversations under way too: past it each stops after its current step, a crowd
      // after its current wave (a rate-limited receiver's waits made a 20 s budget 44 s); what it sent is judged as it
      // ran. The coverage conversation, the evidence of every relation, is always played whole.
      const until = index < 0 ? undefined : deadline;
      const conversation = phase.runner(undefined, until);
      for (const step of steps) {
        if (session.signal.aborted || Date.now() >= (until ?? Infinity)) break;
        await conversation.run(step);
      }
      tally(exploration, conversation.result);
      noteFirstBroken(firstBroken, target.relations, index, conversation.result);
    },
  });
  exploration.timedOut = Date.now() >= deadline && exploration.requests < setup.requests;

  // 2 and 3. Shrink and confirm each relation broken; the coverage conversation, which fast-check did not draw, is
  // confirmed as it is, without shrinking.
  for (const [relation, first] of firstBroken) {
    if (session.signal.aborted) break;
    if (first.index < 0) exploration.failures[relation] = await confirm(phase, coverage, first.breach);
    else await shrinkAndConfirm(phase, new Set([relation]), { ...first, path: String(first.index) });
  }
  exploration.durationMs = Date.now() - started;
  return exploration;
}

interface FirstBroken {
  /** The conversation's place among those drawn; -1: the coverage conversation. */
  index: number;
  breach: RelationBreach;
  /** The conversation as it ran: the evidence when no replay breaks it again (or the shrinking's time ran out). */
  steps: StepRecord[];
}

/**
 * The first drawn conversation that breaks a relation is shrunk (fast-check's path replays it); the coverage
 * conversation, which fast-check did not draw, stands only where no drawn one breaks it.
 */
function noteFirstBroken(
  firstBroken: Map<ReceiverRelationId, FirstBroken>,
  judged: ReadonlySet<ReceiverRelationId>,
  index: number,
  { breaches, steps }: Pick<Conversation, 'breaches' | 'steps'>,
): void {
  for (const breach of breaches) {
    const known = firstBroken.get(breach.relation);
    const better = !known || (known.index < 0 ? index >= 0 : index >= 0 && index < known.index);
    if (judged.has(breach.relation) && better) firstBroken.set(breach.relation, { index, breach, steps });
  }
}

/**
 * fast-check replays the conversation at `path` and shrinks it while it still breaks one of `hunted`; the shortest
 * is then confirmed. Each candidate is a conversation of its own (its own ids), sent for real.
 */
async function shrinkAndConfirm(
  phase: Phase,
  hunted: ReadonlySet<ReceiverRelationId>,
  from: { index: number; path: string; breach?: RelationBreach; steps?: StepRecord[] },
): Promise<void> {
  const { target, exploration } = phase;
  let shrinks = 0;
  let last: RelationBreach | undefined = from.breach;
  const details = await fc.check(
    fc.asyncProperty(phase.arbitrary, async (commands) => {
      if (target.session.signal.aborted) return;
      const conversation = phase.runner(hunted);
      try {
        await fc.asyncModelRun(() => ({ model: {}, real: conversation }), commands);
      } catch (error) {
        if (error instanceof RelationBroken) {
          shrinks += 1;
          last = error.breach;
        }
        throw error;
      } finally {
        tally(exploration, conversation.result);
      }
    }),
    replayOnce(target.setup.seed, from.path, target.setup.shrinkTimeMs),
  );
  const broken = last;
  if (broken === undefined) return;
  const commands = details.counterexample?.[0];
  if (!commands) {
    // Not broken again on the replay (or its time ran out first, on a busy machine): the first sighting stands,
    // reported as seen once, with the conversation as it ran then.
    exploration.failures[broken.relation] = {
      breach: broken,
      steps: from.steps ?? [],
      ...unconfirmed(details.interrupted),
    };
    return;
  }
  const replayed = /replayPath="([^"]*)"/.exec(String(commands))?.[1];
  const path = `${details.counterexamplePath ?? from.path}${replayed ? `~${replayed}` : ''}`;
  exploration.failures[broken.relation] = await confirm(phase, stepsOf(commands), broken, {
    path,
    shrinks: Math.max(0, shrinks - 1),
  });
}

/** Runs the conversation once more, in full, and keeps it as the failure's evidence (`found`: how it was shrunk). */
async function confirm(
  phase: Phase,
  steps: readonly Step[],
  seen: RelationBreach,
  found: { path?: string; shrinks: number } = { shrinks: 0 },
): Promise<Shrunk> {
  const conversation = phase.runner(new Set([seen.relation]));
  let again: RelationBreach | undefined;
  try {
    for (const step of steps) await conversation.run(step);
  } catch (error) {
    if (!(error instanceof RelationBroken)) throw error;
    again = error.breach;
  }
  tally(phase.exploration, conversation.result);
  return { breach: again ?? seen, steps: conversation.result.steps, ...found, confirmed: again !== undefined };
}
