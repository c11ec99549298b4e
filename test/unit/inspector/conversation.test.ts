/**
 * A lead's events grouped into its conversation (§3): messages by occurred_at whatever order they arrived in,
 * then the appointment or closing outcome; repeats counted, refusals listed; the provider mock's callbacks with
 * their answers.
 */
import { describe, expect, it } from 'vitest';
import type { MockRequestEntry, ObservedRequest } from '../../../src/mock/platform.js';
import type { SentEventEntry } from '../../../src/mock/simulator.js';
import { conversationList, conversationOf } from '../../../src/inspector/conversation.js';
import { InspectorStore } from '../../../src/inspector/store.js';

let clock = Date.parse('2026-11-22T13:00:00Z');

/** What the pipeline hands its observer for one request (fields as the platform mock sets them). */
function observed(document: Record<string, unknown>, entry: Partial<MockRequestEntry> = {}): ObservedRequest {
  clock += 1000;
  const body = Buffer.from(JSON.stringify(document));
  const verdict = entry.verdict ?? 'accepted';
  const fields =
    verdict === 'accepted' || verdict === 'duplicate'
      ? { event: document.event as string, event_id: document.event_id as string, lead_id: document.lead_id as string }
      : {};
  return {
    entry: {
      received_at: new Date(clock).toISOString(),
      interface: 'B',
      status: 202,
      verdict,
      space: 'live',
      provider_code: 'acme',
      ...fields,
      ...entry,
    },
    method: 'POST',
    target: '/events',
    httpVersion: '1.1',
    rawHeaders: ['Content-Type', 'application/json', 'X-CAI-Provider', 'acme'],
    body,
    reply: { status: entry.status ?? 202, body: Buffer.from('{"ok":true}') },
  };
}

const message = (id: string, occurred: string, text: string, lead = 'lead-1') => ({
  event: 'conversation.message',
  event_id: id,
  lead_id: lead,
  direction: id.endsWith('in') ? 'inbound' : 'outbound',
  author: id.endsWith('in') ? 'contact' : 'agent',
  channel: 'whatsapp',
  text,
  occurred_at: occurred,
});

