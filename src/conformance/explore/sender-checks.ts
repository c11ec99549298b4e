/**
 * The checks of the stateful phase of a sender run: one per relation of the sender model (S1–S7,
 * src/spec/model/sender-relations.ts), each judged on the same generated conversations (./sender.ts: answer scripts
 * played to the sender through the trigger). A relation passes on the findings the model kept in them, fails with
 * the shortest conversation that breaks it (replayed by its seed and path), and is not judged when nothing bore on
 * it. This module loads no fast-check: the phase, which does, is imported when a run plans one of these checks.
 */
import { EXPLORE_CAPS } from '../../bounds.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { senderRelations, type SenderRelationId } from '../../spec/model/sender-relations.js';
import type { Relation } from '../../spec/model/relations.js';
import { defineSenderCheck, failed, notJudged, type Outcome, type SenderCheck } from '../check.js';
import type { SenderEvidence, SenderExploration } from '../evidence.js';
import { describeScripted, type ScriptedAnswer } from '../listen/scenarios.js';
import { plural, replayOf, runNote, seenOnce, shortestFound, stateCheckRow, unbroken } from './phase-verdict.js';
import type { ExploreRequest } from './setup.js';

/** The setup of a run's stateful phase against a sender of the interface. */
export function senderExploreSetup(
  iface: InterfaceId,
  request: ExploreRequest & { seed: number },
  concurrency: number,
) {
  const caps = EXPLORE_CAPS.sender;
  return {
    seed: request.seed,
    ...(request.path !== undefined ? { path: request.path } : {}),
    // Conversations drawn at most (`--generate N`), and how long the drawing may go on (`--budget`).
    conversations: request.requests ?? caps.defaultConversations[iface],
    timeLimitMs: request.timeLimitMs ?? caps.defaultTimeLimitMs,
    concurrency: Math.max(1, Math.min(concurrency, EXPLORE_CAPS.concurrency)),
    // Shrinking one relation's failure: at most this long.
    shrinkTimeMs: caps.shrinkTimeMs,
  };
}

/** `503, then 429 (Retry-After: 1), then 202`; several documents: `document 1: …; document 2: …`. */
export function describeConversation(scripts: readonly (readonly ScriptedAnswer[])[], iface: InterfaceId): string {
  const one = (script: readonly ScriptedAnswer[]) =>
    script.map((answer) => describeScripted(answer, iface)).join(', then ');
  return scripts.length === 1
    ? one(scripts[0] ?? [])
    : scripts.map((script, index) => `document ${index + 1}: ${one(script)}`).join('; ');
}

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
