/**
 * A lead's events as its conversation (§3, step 5: "the conversation as it happens, then the result"): the
 * messages in the order of their occurred_at, then the appointment events or the closing outcome. That is what a
 * person checks during onboarding. The platform mock's conversations are the events it accepted; the provider
 * mock's are the events it sent back for each job, with their answers.
 */
import { endsConversation } from '../spec/event-types.js';
import { asObject, parseJson } from '../spec/json.js';
import type { InspectedRequest, RequestSummary } from './capture.js';
import { idsOf, summarise } from './capture.js';
import type { InspectedCallback, InspectorStore, RetryNote } from './store.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { encodeLead } from './lead-path.js';
import type { InterfaceId } from '../spec/constants.js';

/** One event of a conversation, with the fields a transcript shows (TEXT_FIELDS, and attempts). */
export interface ConversationEvent extends Partial<Record<(typeof TEXT_FIELDS)[number], string>> {
  /** Where it is kept: a request the mock received, or a callback it sent. */
  source: 'request' | 'callback';
  id: number;
  event: string;
  event_id: string;
  /** When it was received or sent. */
  at: string;
  attempts?: number;
  /** How many more copies of it came (duplicates, §6.1). */
  duplicates?: number;
  /** For a callback: its answer. */
  delivery?: { outcome: string; status?: number; attempts: number; error?: string; retries: readonly RetryNote[] };
}

/** The contact job a provider mock's conversation answers. */
export interface ConversationJob {
  id: number;
  event_id?: string;
  provider_job_id?: string;
  assigned_number_e164?: string;
  branch_code?: string;
  contact_name?: string;
  intent?: string;
  notes?: string;
  callback_url?: string;
  received_at: string;
}

export interface Conversation {
  lead_id: string;
  space: 'live' | 'test';
  jobs: ConversationJob[];
  messages: ConversationEvent[];
  /** Appointment events and job.closed, in order of occurred_at (§3: the result). */
  endings: ConversationEvent[];
  /** Other accepted events (only a deliberately lax mock accepts any). */
  others: ConversationEvent[];
  /** Requests for this lead the mock refused, newest first (at most MAX_REJECTED). */
  rejected: RequestSummary[];
  /** Events past the bound that are not shown. */
  cut: number;
}

/** One line of the conversations list. */
export interface ConversationSummary {
  lead_id: string;
  space: 'live' | 'test';
  events: number;
  messages: number;
  rejected: number;
  /** The last appointment event or job.closed type, when there is one. */
  ending?: string;
  last_at: string;
  /** The id of its newest row (ties of last_at are broken by it). */
  last_id: number;
  /** Its path segment: `/api/conversations/<space>/<path>` (lead-path.ts encodeLead). */
  path?: string;
}

const MAX_REJECTED = 50;

/** Leads with events, the most recently active first, `limit` of them. */
export function conversationList(
  store: InspectorStore,
  limit: number,
): { items: ConversationSummary[]; total: number } {
  const byLead = new Map<string, ConversationSummary>();
  const at = (space: 'live' | 'test', lead: string, when: string, id: number) => {
    const key = `${space}\u0000${lead}`;
    let summary = byLead.get(key);
    if (!summary) {
      summary = { lead_id: lead, space, events: 0, messages: 0, rejected: 0, last_at: when, last_id: id };
      byLead.set(key, summary);
    }
    if (when > summary.last_at || (when === summary.last_at && id >= summary.last_id)) {
      summary.last_id = id;
      summary.last_at = when;
    }
    return summary;
  };
  for (const request of store.requests.oldestFirst()) {
    const { entry } = request;
    const leadId = idsOf(request).lead_id;
    if (leadId === undefined || isJob(entry.interface)) continue;
    const summary = at(entry.space ?? 'live', leadId, entry.received_at, request.id);
    if (entry.verdict === 'accepted') countEvent(summary, entry.event);
    else if (entry.verdict === 'rejected' || entry.verdict === 'injected') summary.rejected++;
  }
  // The provider mock: a lead's conversation is the events sent for it (ordered with the jobs by time).
  for (const callback of store.callbacks.oldestFirst())
    countEvent(at('live', callback.entry.lead_id, callback.entry.sent_at, callback.id), callback.entry.event);
  for (const request of store.requests.oldestFirst()) {
    const { entry } = request;
    if (!isJob(entry.interface) || entry.lead_id === undefined || entry.verdict !== 'accepted') continue;
    const key = `live\u0000${entry.lead_id}`;
    if (!byLead.has(key)) at('live', entry.lead_id, entry.received_at, request.id);
  }
  const items = [...byLead.values()].sort((a, b) =>
    b.last_at === a.last_at ? b.last_id - a.last_id : b.last_at < a.last_at ? -1 : 1,
  );
  return {
    items: items.slice(0, limit).map((item) => ({ ...item, path: encodeLead(item.lead_id) })),
    total: items.length,
  };
}

/**
 * The lead of `space` whose path segment (encodeLead) is `path`, among the leads kept: how a lead named by its
 * digest (one too long for a URL, or empty, `.` or `..`) is found again.
 */
export function leadWithPath(store: InspectorStore, space: 'live' | 'test', path: string): string | undefined {
  const seen = new Set<string>();
  const named = (lead: string | undefined) => {
    if (lead === undefined || seen.has(lead)) return false;
    seen.add(lead);
    return encodeLead(lead) === path;
  };
  for (const request of store.requests.oldestFirst()) {
    const lead = idsOf(request).lead_id;
    if ((request.entry.space ?? 'live') === space && named(lead)) return lead;
  }
  if (space === 'live')
    for (const callback of store.callbacks.oldestFirst())
      if (named(callback.entry.lead_id)) return callback.entry.lead_id;
  return undefined;
}

