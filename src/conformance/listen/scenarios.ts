/**
 * The scenarios cai plays as a receiver: how it answers the attempts of each delivery. In a sender run
 * (`--role sender`), the trigger makes the sender under test send one or more documents to the scenario's URL,
 * and the first attempt of every new document gets the script's first answer, its second attempt the second, and
 * so on. Between them, the scenarios give every answer the spec lets a receiver give: each 2xx (202, the duplicate
 * answer, 200, 201, 204: §6.5 makes any 2xx "accepted"); five 5xx (503, 504, 502, 503, 501), then 202, and 500, then
 * 202 (§7: 5xx);
 * 429 with Retry-After in seconds and as an HTTP-date, then 202 (§7); a connection cut, then 202 (§8); each
 * refusal, 400, 401 and 413 (§7). In an Interface A run, the callback listener plays the callback scenarios on
 * the events each job brings back, scripting only a job's first event so that its conversation goes on. The
 * checks (checks/sender) judge what the sender did with the answers it got. Plain data: the recorder
 * (./recorder.ts) plays the scripts.
 */
import type { InterfaceId } from '../../spec/constants.js';
import {
  isFinal,
  type AcceptedStatus,
  type Answer,
  type ErrorStatus,
  type RetryAfter,
} from '../../spec/model/sender.js';
import {
  CALLBACK_RETRY_AFTER_SECONDS,
  FAILURES_BEFORE_ACCEPT,
  RETRY_AFTER_DATE_SECONDS,
  RETRY_AFTER_SECONDS,
} from '../tolerances.js';

export const SCENARIO_IDS = [
  'accept',
  'duplicate',
  'ok-200',
  'ok-201',
  'ok-204',
  'retry-5xx',
  'retry-500',
  'retry-429',
  'retry-429-date',
  'retry-network',
  'reject-400',
  'reject-401',
  'reject-413',
] as const;
export const CALLBACK_SCENARIO_IDS = [
  'callbacks',
  'callback-returning',
  'callback-503',
  'callback-5xx',
  'callback-429',
  'callback-429-date',
  'callback-reset',
  'callback-400',
  'callback-401',
  'callback-413',
] as const;
export type SenderScenarioId = (typeof SCENARIO_IDS)[number];
export type CallbackScenarioId = (typeof CALLBACK_SCENARIO_IDS)[number];
export type ScenarioId = SenderScenarioId | CallbackScenarioId;

/** The answers a script gives: every answer a receiver may give a sender (the sender model's, src/spec/model/sender.ts). */
export type ScriptedAnswer = Answer;

export interface Scenario {
  /** A scenario's, or a generated conversation's (`state-3`). */
  id: ScenarioId | `state-${number}`;
  interfaces: readonly InterfaceId[];
  /** cai's answers to the attempts of one delivery, in order; any attempt after the last gets the last again. */
  script: readonly ScriptedAnswer[];
  /** A generated conversation: the n-th document gets the n-th script (and the first again past the last). */
  scripts?: readonly (readonly ScriptedAnswer[])[];
  /** Only the first this many deliveries of the stage follow the script; later ones are accepted at once. */
  scriptedDeliveries?: number;
  /** What the scenario probes, in a few words (the list, the instructions). */
  purpose: string;
  /** Takes seconds by design (backoff, Retry-After): started first when scenarios run at once. */
  slow?: boolean;
  /**
   * Runs alone, before the others: its judgement times the sender's waits, and other triggers starting at the
   * same time (a burst of processes) would stretch them.
   */
  alone?: boolean;
}

export const ACCEPTED: ScriptedAnswer = { kind: 'accepted', status: 202 };
export const error = (status: Exclude<ErrorStatus, 429>): ScriptedAnswer => ({ kind: 'error', status });
const accepted = (status: AcceptedStatus): ScriptedAnswer => ({ kind: 'accepted', status });
export const rateLimited = (form: RetryAfter['form'], seconds: number): ScriptedAnswer => ({
  kind: 'error',
  status: 429,
  retryAfter: { form, seconds },
});

