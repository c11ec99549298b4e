/**
 * What a check is, and the helpers checks are written with: a scope that counts the check's requests,
 * expectations over statuses, and a short description of an answer for the report.
 */
import { isDuplicateAck as isDuplicateAnswer } from '../spec/acknowledgment.js';
import { isRejection } from '../spec/statuses.js';
import type { Session } from './session.js';
import type { CheckMeta, CheckOutcome, Exchange, RequestRecipe } from './types.js';

export interface CheckDefinition extends CheckMeta {
  run(scope: CheckScope): Promise<CheckOutcome>;
}

/** A session seen from one check: its own counters, fresh ids named after it. */
export class CheckScope {
  readonly session: Session;
  readonly meta: CheckMeta;
  requests = 0;
  rateLimitedRetries = 0;

  constructor(session: Session, meta: CheckMeta) {
    this.session = session;
    this.meta = meta;
  }

  eventId(): string {
    return this.session.freshEventId(this.meta.id);
  }

  async send(recipe: RequestRecipe): Promise<Exchange> {
    const exchange = await this.session.send(recipe);
    this.requests += 1 + exchange.rateLimitedRetries;
    this.rateLimitedRetries += exchange.rateLimitedRetries;
    return exchange;
  }

  sendAll(recipes: readonly RequestRecipe[]): Promise<Exchange[]> {
    return Promise.all(recipes.map((recipe) => this.send(recipe)));
  }
}

const EXCERPT_LENGTH = 160;

/** `401 {"error":"…"}`, or `no response (timeout: …)`. */
export function describeAnswer(exchange: Exchange): string {
  if (exchange.status === undefined) return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? 'unknown'})`;
  const text = exchange.body.toString('utf8').replace(/\s+/g, ' ').trim();
  const excerpt = text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  return excerpt === '' ? `${exchange.status} (empty body)` : `${exchange.status} ${excerpt}`;
}

export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** §2.13: `{"ok": true, "duplicate": true}` with 202 (the rule lives in src/spec). */
export function isDuplicateAck(exchange: Exchange): boolean {
  return isDuplicateAnswer(exchange);
}

export function pass(expected: string, actual: string, notes?: string[]): CheckOutcome {
  return { verdict: 'passed', expected, actual, notes };
}

export function fail(expected: string, actual: string, evidence?: Exchange, notes?: string[]): CheckOutcome {
  return { verdict: 'failed', expected, actual, evidence, notes };
}

export function skip(reason: string): CheckOutcome {
  return { verdict: 'skipped', expected: '-', actual: reason };
}

export interface StatusExpectation {
  /** Statuses that pass. */
  statuses?: readonly number[];
  /** Any 4xx passes (Interface A: §4.1 leaves the error statuses open). */
  any4xx?: boolean;
  /** Shown as "expected". */
  describe: string;
}

export function statusMatches(exchange: Exchange, expectation: StatusExpectation): boolean {
  const status = exchange.status;
  if (status === undefined) return false;
  if (expectation.any4xx && isRejection(status)) return true;
  return (expectation.statuses ?? []).includes(status);
}

/** Sends one request and judges its status. */
export async function expectStatus(scope: CheckScope, recipe: RequestRecipe, expectation: StatusExpectation): Promise<CheckOutcome> {
  const exchange = await scope.send(recipe);
  const actual = describeAnswer(exchange);
  return statusMatches(exchange, expectation) ? pass(expectation.describe, actual) : fail(expectation.describe, actual, exchange);
}

/** The acceptance answer of either interface: 202 (§4.1, §4.2). */
export const ACCEPTED: StatusExpectation = { statuses: [202], describe: '202 (accepted)' };