/** A request of the interface whose documents are contact jobs (§4.1): the start of a conversation. */
function isJob(id: InterfaceId): boolean {
  return interfaceSpec(id).document === 'job';
}

function countEvent(summary: ConversationSummary, event: string | undefined): void {
  summary.events++;
  if (event === 'conversation.message') summary.messages++;
  else if (event !== undefined && endsConversation(event)) summary.ending = event;
}

/** The conversation of one lead in one space, or undefined when nothing is kept for it. */
export function conversationOf(
  store: InspectorStore,
  space: 'live' | 'test',
  leadId: string,
): Conversation | undefined {
  const conversation: Conversation = {
    lead_id: leadId,
    space,
    jobs: [],
    messages: [],
    endings: [],
    others: [],
    rejected: [],
    cut: 0,
  };
  const byEventId = new Map<string, ConversationEvent>();
  const limit = store.limits.maxConversationEvents;
  let shown = 0;
  let found = false;
  const add = (event: ConversationEvent) => {
    found = true;
    if (shown >= limit) {
      conversation.cut++;
      return;
    }
    shown++;
    const list =
      event.event === 'conversation.message'
        ? conversation.messages
        : endsConversation(event.event)
          ? conversation.endings
          : conversation.others;
    list.push(event);
  };
  for (const request of store.requests.oldestFirst()) {
    const { entry } = request;
    if (idsOf(request).lead_id !== leadId || (entry.space ?? 'live') !== space) continue;
    found = true;
    if (isJob(entry.interface)) {
      if (entry.verdict === 'accepted') conversation.jobs.push(jobOf(request));
      else if (entry.verdict !== 'duplicate') noteRejected(conversation, request);
      continue;
    }
    if (entry.verdict === 'duplicate' && entry.event_id !== undefined) {
      const first = byEventId.get(entry.event_id);
      if (first) first.duplicates = (first.duplicates ?? 0) + 1;
      continue;
    }
    if (entry.verdict !== 'accepted') {
      noteRejected(conversation, request);
      continue;
    }
    const event = eventOf('request', request.id, entry.received_at, request.body);
    if (!event) continue;
    byEventId.set(event.event_id, event);
    add(event);
  }
  if (space === 'live') {
    for (const callback of store.callbacks.oldestFirst())
      if (callback.entry.lead_id === leadId) addCallback(callback, add);
  }
  if (!found) return undefined;
  conversation.messages.sort(byOccurrence);
  conversation.endings.sort(byOccurrence);
  return conversation;
}

/** Newest first, the oldest dropped past MAX_REJECTED (requests come oldest first). */
function noteRejected(conversation: Conversation, request: InspectedRequest): void {
  if (conversation.rejected.length >= MAX_REJECTED) conversation.rejected.pop();
  conversation.rejected.unshift(summarise(request));
}

function addCallback(callback: InspectedCallback, add: (event: ConversationEvent) => void): void {
  const { entry } = callback;
  const event = eventOf('callback', callback.id, entry.sent_at, callback.body) ?? {
    source: 'callback',
    id: callback.id,
    event: entry.event,
    event_id: entry.event_id,
    at: entry.sent_at,
  };
  event.delivery = {
    outcome: entry.outcome,
    ...(entry.status !== undefined ? { status: entry.status } : {}),
    attempts: entry.attempts,
    ...(entry.error ? { error: entry.error } : {}),
    retries: callback.retries,
  };
  add(event);
}

/** Messages by occurred_at (§2.5); an unreadable or missing time sorts by arrival, after the timed ones. */
function byOccurrence(a: ConversationEvent, b: ConversationEvent): number {
  const ta = timeOf(a.occurred_at);
  const tb = timeOf(b.occurred_at);
  if (ta !== tb) return ta - tb;
  return a.at === b.at ? a.id - b.id : a.at < b.at ? -1 : 1;
}

function timeOf(value: string | undefined): number {
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}

const TEXT_FIELDS = [
  'occurred_at',
  'direction',
  'author',
  'channel',
  'text',
  'from_number_e164',
  'branch_code',
  'scheduled_at',
  'service',
  'notes',
  'outcome',
] as const;

function eventOf(
  source: 'request' | 'callback',
  id: number,
  at: string,
  body: Buffer | undefined,
): ConversationEvent | undefined {
  const document = body === undefined ? undefined : parsed(body);
  if (!document || typeof document.event !== 'string' || typeof document.event_id !== 'string') return undefined;
  const event: ConversationEvent = { source, id, event: document.event, event_id: document.event_id, at };
  for (const field of TEXT_FIELDS) {
    const value = document[field];
    if (typeof value === 'string') event[field] = value;
  }
  if (typeof document.attempts === 'number') event.attempts = document.attempts;
  return event;
}

function jobOf(request: InspectedRequest): ConversationJob {
  const document = request.body === undefined ? undefined : parsed(request.body);
  const contact = asObject(document?.contact);
  const brief = asObject(document?.brief);
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const job: ConversationJob = { id: request.id, received_at: request.entry.received_at };
  const fields: [keyof ConversationJob, string | undefined][] = [
    ['event_id', request.entry.event_id],
    ['provider_job_id', request.entry.provider_job_id],
    ['assigned_number_e164', request.entry.assigned_number_e164],
    ['branch_code', request.entry.branch_code],
    ['contact_name', text(contact?.name)],
    ['intent', text(brief?.intent)],
    ['notes', text(brief?.notes)],
    ['callback_url', text(document?.callback_url)],
  ];
  for (const [name, value] of fields) if (value !== undefined) (job as unknown as Record<string, string>)[name] = value;
  return job;
}

function parsed(body: Buffer): Record<string, unknown> | undefined {
  const result = parseJson(body);
  return result.ok ? asObject(result.value) : undefined;
}
