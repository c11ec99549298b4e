/**
 * The inspector's bounds, stated once (docs/mocks.md, "Inspector"): a mock runs for weeks, so what the inspector
 * keeps and what it serves is bounded whatever arrives.
 */
import { MAX_BODY_BYTES } from '../spec/constants.js';

export interface InspectorLimits {
  /** Requests kept, the oldest dropped first. */
  maxRequests: number;
  /** Callbacks kept (the provider mock's sent events), the oldest dropped first. */
  maxCallbacks: number;
  /** Bytes kept for the requests (bodies, headers, answers) together; past it the oldest are dropped. */
  maxBytes: number;
  /** A body is kept up to this many bytes (the §8 limit: past it only `--break no-size-limit` reads on). */
  maxBodyBytes: number;
  /** Header lines kept per request, and bytes per header value. */
  maxHeaders: number;
  maxHeaderBytes: number;
  /** Rows in one answer of the list endpoints (and their default). */
  maxPage: number;
  defaultPage: number;
  /** Events shown in one conversation. */
  maxConversationEvents: number;
  /** Live-update (server-sent events) connections at once; one more is answered 503. */
  maxStreams: number;
  /** Bytes queued for one slow live-update connection before it is dropped (the page reconnects). */
  maxStreamBacklogBytes: number;
  /** Summaries in one live update; more at once and the page is told to reload its first page. */
  maxBatch: number;
  /** How often live updates are sent at most (requests are batched in between). */
  streamIntervalMs: number;
}

export const DEFAULT_INSPECTOR_LIMITS: Readonly<InspectorLimits> = {
  maxRequests: 10_000,
  maxCallbacks: 10_000,
  maxBytes: 64 * 1024 * 1024,
  maxBodyBytes: MAX_BODY_BYTES,
  maxHeaders: 100,
  maxHeaderBytes: 8 * 1024,
  maxPage: 500,
  defaultPage: 100,
  maxConversationEvents: 500,
  maxStreams: 16,
  maxStreamBacklogBytes: 1024 * 1024,
  maxBatch: 500,
  streamIntervalMs: 100,
};
