/**
 * The inspector's bounds, stated once (docs/mocks.md, "Inspector"): a mock runs for weeks, so what the inspector
 * keeps and what it serves is bounded whatever arrives.
 */
import { MAX_BODY_BYTES } from '../spec/constants.js';

/** The bounds as a mock starts with them; each may be given otherwise (a test's, say). */
const LIMITS = {
  /** Requests kept, the oldest dropped first. */
  maxRequests: 10_000,
  /** Callbacks kept (the provider mock's sent events), the oldest dropped first. */
  maxCallbacks: 10_000,
  /** Bytes kept for the requests (bodies, headers, answers) together; past it the oldest are dropped. */
  maxBytes: 64 * 1024 * 1024,
  /** A body is kept up to this many bytes (the §8 limit: past it only `--break no-size-limit` reads on). */
  maxBodyBytes: MAX_BODY_BYTES,
  /** Header lines kept per request, and bytes per header value. */
  maxHeaders: 100,
  maxHeaderBytes: 8 * 1024,
  /** Rows in one answer of the list endpoints (and their default). */
  maxPage: 500,
  defaultPage: 100,
  /** Events shown in one conversation. */
  maxConversationEvents: 500,
  /** Live-update (server-sent events) connections at once; one more is answered 503. */
  maxStreams: 16,
  /** Bytes queued for one slow live-update connection before it is dropped (the page reconnects). */
  maxStreamBacklogBytes: 1024 * 1024,
  /** Summaries in one live update; more at once and the page is told to reload its first page. */
  maxBatch: 500,
  /** How often live updates are sent at most (requests are batched in between). */
  streamIntervalMs: 100,
};

export type InspectorLimits = typeof LIMITS;
export const DEFAULT_INSPECTOR_LIMITS: Readonly<InspectorLimits> = LIMITS;