/**
 * The statuses of the stages of several 5xx in a row, one each of those a server or a gateway gives (§7: every 5xx is
 * temporary): a sender that retries some 5xx only (a 503, or a gateway's 502 and 503, or a list of 500, 502, 503 and
 * 504) gives a delivery up on one. The last is a 501 in place of a third 503, at no cost of a request or a wait; never
 * the first, which a sender may read as "not an endpoint at all" before anything was accepted there.
 */
const SENDER_5XX = [503, 504, 502, 503, 501] as const satisfies readonly Exclude<ErrorStatus, 429>[];
const CALLBACK_5XX = [500, 502, 503, 504, 501] as const satisfies readonly Exclude<ErrorStatus, 429>[];

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'accept',
    interfaces: ['B', 'A'],
    script: [ACCEPTED],
    purpose: 'an accepted delivery: signed, valid, sent once',
  },
  {
    id: 'duplicate',
    interfaces: ['B'],
    script: [{ kind: 'duplicate' }],
    purpose: 'the duplicate answer of §2.13 ends the delivery',
  },
  ...([200, 201] as const).map(
    (status): Scenario => ({
      id: `ok-${status}`,
      interfaces: ['B'],
      script: [accepted(status)],
      purpose: `a ${status} ends the delivery (§6.5: any 2xx means accepted)`,
    }),
  ),
  {
    id: 'ok-204',
    interfaces: ['B'],
    script: [accepted(204)],
    purpose: 'a 204, with no body, ends the delivery (§6.5: any 2xx means accepted)',
  },
  {
    id: 'retry-5xx',
    interfaces: ['B', 'A'],
    script: [...SENDER_5XX.map((status) => error(status)), ACCEPTED],
    slow: true,
    alone: true,
    purpose: `a 5xx is retried (${SENDER_5XX.join(', ')}), with growing waits, the same event_id and document`,
  },
  {
    id: 'retry-500',
    interfaces: ['B', 'A'],
    script: [error(500), ACCEPTED],
    purpose: 'a 500 is retried as a 503 is (§7: any 5xx)',
  },
  {
    id: 'retry-429',
    interfaces: ['B', 'A'],
    script: [rateLimited('seconds', RETRY_AFTER_SECONDS), ACCEPTED],
    slow: true,
    purpose: 'a 429 is retried after Retry-After (a number of seconds), not before',
  },
  {
    id: 'retry-429-date',
    interfaces: ['B', 'A'],
    script: [rateLimited('date', RETRY_AFTER_DATE_SECONDS), ACCEPTED],
    slow: true,
    purpose: 'a 429 is retried after Retry-After given as an HTTP-date, not before that date',
  },
  {
    id: 'retry-network',
    interfaces: ['B', 'A'],
    script: [{ kind: 'reset' }, ACCEPTED],
    purpose: 'a connection cut without an answer is retried',
  },
  { id: 'reject-400', interfaces: ['B', 'A'], script: [error(400)], purpose: 'a 400 is not retried' },
  { id: 'reject-401', interfaces: ['B', 'A'], script: [error(401)], purpose: 'a 401 is not retried' },
  { id: 'reject-413', interfaces: ['B'], script: [error(413)], purpose: 'a 413 is not retried' },
];

/** A callback stage whose first event gets `script` (the job's others are accepted at once). */
const firstEvent = (id: CallbackScenarioId, script: ScriptedAnswer[], purpose: string, slow = false): Scenario => ({
  id,
  interfaces: ['B'],
  script,
  scriptedDeliveries: 1,
  ...(slow ? { slow } : {}),
  purpose,
});

