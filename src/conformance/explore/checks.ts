/**
 * The checks of the stateful phases: one per relation of a model, each judged on the same generated conversations,
 * run once per run and shared. Against a receiver (src/spec/model/relations.ts; ./receiver.ts), a relation passes on
 * the evidence of the requests that bore on it; against a sender (S1–S7, src/spec/model/sender-relations.ts;
 * ./sender.ts: answer scripts played to the sender through the trigger), on the findings the model kept. Either
 * fails with the shortest conversation that breaks it (replayed by its seed and path), and is not judged when
 * nothing bore on it. On by default; a receiver's run alone, after the other checks.
 *
 * This module loads no fast-check: the phase, which does, is imported when one of these checks runs.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { receiverRelations, type ReceiverRelationId, type Relation } from '../../spec/model/relations.js';
import { senderRelations, type SenderRelationId } from '../../spec/model/sender-relations.js';
import {
  defineCheck,
  defineSenderCheck,
  failed,
  notJudged,
  type Outcome,
  type ReceiverCheck,
  type SenderCheck,
} from '../check.js';
import { EVENTS_RECEIVER, JOBS_RECEIVER, type ByInterface, type Receiver } from '../checks/receiver/receivers.js';
import { describeAnswer, type SenderEvidence, type SenderExploration } from '../evidence.js';
import { describeConversation, describeScripted } from '../listen/scenarios.js';
import type { ProbeScope } from '../probe/scope.js';
import {
  judgedIds,
  plural,
  replayOf,
  runNote,
  seenOnce,
  shortestFound,
  stateCheckRow,
  unbroken,
} from './phase-verdict.js';
import type { Exploration, Shrunk } from './receiver.js';
import { EXPLORATIONS } from './setup.js';

/** The former ids of the generated checks each relation took over (waivers and selections that name them still match). */
const FORMER_IDS: Partial<Record<ReceiverRelationId, string>> = {
  accept: 'GEN-001',
  repeat: 'GEN-002',
  schema: 'GEN-003',
  answer: 'GEN-004',
};

/** The phase of this run: started by the first of its checks, shared by the others. */
async function explorationFor(scope: ProbeScope, receiver: Receiver): Promise<Exploration | undefined> {
  const setup = EXPLORATIONS.get(scope.session);
  if (!setup) return undefined;
  return scope.session.once(`explore-${receiver.interface}`, async () => {
    const { exploreReceiver } = await import('./receiver.js');
    const { config } = scope.session;
    const callbackUrl = scope.session.callback?.backgroundUrl('state') ?? 'https://callback.invalid/cai-conformance';
    return exploreReceiver({
      session: scope.session,
      setup,
      context: {
        interface: receiver.interface,
        draft: {
          ...(config.leadId !== undefined && receiver.spec.document === 'event' ? { leadId: config.leadId } : {}),
          ...(config.branchCode !== undefined ? { branchCode: config.branchCode } : {}),
          callbackUrl,
        },
      },
      textField: receiver.textField,
      relations: judgedIds<ReceiverRelationId>(receiverRelations(receiver.interface), setup.judged),
    });
  });
}

/** A conversation as numbered lines: each step, and what each of its requests was answered. */
function conversationLines(shrunk: Shrunk): string[] {
  return shrunk.steps.map((step, index) => {
    const answers = step.exchanges.map((exchange) => describeAnswer(exchange)).join(', ');
    const marker = index + 1 === shrunk.breach.step ? '  ← breaks the relation' : '';
    return `${index + 1}. ${step.text}${answers ? ` → ${answers}` : ''}${marker}`;
  });
}

/** The breaching step's requests went unanswered within the time-out, every one of them. */
function silentOnce(shrunk: Shrunk): boolean {
  const exchanges = shrunk.steps[shrunk.breach.step - 1]?.exchanges ?? [];
  return (
    exchanges.length > 0 &&
    exchanges.every((exchange) => exchange.status === undefined && exchange.error?.code === 'timeout')
  );
}

