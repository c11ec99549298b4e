/**
 * A session seen from one receiver check while it gathers its evidence: its own counters, fresh event_ids named
 * after it, the requests it sends, and its own model of the receiver (src/spec/model), which says for each request,
 * in the state the check's earlier requests left, what the spec allows the answer to be. The check's ids are its
 * own, so its model's state is the receiver's, as far as the check can see.
 */
import { requestFacts, type ModelRequest, type ReadingClock } from '../../spec/model/facts.js';
import { ReceiverModel } from '../../spec/model/receiver.js';
import { answerOf, type Exchange } from '../evidence.js';
import type { RequestRecipe, SentRequest } from './recipe.js';
import type { Session } from './session.js';

export class ProbeScope {
  readonly model: ReceiverModel;
  requests = 0;
  rateLimitedRetries = 0;

  constructor(
    readonly session: Session,
    readonly meta: { id: string },
  ) {
    this.model = new ReceiverModel(session.config.interface);
  }

  eventId(): string {
    return this.session.freshEventId(this.meta.id);
  }

  /** Sends one request and judges where it stands: its expectation is on the exchange, the model moved on. */
  async send(recipe: RequestRecipe): Promise<Exchange> {
    const exchange = await this.session.send(recipe);
    this.count(exchange);
    const expected = this.model.expect(this.factsOf(exchange));
    exchange.expected = expected;
    this.model.observe(expected, answerOf(exchange));
    return exchange;
  }

  /** Sends requests at once: none can be said to come first, so each is expected as new or a repeat (the model's). */
  async sendAll(recipes: readonly RequestRecipe[]): Promise<Exchange[]> {
    const exchanges = await Promise.all(recipes.map((recipe) => this.session.send(recipe)));
    exchanges.forEach((exchange) => this.count(exchange));
    const expectations = this.model.expectTogether(exchanges.map((exchange) => this.factsOf(exchange)));
    exchanges.forEach((exchange, index) => {
      exchange.expected = expectations[index];
      this.model.observe(exchange.expected as NonNullable<Exchange['expected']>, answerOf(exchange));
    });
    return exchanges;
  }

  /**
   * An exchange another scope sent (the preflight's document, whose repeat a check sends): this scope's model takes
   * it as its own first request, expected afresh, so that it knows the event_id as the receiver does.
   */
  adopt(exchange: Exchange): Exchange {
    const adopted = { ...exchange, expected: this.model.expect(this.factsOf(exchange)) };
    this.model.observe(adopted.expected, answerOf(adopted));
    return adopted;
  }

  private count(exchange: Exchange): void {
    this.requests += 1 + exchange.rateLimitedRetries;
    this.rateLimitedRetries += exchange.rateLimitedRetries;
  }

  private factsOf(exchange: Exchange) {
    const { config } = this.session;
    return requestFacts(
      modelRequestOf(exchange.request, config.interface),
      { identity: config.identity, secrets: config.secrets },
      readingClockOf(this.session, exchange),
    );
  }
}

/** A request as the model reads it: the headers and body as sent, the framing, where it came from. */
export function modelRequestOf(request: SentRequest, iface: ModelRequest['interface']): ModelRequest {
  const { recipe } = request;
  return {
    interface: iface,
    headers: { ...request.headers, ...request.lines },
    body: request.body,
    framing: recipe.chunked ? 'chunked' : recipe.expectContinue ? 'expect-continue' : 'length',
    ...(recipe.sourceAddress ? { unregisteredOrigin: true } : {}),
  };
}

/**
 * The target's clock while it read the request: from the second it was sent in to the second its answer came in,
 * on the target's clock as the `Date` header placed it. That placing is to the second at best, so unless it read 0
 * (the probes near the window's edge are sent at a fraction of cai's second for that case), a second either way.
 */
function readingClockOf(session: Session, exchange: Pick<Exchange, 'request' | 'answeredAtMs'>): ReadingClock {
  const offset = session.clock.offsetSeconds;
  const slack = offset === 0 ? 0 : 1;
  return {
    earliest: Math.floor(exchange.request.sentAtMs / 1000) + (offset ?? 0) - slack,
    latest: Math.floor(exchange.answeredAtMs / 1000) + (offset ?? 0) + slack,
  };
}
