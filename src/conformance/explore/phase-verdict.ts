/**
 * What the stateful phases of both roles share, their explorers' and their checks' (./checks.ts): the
 * count of conversations, the note on the run, the heading of the shortest conversation that broke a relation and the
 * replay it carries, and the verdict on a relation nothing broke: passed on what bore on it, not judged without it.
 */
import type { InterfaceId } from '../../spec/constants.js';
import type { Relation } from '../../spec/model/relations.js';
import { notJudged, passed, type Outcome } from '../check.js';
import type { PhaseExploration, Shrinking } from '../evidence.js';
import { plural } from '../../text.js';
import { formatDuration } from '../../duration.js';

type Phase = PhaseExploration<string, unknown>;
type Found = Omit<Shrinking, 'confirmed'>;

export { plural };

/** A phase's exploration before its first conversation. */
export function explorationOf(seed: number) {
  return { seed, conversations: 0, durationMs: 0, evidence: {}, failures: {}, timedOut: false };
}

/** One conversation counted into the exploration, with the evidence it brought each relation. */
export function countConversation<Id extends string>(
  exploration: PhaseExploration<Id, unknown>,
  bore: Partial<Record<Id, number>>,
): void {
  exploration.conversations += 1;
  for (const [relation, count] of Object.entries(bore) as [Id, number][])
    exploration.evidence[relation] = (exploration.evidence[relation] ?? 0) + count;
}

/** `stateful phase, seed 7: 40 conversations, 312 requests in 9.1 s`; `played`: what the conversations brought. */
export function runNote(exploration: Phase, played: string): string {
  const how =
    exploration.replayed !== undefined
      ? `replayed one conversation (${exploration.seed}:${exploration.replayed})`
      : `${exploration.conversations} conversations, ${played} in ${formatDuration(exploration.durationMs)}`;
  return `stateful phase, seed ${exploration.seed}: ${how}${exploration.timedOut ? '; its time budget ended the exploring' : ''}`;
}

/** The first note of a failure: how far it shrank, and how to play it again. */
export function shortestFound(exploration: Phase, shrunk: Found): string {
  const replay = shrunk.path !== undefined ? `; replay it with the seed ${exploration.seed}:${shrunk.path}` : '';
  if (shrunk.outOfTime) return `the conversation as it first broke it (the time to shrink it ran out first)${replay}`;
  return `the shortest conversation found (${plural(shrunk.shrinks, 'shorter one')} on the way)${replay}`;
}

/** A failure as first seen, not confirmed: `interrupted` when the time to shrink it ran out before its replay. */
export const unconfirmed = (interrupted: boolean) => ({
  confirmed: false,
  shrinks: 0,
  ...(interrupted ? { outOfTime: true as const } : {}),
});

/** Said of a failure not seen again: it did not break the relation when played once more, or was not played again. */
export function seenOnce(shrunk: Shrinking, played: 'run' | 'played'): string {
  if (shrunk.confirmed) return '';
  if (shrunk.outOfTime) return ' (seen once: the time to play it again ran out first)';
  return ` (seen once: the conversation did not break it again when ${played} once more)`;
}

/** The replay a failure's outcome carries (`--seed S:PATH`), when it has a path. */
export const replayOf = (exploration: Phase, shrunk: Found): { replay?: string } =>
  shrunk.path !== undefined ? { replay: `${exploration.seed}:${shrunk.path}` } : {};

/** A relation nothing broke: passed on the `count` of `drawn` things that bore on it (`actual`), not judged on none. */
export function unbroken(
  exploration: Phase,
  relation: { id: string; title: string },
  drawn: string,
  actual: (count: number) => string,
  notes: string[],
): Outcome {
  const count = exploration.evidence[relation.id] ?? 0;
  if (count === 0)
    return notJudged(
      exploration.replayed !== undefined
        ? 'the replayed conversation did not bear on it'
        : `no generated ${drawn} bore on it`,
    );
  return passed(relation.title, actual(count), notes);
}

/** What the check of a relation says of itself, in relation order: `B-STATE-001` (`prefix` B), a sender's `BS-STATE-001`. */
export function stateCheckRow(prefix: string, iface: InterfaceId, relation: Relation, index: number) {
  return {
    id: `${prefix}-STATE-${String(index + 1).padStart(3, '0')}`,
    interface: iface,
    level: relation.level,
    sections: [...new Set(relation.clauses.map((clause) => clause.replace(/-\d+$/, '')))],
    clauses: relation.clauses,
    tags: ['state', ...relation.tags],
    title: `generated conversations: ${relation.title}`,
  };
}

/** The ids of the relations whose checks the run judges (`judged`: their places, in relation order). */
export function judgedIds<Id extends string>(
  relations: readonly { id: string }[],
  judged: ReadonlySet<number>,
): ReadonlySet<Id> {
  return new Set(relations.filter((_, place) => judged.has(place)).map((relation) => relation.id as Id));
}