export function judgeRelation(relation: Relation, exploration: Exploration | undefined): Outcome {
  if (!exploration) return notJudged('the stateful phase did not run');
  const id = relation.id as ReceiverRelationId;
  const shrunk = exploration.failures[id];
  const notes = [runNote(exploration, `${exploration.requests} requests`)];
  // A receiver's silence past the time-out, not seen again when the conversation ran once more, may be this machine's
  // load as much as the receiver (no verdict may rest on an idle machine): it is left open, not failed.
  if (shrunk && !shrunk.confirmed && silentOnce(shrunk))
    return notJudged(
      `step ${shrunk.breach.step}: no answer within the time-out once (${shrunk.breach.actual}); ${shrunk.outOfTime ? 'the time to run the conversation again ran out first' : 'the conversation run once more was answered as the model allows'}`,
    );
  if (shrunk) {
    const seen = seenOnce(shrunk, 'run');
    const actual = `step ${shrunk.breach.step} of ${Math.max(shrunk.steps.length, shrunk.breach.step)}: expected ${shrunk.breach.expected}; got ${shrunk.breach.actual}${seen}`;
    const exchanges = shrunk.steps.flatMap((step) => step.exchanges).slice(-20);
    return {
      ...failed(relation.title, actual, { exchanges }, [
        `${shortestFound(exploration, shrunk)}:`,
        ...conversationLines(shrunk),
        ...notes,
      ]),
      runAgain: true,
      ...replayOf(exploration, shrunk),
    };
  }
  const bore = (count: number) => `${plural(count, 'request')} bore on it, each answered as the model allows`;
  return unbroken(exploration, relation, 'request', bore, notes);
}

function stateChecks(receiver: Receiver): ReceiverCheck[] {
  return receiverRelations(receiver.interface).map((relation, index) => {
    const former = FORMER_IDS[relation.id as ReceiverRelationId];
    return defineCheck<{ exploration?: Exploration }>({
      ...stateCheckRow(receiver.interface, receiver.interface, relation, index),
      ...(former ? { aliases: [`${receiver.interface}-${former}`] } : {}),
      exclusive: true,
      gather: async (scope) => {
        const exploration = await explorationFor(scope, receiver);
        if (exploration && index === 0) scope.requests += exploration.requests;
        return exploration ? { exploration } : {};
      },
      judge: ({ exploration }) => judgeRelation(relation, exploration),
    });
  });
}

export const stateful: ByInterface = { B: stateChecks(EVENTS_RECEIVER), A: stateChecks(JOBS_RECEIVER) };

export function judgeSenderRelation(
  relation: Relation & { id: SenderRelationId },
  iface: InterfaceId,
  exploration: SenderExploration | undefined,
): Outcome {
  if (!exploration) return notJudged('the stateful phase did not run');
  const shrunk = exploration.failures[relation.id];
  const notes = [runNote(exploration, `${exploration.attempts} attempts`)];
  if (shrunk) {
    const seen = seenOnce(shrunk, 'played');
    const attempts = shrunk.record.attempts.map(
      (attempt) =>
        `${attempt.number}. +${Math.round(attempt.arrivedMono - shrunk.record.startedMono)} ms event_id ${JSON.stringify(String(attempt.key).replace(/^id:/, '').slice(0, 60))} → ${describeScripted(attempt.answer, iface)}${attempt.unheard ? ' (not heard: the sender closed first)' : ''}`,
    );
    const outcome = failed(
      relation.title,
      `answered ${describeConversation(shrunk.scripts, iface)}: ${shrunk.actual}${seen}`,
      { attempts: shrunk.record.attempts.slice(-20) },
      [`${shortestFound(exploration, shrunk)}; its attempts:`, ...attempts.slice(0, 20), ...notes],
    );
    return {
      ...outcome,
      ...(shrunk.should ? { level: 'should' as const } : {}),
      ...replayOf(exploration, shrunk),
    };
  }
  const bore = (count: number) => `${plural(count, 'finding')} of the model bore on it, each as it allows`;
  return unbroken(exploration, relation, 'conversation', bore, notes);
}

/** `BS-STATE-001` …, in relation order. */
function senderStateChecks(iface: InterfaceId): SenderCheck[] {
  return senderRelations(iface).map((relation, index) =>
    defineSenderCheck({
      ...stateCheckRow(interfaceSpec(iface).senderCheckPrefix, iface, relation, index),
      scenarios: [],
      judge: (evidence: SenderEvidence) => judgeSenderRelation(relation, iface, evidence.exploration),
    }),
  );
}

export const senderStateChecksB = senderStateChecks('B');
export const senderStateChecksA = senderStateChecks('A');
