/**
 * A session seen from one receiver check while it gathers its evidence: its own counters, fresh event_ids named
 * after it, and the requests it sends.
 */
import type { Exchange } from '../evidence.js';
import type { RequestRecipe } from './recipe.js';
import type { Session } from './session.js';

export class ProbeScope {
  readonly session: Session;
  readonly meta: { id: string };
  requests = 0;
  rateLimitedRetries = 0;

  constructor(session: Session, meta: { id: string }) {
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
