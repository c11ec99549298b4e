/**
 * When a stage is over. A sender may send one document or many, one after the other or at once; cai cannot know
 * how many, so a stage lasts until every delivery has settled and nothing more has come for `--observe`:
 *
 * - before its first attempt, a stage waits up to `--wait`;
 * - a delivery settles with a final answer (2xx, 400, 401, 413), or when `--wait` has passed since its first
 *   attempt (the sender gave up, or is too slow to judge);
 * - after the last attempt (or answer), cai listens `--observe` more, for an attempt that must not come (a repeat
 *   of a final answer) or for the sender's next document;
 * - the trigger must have exited too (it may still be sending), unless nothing has come for `--wait`.
 *
 * Every wait counts the time cai could listen: while its own loop was held (by cai, or a machine too busy to run
 * it), an attempt may have come and not been read, so the time held is added to each wait, up to one `--wait` more;
 * never to a bound of the run (the stage's deadline, unless it is a wait of its own).
 *
 * Pure: the stage's attempts and the clock in, whether it is over and when to look again out.
 */
import { deliveriesOf, nextAfter } from '../../spec/model/sender.js';
import type { Attempt, StageRecord } from '../evidence.js';

export interface SettleOptions {
  waitMs: number;
  observeMs: number;
  /** The trigger has exited (or there is none: a person, or cai itself sent what the stage receives). */
  senderDone: boolean;
  /** The trigger failed before any attempt: nothing will come. */
  failedEarly: boolean;
  /** Stage-specific: more must be seen before the stage may end (e.g. a conversation's ending event). */
  awaiting?: boolean;
  /** No stage outlives this (monotonic ms), whatever is still under way: a bound, which no time held moves. */
  deadlineMono?: number;
  /** The deadline is a wait of its own (a job's events, from its answer): it moves on by the time held, as they do. */
  deadlineIsWait?: boolean;
  /** How long cai's own loop has been held up since the stage began (ms; loop-clock.ts). */
  heldMs?: number;
}

function lastActivity(attempts: readonly Attempt[]): number {
  return Math.max(...attempts.map((attempt) => attempt.answeredMono ?? attempt.arrivedMono));
}

/** Whether the stage is over, and when something may have changed even if nothing arrives (`nextMono`, monotonic ms). */
export function stageState(
  record: Pick<StageRecord, 'attempts' | 'startedMono'>,
  nowMono: number,
  options: SettleOptions,
) {
  // The stage is looked at as it stood `held` ms ago: every wait moves on by the time held; a bound does not.
  const held = Math.max(0, Math.min(options.heldMs ?? 0, options.waitMs));
  const bound = options.deadlineIsWait ? Number.POSITIVE_INFINITY : (options.deadlineMono ?? Number.POSITIVE_INFINITY);
  if (nowMono >= bound) return { done: true, nextMono: nowMono };
  const state = stateAt(record, nowMono - held, options);
  return { done: state.done, nextMono: Math.min(state.nextMono + held, bound) };
}

function stateAt(record: Pick<StageRecord, 'attempts' | 'startedMono'>, nowMono: number, options: SettleOptions) {
  const deadline = options.deadlineMono ?? Number.POSITIVE_INFINITY;
  if (nowMono >= deadline) return { done: true, nextMono: nowMono };
  const attempts = record.attempts.filter((attempt) => !attempt.late);
  if (attempts.length === 0) {
    const firstBy = Math.min(record.startedMono + options.waitMs, deadline);
    return { done: options.failedEarly || nowMono >= firstBy, nextMono: firstBy };
  }
  let next = deadline;
  let settled = true;
  // A document sent again under a new event_id goes on in the delivery it renames (the sender model's deliveries).
  for (const { attempts: delivery } of deliveriesOf(attempts)) {
    const last = delivery.at(-1) as Attempt;
    // The sender model's next step: a final answer it heard ends the delivery (one it never got does not).
    if (last.answeredMono !== undefined && nextAfter(last).must === 'stop') continue;
    const givenUpAt = (delivery[0] as Attempt).arrivedMono + options.waitMs;
    if (nowMono >= givenUpAt) continue;
    settled = false;
    next = Math.min(next, givenUpAt);
  }
  const quietSince = lastActivity(attempts);
  const quietEnough = nowMono >= quietSince + options.observeMs;
  const senderDone = options.senderDone || nowMono >= quietSince + options.waitMs;
  if (!quietEnough) next = Math.min(next, quietSince + options.observeMs);
  else if (!senderDone) next = Math.min(next, quietSince + options.waitMs);
  const done = settled && quietEnough && senderDone && options.awaiting !== true;
  return { done, nextMono: Math.max(nowMono, next === Number.POSITIVE_INFINITY ? nowMono + options.waitMs : next) };
}
