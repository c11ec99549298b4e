/**
 * `cai trigger <flow>` for Interface B: the events of a flow (./flows.ts) sent one after another to an events
 * endpoint (§4.2), each signed at every attempt and delivered with the retry policy of §7/§8 (../http/send.ts, the
 * sender of send-event), a pause between two (the pace), each answer handed to the caller as it comes. The flow stops
 * at the first event that is not accepted: the events after it would tell the platform a story with a hole in it.
 * Returns a result; renders nothing.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { DeliverOptions } from '../http/deliver.js';
import type { EventType } from '../spec/constants.js';
import type { FlowEvent } from './flows.js';
import { sendDocument, type SendResult } from '../http/send.js';

export interface FlowSend {
  /** The events URL (§4.2). */
  to: string;
  /** X-CAI-Provider (§4.2, §5.6). */
  provider: string;
  /** The events secret (§5.1). */
  secret: string;
  events: readonly FlowEvent[];
}

export interface FlowSendOptions {
  deliver: DeliverOptions;
  /** The pause between the answer to one event and the sending of the next. */
  paceMs: number;
  /** Stops before the next event (a clean Ctrl-C); the one in flight finishes (DeliverOptions.signal aborts it). */
  stopSignal?: AbortSignal;
  /** Before each event is sent (1-based). */
  onSending?(index: number, event: FlowEvent): void;
  /** Each event's outcome, as it comes. */
  onResult?(result: FlowEventResult): void;
}

export interface FlowEventResult {
  /** 1-based. */
  index: number;
  event: EventType;
  eventId: string;
  /** Absent when the event was not sent (the flow stopped before it). */
  sent?: SendResult;
}

export interface FlowOutcome {
  results: FlowEventResult[];
  summary: ReturnType<typeof summarise>;
  /** Why the flow ended before its last event: an event not accepted, or a stop (Ctrl-C). */
  stoppedBy?: 'rejected' | 'failed' | 'interrupted';
}

export async function sendFlow(flow: FlowSend, options: FlowSendOptions): Promise<FlowOutcome> {
  const results: FlowEventResult[] = [];
  let stoppedBy: FlowOutcome['stoppedBy'];
  for (const [position, event] of flow.events.entries()) {
    const index = position + 1;
    const eventId = String(event.document.event_id);
    // Stopped before or during the pause (an aborted signal ends it at once): the check below sees the signal.
    if (stoppedBy === undefined && position > 0 && options.paceMs > 0)
      await delay(options.paceMs, undefined, { signal: options.stopSignal }).catch(() => undefined);
    if (stoppedBy === undefined && options.stopSignal?.aborted) stoppedBy = 'interrupted';
    if (stoppedBy !== undefined) {
      results.push({ index, event: event.event, eventId });
      continue;
    }
    options.onSending?.(index, event);
    const body = Buffer.from(JSON.stringify(event.document));
    const sent = await sendDocument(
      { kind: 'event', to: flow.to, identity: flow.provider, secret: flow.secret, body, eventId },
      options.deliver,
    );
    const result: FlowEventResult = { index, event: event.event, eventId, sent };
    results.push(result);
    options.onResult?.(result);
    if (sent.verdict === 'rejected' || sent.verdict === 'failed')
      stoppedBy = sent.delivery.interrupted ? 'interrupted' : sent.verdict;
  }
  return { results, summary: summarise(results), ...(stoppedBy !== undefined ? { stoppedBy } : {}) };
}

function summarise(results: readonly FlowEventResult[]) {
  const count = (verdict: SendResult['verdict']) => results.filter((result) => result.sent?.verdict === verdict).length;
  const sent = results.filter((result) => result.sent !== undefined).length;
  return {
    events: results.length,
    sent,
    /** Accepted as new events, and accepted as duplicates of events the platform had (§2.13). */
    accepted: count('accepted'),
    duplicates: count('duplicate'),
    rejected: count('rejected'),
    failed: count('failed'),
    notSent: results.length - sent,
  };
}