/** The answers the callback listener of an Interface A run gives the events of one job. */
export const CALLBACK_SCENARIOS: readonly Scenario[] = [
  { id: 'callbacks', interfaces: ['B'], script: [ACCEPTED], purpose: "the job's events, each answered 202" },
  {
    id: 'callback-returning',
    interfaces: ['B'],
    // §6.5: any 2xx is accepted. A provider that takes 202 alone for success sends these events again.
    script: [accepted(200)],
    purpose: 'a second job for the lead of the first (a contact who returns, §2.3), its events each answered 200',
  },
  firstEvent('callback-503', [error(503), ACCEPTED], 'the first event answered 503'),
  firstEvent(
    'callback-429',
    [rateLimited('seconds', CALLBACK_RETRY_AFTER_SECONDS), ACCEPTED],
    `the first event answered 429 with Retry-After: ${CALLBACK_RETRY_AFTER_SECONDS}`,
  ),
  // §7: every 5xx is temporary, a server's 500 as much as a gateway's 502 or an unavailable 503.
  firstEvent(
    'callback-5xx',
    [...CALLBACK_5XX.map((status) => error(status)), ACCEPTED],
    `the first event answered a 5xx ${FAILURES_BEFORE_ACCEPT} times in a row (${CALLBACK_5XX.join(', ')}): retried through them, with waits that grow`,
    true,
  ),
  firstEvent(
    'callback-429-date',
    [rateLimited('date', RETRY_AFTER_DATE_SECONDS), ACCEPTED],
    `the first event answered 429 with Retry-After as an HTTP-date ${RETRY_AFTER_DATE_SECONDS} s ahead`,
    true,
  ),
  // §8: retries "by either side" for up to 24 hours; a connection cut with no answer is the platform as unavailable
  // as a 503 says it is (§7), and the event is not delivered.
  firstEvent(
    'callback-reset',
    [{ kind: 'reset' }, ACCEPTED],
    'the first event answered with a connection reset (no answer at all)',
  ),
  ...([400, 401, 413] as const).map((status) =>
    firstEvent(`callback-${status}`, [error(status)], `the first event answered ${status}`),
  ),
];

export function scenario(id: ScenarioId): Scenario {
  return [...SCENARIOS, ...CALLBACK_SCENARIOS].find((entry) => entry.id === id) as Scenario;
}

export function scenariosOf(iface: InterfaceId): Scenario[] {
  return SCENARIOS.filter((entry) => entry.interfaces.includes(iface));
}

/** The answer a final one is: the delivery is over, and a sender must not send it again (§7, §6.5). */
export { isFinal };

/** `202`, `204 (no body)`, `429 (Retry-After: 2)`, `429 (Retry-After: an HTTP-date 2 s ahead)`, `202 after 1.5 s`. */
export function describeScripted(answer: ScriptedAnswer, iface: InterfaceId): string {
  const after = answer.delayMs ? ` after ${answer.delayMs / 1000} s` : '';
  switch (answer.kind) {
    case 'accepted':
      if (answer.status === 202 && iface === 'A' && !answer.empty) return `202 with the acknowledgment${after}`;
      return `${answer.status}${answer.status === 204 || answer.empty ? ' (no body)' : ''}${after}`;
    case 'duplicate':
      return `202 {"ok":true,"duplicate":true}${after}`;
    case 'error': {
      const retry = answer.retryAfter;
      if (retry === undefined) return `${answer.status}${after}`;
      const when = retry.form === 'seconds' ? retry.seconds : `an HTTP-date ${retry.seconds} s ahead`;
      return `${answer.status} (Retry-After: ${when})${after}`;
    }
    case 'reset':
      return `connection reset${after}`;
  }
}

/** `503 ×5, then 202` (each document's attempts); `…, for the first document (202 for the others)` where it says so. */
export function describeScript(entry: Scenario, iface: InterfaceId): string {
  // Answers alike in a row are said once, with their count.
  const runs: { text: string; count: number }[] = [];
  for (const answer of entry.script) {
    const text = describeScripted(answer, iface);
    const last = runs.at(-1);
    if (last?.text === text) last.count += 1;
    else runs.push({ text, count: 1 });
  }
  const parts = runs.map(({ text, count }) => (count > 1 ? `${text} ×${count}` : text));
  const scope =
    entry.scriptedDeliveries === undefined
      ? ''
      : entry.scriptedDeliveries === 1
        ? ', for the first document (202 for the others)'
        : `, for the first ${entry.scriptedDeliveries} documents`;
  return parts.join(', then ') + scope;
}

/** `503, then 429 (Retry-After: 1), then 202`; several documents: `document 1: …; document 2: …`. */
export function describeConversation(scripts: readonly (readonly ScriptedAnswer[])[], iface: InterfaceId): string {
  const one = (script: readonly ScriptedAnswer[]) =>
    script.map((answer) => describeScripted(answer, iface)).join(', then ');
  return scripts.length === 1
    ? one(scripts[0] ?? [])
    : scripts.map((script, index) => `document ${index + 1}: ${one(script)}`).join('; ');
}
