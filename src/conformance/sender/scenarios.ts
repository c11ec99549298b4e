/**
 * The scenarios of a sender run. In each, the trigger makes the sender under test deliver one document to the
 * scenario's URL, and cai answers its attempts as the scenario scripts: 202; 503 five times, then 202; 429 with
 * Retry-After, then 202; a connection reset, then 202; 400, 401 or 413; a duplicate answer; a 200. The checks
 * (./checks-*.ts) judge what the sender did. Plain data: the recorder (./recorder.ts) plays the scripts.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { FAILURES_BEFORE_ACCEPT, RETRY_AFTER_SECONDS } from './settings.js';

export const SCENARIO_IDS = ['accept', 'duplicate', 'ok-200', 'retry-5xx', 'retry-429', 'retry-network', 'reject-400', 'reject-401', 'reject-413'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/**
 * One answer of a script. `accepted`: the §4.2 202 (`{"ok":true}`) on B, the §2.3 acknowledgment on A.
 * `duplicate`: §2.13's `{"ok":true,"duplicate":true}`. `reset`: the connection is cut after the request is read,
 * with no answer at all (a network failure).
 */
export type ScriptedAnswer =
  | { kind: 'accepted'; status: 200 | 202 }
  | { kind: 'duplicate' }
  | { kind: 'error'; status: 400 | 401 | 413 | 429 | 503; retryAfterSeconds?: number }
  | { kind: 'reset' };

export interface Scenario {
  id: ScenarioId;
  interfaces: readonly InterfaceId[];
  /** cai's answers, attempt by attempt; any attempt after the last gets the last again. */
  script: readonly ScriptedAnswer[];
  /**
   * After the script's last answer cai keeps listening for `--observe`: an attempt then is one the sender must not
   * make (a retry of a 400, a repeat of an accepted document). Without it the scenario ends at its last answer.
   */
  observe: boolean;
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

const ACCEPTED: ScriptedAnswer = { kind: 'accepted', status: 202 };
const error = (status: 400 | 401 | 413 | 503): ScriptedAnswer => ({ kind: 'error', status });

export const SCENARIOS: readonly Scenario[] = [
  { id: 'accept', interfaces: ['B', 'A'], script: [ACCEPTED], observe: true, purpose: 'an accepted delivery: signed, valid, sent once' },
  { id: 'duplicate', interfaces: ['B'], script: [{ kind: 'duplicate' }], observe: true, purpose: 'the duplicate answer of §2.13 ends the delivery' },
  { id: 'ok-200', interfaces: ['B'], script: [{ kind: 'accepted', status: 200 }], observe: true, purpose: 'any 2xx ends the delivery (§6.5)' },
  {
    id: 'retry-5xx',
    interfaces: ['B', 'A'],
    script: [...Array.from({ length: FAILURES_BEFORE_ACCEPT }, () => error(503)), ACCEPTED],
    observe: false,
    slow: true,
    alone: true,
    purpose: 'a 5xx is retried, with growing waits, the same event_id and document',
  },
  {
    id: 'retry-429',
    interfaces: ['B', 'A'],
    script: [{ kind: 'error', status: 429, retryAfterSeconds: RETRY_AFTER_SECONDS }, ACCEPTED],
    observe: false,
    slow: true,
    purpose: 'a 429 is retried after Retry-After, not before',
  },
  { id: 'retry-network', interfaces: ['B', 'A'], script: [{ kind: 'reset' }, ACCEPTED], observe: false, purpose: 'a connection cut without an answer is retried' },
  { id: 'reject-400', interfaces: ['B', 'A'], script: [error(400)], observe: true, purpose: 'a 400 is not retried' },
  { id: 'reject-401', interfaces: ['B', 'A'], script: [error(401)], observe: true, purpose: 'a 401 is not retried' },
  { id: 'reject-413', interfaces: ['B'], script: [error(413)], observe: true, purpose: 'a 413 is not retried' },
];

export function scenario(id: ScenarioId): Scenario {
  return SCENARIOS.find((entry) => entry.id === id) as Scenario;
}

export function scenariosOf(iface: InterfaceId): Scenario[] {
  return SCENARIOS.filter((entry) => entry.interfaces.includes(iface));
}

/** `202`, `429 (Retry-After: 2)`, `connection reset`. */
export function describeAnswer(answer: ScriptedAnswer, iface: InterfaceId): string {
  switch (answer.kind) {
    case 'accepted':
      return answer.status === 202 && iface === 'A' ? '202 with the acknowledgment' : String(answer.status);
    case 'duplicate':
      return '202 {"ok":true,"duplicate":true}';
    case 'error':
      return answer.retryAfterSeconds === undefined ? String(answer.status) : `${answer.status} (Retry-After: ${answer.retryAfterSeconds})`;
    case 'reset':
      return 'connection reset';
  }
}

/** `503 ×5, then 202`. */
export function describeScript(entry: Scenario, iface: InterfaceId): string {
  const parts: string[] = [];
  let index = 0;
  while (index < entry.script.length) {
    const text = describeAnswer(entry.script[index] as ScriptedAnswer, iface);
    let count = 1;
    while (index + count < entry.script.length && describeAnswer(entry.script[index + count] as ScriptedAnswer, iface) === text) count += 1;
    parts.push(count > 1 ? `${text} ×${count}` : text);
    index += count;
  }
  return parts.join(', then ');
}
