/**
 * The inspector's data: the requests a mock answered and, for the provider mock, the events it sent, each in a
 * bounded ring (limits.ts), fed by the mock's observer hooks; queries for the list (filtered, paged, newest
 * first) and a feed of what arrives for the live page. Read-only towards the mock: it keeps copies, and the
 * mock's log is never read or written here.
 */
import type { ObservedRequest } from '../mock/pipeline.js';
import type { CallbackRetry, ObservedEvent, SentEventEntry } from '../mock/simulator.js';
import {
  captureRequest,
  idsOf,
  summarise,
  type HeaderPair,
  type InspectedRequest,
  type RequestSummary,
} from './capture.js';
import { Arena } from './arena.js';
import { DEFAULT_INSPECTOR_LIMITS, type InspectorLimits } from './limits.js';
import type { Redactor } from './redact.js';
import { Ring, type Sized } from './ring.js';
import { interfaceSpec } from '../spec/interfaces.js';

/** A retry of a callback (§7: 5xx, 429, network errors), noted when it was announced. */
export interface RetryNote {
  attempt: number;
  reason: string;
  wait_ms: number;
  at: string;
}

export interface InspectedCallback extends Sized {
  entry: SentEventEntry;
  body: Buffer;
  headers: readonly HeaderPair[];
  retries: readonly RetryNote[];
}

export interface CallbackSummary extends SentEventEntry {
  id: number;
  retries: number;
}

export interface RequestFilter {
  verdict?: string;
  /** An event type, `job` (a contact job) or `none` (no event type known). */
  type?: string;
  lead?: string;
  space?: string;
  /** Any case in the ids, the event type, the reason and message and the status; the exact bytes in the body. */
  q?: string;
}

export interface PageRequest {
  /** Only ids below this (older rows), or above `after` (newer rows, for a live page with filters). */
  before?: number;
  after?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** Rows matching the filter among those kept. */
  matched: number;
  /** Rows kept, rows dropped past the bounds, and the id the next one will get. */
  kept: number;
  evicted: number;
  next: number;
  /** More matching rows beyond this page. */
  more: boolean;
}

export type StoreUpdate = { kind: 'request'; summary: RequestSummary } | { kind: 'callback'; summary: CallbackSummary };

// Callback retries waiting for their event's final answer, bounded (one conversation retries one event at a time).
const MAX_PENDING_RETRIES = 1_000;
const MAX_RETRIES_KEPT = 50;

export class InspectorStore {
  readonly limits: InspectorLimits;
  readonly requests: Ring<InspectedRequest>;
  readonly callbacks: Ring<InspectedCallback>;
  private readonly pending = new Map<string, RetryNote[]>();
  // Bodies are dropped in the order they came, ring by ring: one arena each.
  private readonly requestBodies = new Arena();
  private readonly callbackBodies = new Arena();
  private readonly listeners = new Set<(update: StoreUpdate) => void>();

  constructor(limits: Partial<InspectorLimits> = {}) {
    this.limits = { ...DEFAULT_INSPECTOR_LIMITS, ...limits };
    this.requests = new Ring(this.limits.maxRequests, this.limits.maxBytes);
    this.callbacks = new Ring(this.limits.maxCallbacks, this.limits.maxBytes);
  }

  /** The mock's request observer (src/mock/pipeline.ts). */
  readonly observe = (observed: ObservedRequest): void => {
    const kept = this.requests.push((id) => captureRequest(id, observed, this.limits, this.requestBodies));
    if (this.listeners.size > 0) this.emit({ kind: 'request', summary: summarise(kept) });
  };

  /** The provider mock's observer of the events it sent. */
  readonly observeSent = (sent: ObservedEvent): void => {
    const retries = this.pending.get(sent.entry.event_id) ?? [];
    this.pending.delete(sent.entry.event_id);
    const body = this.callbackBodies.copy(sent.body, Math.min(sent.body.length, this.limits.maxBodyBytes));
    const kept = this.callbacks.push((id) => ({
      id,
      bytes: 512 + body.length,
      entry: sent.entry,
      body,
      headers: Object.entries(sent.headers),
      retries,
    }));
    if (this.listeners.size > 0) this.emit({ kind: 'callback', summary: summariseCallback(kept) });
  };