describe('conversations', () => {
  it("orders a lead's messages by occurred_at, then its result; counts repeats; lists refusals; keeps spaces apart", () => {
    const store = new InspectorStore();
    const booked = {
      event: 'appointment.booked',
      event_id: 'e-book',
      lead_id: 'lead-1',
      branch_code: 'BR-1',
      scheduled_at: '2026-11-25T10:30:00+00:00',
      occurred_at: '2026-11-22T13:00:05+01:00',
    };
    // Received out of order: the booking first, then messages whose occurred_at says otherwise (one in another offset).
    store.observe(observed(booked));
    store.observe(observed(message('m3-out', '2026-11-22T12:00:04Z', 'Booked, see you then.')));
    store.observe(observed(message('m1-out', '2026-11-22T13:00:01+01:00', 'Hello, can I help?')));
    store.observe(observed(message('m2-in', '2026-11-22T12:00:02Z', 'Yes, Wednesday please.')));
    store.observe(
      observed(message('m2-in', '2026-11-22T12:00:02Z', 'Yes, Wednesday please.'), { verdict: 'duplicate' }),
    );
    store.observe(
      observed(message('bad', 'x', 'refused'), { verdict: 'rejected', status: 401, reason: 'invalid_signature' }),
    );
    store.observe(observed(message('other-lead-out', '2026-11-22T12:00:00Z', 'not this lead', 'lead-2')));
    store.observe(observed(message('test-space-out', '2026-11-22T12:00:00Z', 'test space'), { space: 'test' }));

    const conversation = conversationOf(store, 'live', 'lead-1');
    expect(conversation?.messages.map((event) => [event.event_id, event.text, event.duplicates])).toEqual([
      ['m1-out', 'Hello, can I help?', undefined],
      ['m2-in', 'Yes, Wednesday please.', 1],
      ['m3-out', 'Booked, see you then.', undefined],
    ]);
    expect(conversation?.messages[1]).toMatchObject({
      direction: 'inbound',
      author: 'contact',
      channel: 'whatsapp',
      source: 'request',
    });
    expect(conversation?.endings.map((event) => [event.event, event.scheduled_at, event.branch_code])).toEqual([
      ['appointment.booked', '2026-11-25T10:30:00+00:00', 'BR-1'],
    ]);
    expect(conversation?.rejected.map((row) => [row.status, row.reason, row.event_id])).toEqual([
      [401, 'invalid_signature', 'bad'],
    ]);
    expect(conversationOf(store, 'test', 'lead-1')?.messages.map((event) => event.event_id)).toEqual([
      'test-space-out',
    ]);
    expect(conversationOf(store, 'live', 'lead-unknown')).toBeUndefined();

    const list = conversationList(store, 10);
    expect(list.total).toBe(3);
    expect(list.items.map((item) => [item.space, item.lead_id])).toEqual([
      ['test', 'lead-1'],
      ['live', 'lead-2'],
      ['live', 'lead-1'],
    ]);
    expect(list.items[2]).toMatchObject({ events: 4, messages: 3, rejected: 1, ending: 'appointment.booked' });
    expect(conversationList(store, 1).items).toHaveLength(1);
  });

  it('puts a closing outcome after the messages, and events without a readable time last', () => {
    const store = new InspectorStore();
    store.observe(
      observed({
        event: 'job.closed',
        event_id: 'close',
        lead_id: 'lead-1',
        outcome: 'no_answer',
        attempts: 3,
        occurred_at: '2026-11-22T12:00:00Z',
      }),
    );
    store.observe(observed(message('late-out', 'not a date', 'no time')));
    store.observe(observed(message('early-out', '2026-11-22T11:00:00Z', 'first')));
    const conversation = conversationOf(store, 'live', 'lead-1');
    expect(conversation?.messages.map((event) => event.event_id)).toEqual(['early-out', 'late-out']);
    expect(conversation?.endings).toMatchObject([{ event: 'job.closed', outcome: 'no_answer', attempts: 3 }]);
  });

  it('for the provider mock: the job, then the events it sent with their answers and retries', () => {
    const store = new InspectorStore();
    const job = {
      lead_id: 'lead-9',
      event_id: 'job-1',
      branch_code: 'BR-1',
      contact: { name: 'Ana', phone_e164: '+34600000000' },
      brief: { intent: 'book_appointment' },
      callback_url: 'http://127.0.0.1:1/events',
    };
    store.observe({
      ...observed(job, {
        interface: 'A',
        event_id: 'job-1',
        lead_id: 'lead-9',
        provider_job_id: 'pj_1',
        assigned_number_e164: '+447700900001',
        space: undefined,
      }),
      entry: {
        received_at: new Date(clock).toISOString(),
        interface: 'A',
        status: 202,
        verdict: 'accepted',
        event_id: 'job-1',
        lead_id: 'lead-9',
        branch_code: 'BR-1',
        provider_job_id: 'pj_1',
        assigned_number_e164: '+447700900001',
      },
    });
    const sent = (event: Record<string, unknown>, extra: Partial<SentEventEntry> = {}) => {
      const entry: SentEventEntry = {
        sent_at: new Date((clock += 1000)).toISOString(),
        direction: 'sent',
        provider_job_id: 'pj_1',
        event: event.event as string,
        event_id: event.event_id as string,
        lead_id: 'lead-9',
        url: job.callback_url,
        outcome: 'accepted',
        status: 202,
        attempts: 1,
        ...extra,
      };
      store.observeSent({
        entry,
        body: Buffer.from(JSON.stringify(event)),
        headers: { 'Content-Type': 'application/json', 'X-CAI-Provider': 'acme' },
      });
    };
    sent(message('c1-out', '2026-11-22T12:00:01Z', 'Hi Ana', 'lead-9'));
    store.noteRetry({
      event: 'conversation.message',
      event_id: 'c2-in',
      url: job.callback_url,
      attempt: 1,
      reason: 'status 503',
      waitMs: 1000,
    });
    sent(message('c2-in', '2026-11-22T12:00:02Z', 'Hello', 'lead-9'), { attempts: 2 });
    sent(
      { event: 'appointment.booked', event_id: 'c3', lead_id: 'lead-9', occurred_at: '2026-11-22T12:00:03Z' },
      { outcome: 'rejected', status: 400, error: 'rejected with 400' },
    );

    const conversation = conversationOf(store, 'live', 'lead-9');
    expect(conversation?.jobs).toMatchObject([
      {
        id: 1,
        event_id: 'job-1',
        provider_job_id: 'pj_1',
        assigned_number_e164: '+447700900001',
        contact_name: 'Ana',
        intent: 'book_appointment',
      },
    ]);
    expect(
      conversation?.messages.map((event) => [
        event.source,
        event.event_id,
        event.delivery?.attempts,
        event.delivery?.retries.length,
      ]),
    ).toEqual([
      ['callback', 'c1-out', 1, 0],
      ['callback', 'c2-in', 2, 1],
    ]);
    expect(conversation?.endings[0]?.delivery).toMatchObject({
      outcome: 'rejected',
      status: 400,
      error: 'rejected with 400',
    });
    expect(store.callbackPage({}, {}).items.map((row) => [row.id, row.event_id, row.retries])).toEqual([
      [3, 'c3', 0],
      [2, 'c2-in', 1],
      [1, 'c1-out', 0],
    ]);
    expect(store.callbackPage({ job: 'pj_other' }, {}).items).toEqual([]);
    expect(conversationList(store, 10).items).toMatchObject([
      { lead_id: 'lead-9', events: 3, messages: 2, ending: 'appointment.booked' },
    ]);
  });

  it('shows at most the bound of events, and says how many more', () => {
    const store = new InspectorStore({ maxConversationEvents: 2 });
    for (let n = 0; n < 5; n++) store.observe(observed(message(`m${n}-out`, `2026-11-22T12:00:0${n}Z`, `n${n}`)));
    const conversation = conversationOf(store, 'live', 'lead-1');
    expect(conversation?.messages).toHaveLength(2);
    expect(conversation?.cut).toBe(3);
  });
});
