/**
 * How a check is defined: `defineCheck`, the one constructor of the catalogue. A check is its metadata (id,
 * title, sections, level, tags) and either one probe (`send` a request, `expect` a status) or a `run` that
 * judges freely. Themes that both interfaces share build their entries with it too (src/conformance/checks/).
 */
import { describeAnswer, fail, pass } from './outcomes.js';
import { statusMatches, type StatusExpectation } from './expectations.js';
import type { Session } from './session.js';
import type { CheckMeta, CheckOutcome, Exchange, RequestRecipe } from './types.js';

/** A check of the catalogue, as the runner runs it. */
export interface CheckDefinition extends CheckMeta {
  run(scope: CheckScope): Promise<CheckOutcome>;
}

/** One request, judged by its status: most checks are this. */
export interface ProbeJudgement {
  /** The request, built afresh for each run (fresh event_id, signed at send time unless the recipe says otherwise). */
  send(scope: CheckScope): RequestRecipe;
  expect: StatusExpectation;
}

/** Anything else: several requests, evidence gathered once and shared, a judgement on the answer's body. */
export interface RunJudgement {
  run(scope: CheckScope): Promise<CheckOutcome> | CheckOutcome;
}

export type CheckSpec = CheckMeta & (ProbeJudgement | RunJudgement);

/**
 * Defines one check. For example:
 *
 *   defineCheck({
 *     id: 'B-ACCEPT-007', interface: 'B', level: 'must', sections: ['§6.3'], tags: ['acceptance', 'lead'],
 *     title: 'an event for an unknown lead_id is accepted with 202',
 *     send: (scope) => ({ body: compact(eventDoc('conversation.message', scope.eventId(), 'unknown-lead')) }),
 *     expect: ACCEPTED,
 *   })
 *
 * The first line is the check's catalogue row (id, interface, level, sections, tags, and `optional`,
 * `exclusive`, `needs` where they apply), the second its title, then its judgement.
 */
export function defineCheck(spec: CheckSpec): CheckDefinition {
  const meta: CheckMeta = {
    id: spec.id,
    interface: spec.interface,
    title: spec.title,
    sections: spec.sections,
    level: spec.level,
    tags: spec.tags,
    ...(spec.optional ? { optional: true } : {}),
    ...(spec.exclusive ? { exclusive: true } : {}),
    ...(spec.needs ? { needs: spec.needs } : {}),
  };
  if ('run' in spec) {
    const run = spec.run;
    return { ...meta, run: async (scope) => run(scope) };
  }
  const { send, expect } = spec;
  return { ...meta, run: (scope) => expectStatus(scope, send(scope), expect) };
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

/** Sends one request and judges its status. */
export async function expectStatus(scope: CheckScope, recipe: RequestRecipe, expectation: StatusExpectation): Promise<CheckOutcome> {
  const exchange = await scope.send(recipe);
  const actual = describeAnswer(exchange);
  return statusMatches(exchange, expectation) ? pass(expectation.describe, actual) : fail(expectation.describe, actual, exchange);
}