  /** A callback attempt failed and will be retried: noted until the event's final answer. */
  readonly noteRetry = (retry: CallbackRetry): void => {
    let notes = this.pending.get(retry.event_id);
    if (!notes) {
      if (this.pending.size >= MAX_PENDING_RETRIES) this.pending.delete(this.pending.keys().next().value as string);
      notes = [];
      this.pending.set(retry.event_id, notes);
    }
    if (notes.length < MAX_RETRIES_KEPT)
      notes.push({ attempt: retry.attempt, reason: retry.reason, wait_ms: retry.waitMs, at: new Date().toISOString() });
  };

  subscribe(listener: (update: StoreUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  request(id: number): InspectedRequest | undefined {
    return this.requests.get(id);
  }

  callback(id: number): InspectedCallback | undefined {
    return this.callbacks.get(id);
  }

  /** The list: newest first, filtered, one page. */
  /** `redactor`: the search sees what the inspector serves, secrets replaced (it must not answer whether one is there). */
  requestPage(filter: RequestFilter, page: PageRequest, redactor?: Redactor): Page<RequestSummary> {
    return pageOf(this.requests, matcher(filter, redactor), page, this.limits, summarise);
  }

  callbackPage(filter: { lead?: string; job?: string }, page: PageRequest): Page<CallbackSummary> {
    const test = (callback: InspectedCallback) =>
      (filter.lead === undefined || callback.entry.lead_id === filter.lead) &&
      (filter.job === undefined || callback.entry.provider_job_id === filter.job);
    return pageOf(this.callbacks, test, page, this.limits, summariseCallback);
  }

  private emit(update: StoreUpdate): void {
    for (const listener of this.listeners) {
      try {
        listener(update);
      } catch {
        // A listener's failure is its own (a closed stream); the mock goes on.
      }
    }
  }
}

export function summariseCallback(callback: InspectedCallback): CallbackSummary {
  return { id: callback.id, ...callback.entry, retries: callback.retries.length };
}

function pageOf<T extends Sized, S>(
  ring: Ring<T>,
  test: (item: T) => boolean,
  page: PageRequest,
  limits: InspectorLimits,
  summary: (item: T) => S,
): Page<S> {
  const limit = Math.max(1, Math.min(limits.maxPage, Math.floor(page.limit ?? limits.defaultPage)));
  const items: S[] = [];
  let matched = 0;
  let more = false;
  // Every kept row is tested once, to count the matches (at most limits.maxRequests of them).
  for (const item of ring.newestFirst()) {
    if (!test(item)) continue;
    matched++;
    if ((page.before !== undefined && item.id >= page.before) || (page.after !== undefined && item.id <= page.after))
      continue;
    if (items.length < limit) items.push(summary(item));
    else more = true;
  }
  return { items, matched, ...ring.counts(), more };
}

const TYPE_OF_JOB = 'job';
const NO_TYPE = 'none';

function matcher(filter: RequestFilter, redactor: Redactor | undefined): (request: InspectedRequest) => boolean {
  const query = filter.q?.trim() ?? '';
  const lower = query.toLowerCase();
  const bytes = Buffer.from(query, 'utf8');
  return (request) => {
    const { entry } = request;
    const ids = idsOf(request);
    if (filter.verdict && entry.verdict !== filter.verdict) return false;
    if (filter.space && entry.space !== filter.space) return false;
    if (filter.lead && ids.lead_id !== filter.lead) return false;
    if (filter.type) {
      const type = interfaceSpec(entry.interface).document === 'job' ? TYPE_OF_JOB : (ids.event ?? NO_TYPE);
      if (type !== filter.type) return false;
    }
    if (query === '') return true;
    for (const field of [
      ids.event_id,
      ids.lead_id,
      ids.event,
      entry.reason,
      entry.message,
      entry.provider_job_id,
      entry.provider_code,
      String(entry.status),
    ]) {
      if (
        field !== undefined &&
        field.toLowerCase().includes(lower) &&
        (!redactor || redactor.text(field).toLowerCase().includes(lower))
      )
        return true;
    }
    // A match inside a secret is none: the redacted bytes are searched again (only when the raw ones match).
    if (request.body === undefined || !request.body.includes(bytes)) return false;
    return !redactor || redactor.buffer(request.body).includes(bytes);
  };
}
