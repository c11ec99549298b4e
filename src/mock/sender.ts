import type { Dispatcher } from 'undici';
import { createDispatcher } from '../http/client.js';
import { deliver, type AttemptRecord } from '../http/deliver.js';
import type { RetryPolicy } from '../http/retry.js';

/** What the conversation simulator needs to know about one delivered event. */
export interface EventDelivery {
  outcome: 'accepted' | 'rejected' | 'failed';
  status?: number;
  attempts: number;
  error?: string;
  interrupted: boolean;
}

export interface EventRequest {
  url: string;
  body: Uint8Array;
  secret: string;
  headers: Record<string, string>;
}

/** A failed attempt that will be retried: what went wrong and how long until the next one. */
export interface EventRetry {
  attempt: number;
  reason: string;
  waitMs: number;
}

/** The one call through which the provider mock sends an Interface B event. */
export type EventSender = (request: EventRequest, stop: AbortSignal, onRetry?: (retry: EventRetry) => void) => Promise<EventDelivery>;

/**
 * The toolkit's own sender (`deliver`): each attempt freshly signed over the same bytes (§5), retried per
 * §7/§8 (5xx and network errors with backoff, 429 after Retry-After, other 4xx not retried).
 */
export function createEventSender(options: { retry?: Partial<RetryPolicy>; dispatcher?: Dispatcher; tls?: { ca?: Buffer; insecure?: boolean }; timeoutMs?: number } = {}): EventSender {
  const dispatcher = options.dispatcher ?? (options.tls?.ca || options.tls?.insecure ? createDispatcher(options.tls) : undefined);
  return async (request, stop, onRetry) => {
    const onAttempt = (attempt: AttemptRecord) => {
      if (attempt.decision !== 'retry') return;
      const reason = attempt.error?.message ?? (attempt.status !== undefined ? `status ${attempt.status}` : 'no answer');
      onRetry?.({ attempt: attempt.attempt, reason, waitMs: attempt.waitMs ?? 0 });
    };
    const result = await deliver(request, { retry: options.retry, dispatcher, timeoutMs: options.timeoutMs, stopSignal: stop, onAttempt });
    const last = result.attempts.at(-1);
    return {
      outcome: result.outcome,
      status: result.response?.status,
      attempts: result.attempts.length,
      error: result.error?.message ?? (result.outcome === 'rejected' && last?.status !== undefined ? `rejected with ${last.status}` : undefined),
      interrupted: result.interrupted,
    };
  };
}
