/**
 * What the stateful phase of a run is given: its seed (printed on every run: the same seed draws the same
 * conversations), an optional path that replays one shrunk conversation, and its budget: requests, time, and the
 * bounds of shrinking. Plain data, no fast-check: the catalogue's checks read it, and the phase itself is loaded
 * only when one of its checks runs.
 */
import { randomInt } from 'node:crypto';
import { EXPLORE_CAPS } from '../../bounds.js';
import type { InterfaceId } from '../../spec/constants.js';
import type { Session } from '../probe/session.js';

export interface ExploreRequest {
  /** About this many requests (`--generate N`); absent: the interface's default. */
  requests?: number;
  /** Draws the conversations (`--seed S`); absent: a random one, printed. */
  seed?: number;
  /** fast-check's path of one conversation (`--seed S:PATH`): only it is run, shrunk and confirmed. */
  path?: string;
  /** The longest the exploring may take (`--budget`). */
  timeLimitMs?: number;
}

/** Seeds are drawn from the 31 bits fast-check takes whole. */
export const MAX_SEED = 2 ** 31 - 1;

export function randomSeed(): number {
  return randomInt(MAX_SEED);
}

/**
 * `S`, or `S:PATH` as a failure prints it: fast-check's path (digits and colons), then `~` and the replay path of the
 * commands that ran (fast-check's own letters); undefined when it is neither.
 */
export function parseSeed(text: string): { seed: number; path?: string } | undefined {
  const match = /^(\d{1,10})(?::(\d+(?::\d+)*(?:~[A-Za-z0-9+/=:]*)?))?$/.exec(text.trim());
  if (!match) return undefined;
  const seed = Number(match[1]);
  if (seed > MAX_SEED) return undefined;
  return { seed, ...(match[2] !== undefined ? { path: match[2] } : {}) };
}

/**
 * The setup of a run's stateful phase against a receiver of the interface. `judged`: the places, in relation order,
 * of the relations whose checks the run judges: only they are shrunk, and a replay hunts them alone (another relation
 * the same conversation breaks would take the shrinking elsewhere).
 */
export function exploreSetup(
  iface: InterfaceId,
  request: ExploreRequest,
  concurrency: number,
  judged: ReadonlySet<number>,
) {
  const caps = EXPLORE_CAPS.receiver[iface];
  const requests = request.requests ?? caps.defaultRequests;
  const { conversations: _, ...shared } = senderExploreSetup(
    iface,
    { ...request, seed: request.seed ?? randomSeed() },
    concurrency,
  );
  return {
    ...shared,
    requests,
    timeLimitMs: request.timeLimitMs ?? caps.defaultTimeLimitMs,
    // Steps of one conversation at most; conversations at most, enough that the budget of requests, not their
    // number, ends the exploring.
    maxSteps: EXPLORE_CAPS.maxSteps,
    maxConversations: Math.max(1, Math.ceil(requests / 4)),
    shrinkTimeMs: EXPLORE_CAPS.shrinkTimeMs,
    judged,
  };
}

/** Against a sender: conversations drawn at most (`--generate N`); a receiver's phase keeps its seed, path and concurrency. */
export function senderExploreSetup(
  iface: InterfaceId,
  request: ExploreRequest & { seed: number },
  concurrency: number,
) {
  const caps = EXPLORE_CAPS.sender;
  return {
    seed: request.seed,
    ...(request.path !== undefined ? { path: request.path } : {}),
    conversations: request.requests ?? caps.defaultConversations[iface],
    timeLimitMs: request.timeLimitMs ?? caps.defaultTimeLimitMs,
    concurrency: Math.max(1, Math.min(concurrency, EXPLORE_CAPS.concurrency)),
    // Shrinking one relation's failure (a sender's: every relation's, in all): at most this long.
    shrinkTimeMs: caps.shrinkTimeMs,
  };
}

export type ExploreSetup = ReturnType<typeof exploreSetup>;

/** Each session's stateful phase, when the run plans one: set by the run, read by the first of its checks. */
export const EXPLORATIONS = new WeakMap<Session, ExploreSetup>();

export function isStateCheck(id: string): boolean {
  return /^[AB]S?-STATE-\d{3}$/.test(id);
}

/** The places, in relation order, of the state checks a plan runs (`A-STATE-002` and `AS-STATE-002`: 1). */
export function judgedRelations(plan: {
  planned: readonly { check: { id: string }; skipReason?: string }[];
}): ReadonlySet<number> {
  const places = new Set<number>();
  for (const item of plan.planned)
    if (item.skipReason === undefined && isStateCheck(item.check.id)) places.add(Number(item.check.id.slice(-3)) - 1);
  return places;
}
