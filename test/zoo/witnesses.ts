/**
 * A witness for each deliberate fault of the zoo's receivers: a few requests that a correct receiver and the broken
 * one answer differently. They show the fault is real, so that a fault cai does not catch is cai's gap, not a fault
 * that does nothing. Each witness is written from the clause the fault breaks.
 */
import {
  EVENTS_SECRET,
  PROVIDER,
  describeAck,
  describeArrivals,
  hmacHex,
  nowSeconds,
  sendJob,
  sign,
  sleep,
  validEvent,
  validJob,
  type Arrival,
  type EventProbe,
} from './support.js';

const signedWith = (secret: string) => (timestamp: string, body: Buffer) => sign(secret, timestamp, body);
const correctly = signedWith(EVENTS_SECRET);
/** A body of `bytes` bytes: a valid event whose text is `unit` repeated (each `unit` of `unitBytes` bytes). */
function eventOfSize(id: string, bytes: number, unit: string): string {
  const empty = JSON.stringify(validEvent(id, { text: '' }));
  const unitBytes = Buffer.byteLength(unit);
  const room = bytes - Buffer.byteLength(empty);
  return JSON.stringify(
    validEvent(id, { text: unit.repeat(Math.floor(room / unitBytes)) + 'x'.repeat(room % unitBytes) }),
  );
}

/** Interface B: for each fault of node/receiver-b.mjs (and python/receiver_b.py), the probes; `id` is fresh. */
export const B_WITNESSES: Record<string, (id: string) => EventProbe[]> = {
  'sig-no-dot': () => [{}],
  'sig-uppercase-hex': () => [
    { signature: (ts, body) => `sha256=${hmacHex(EVENTS_SECRET, `${ts}.${body.toString('utf8')}`).toUpperCase()}` },
  ],
  'sig-bare-hex': () => [{ signature: (ts, body) => correctly(ts, body).slice('sha256='.length) }],
  'sig-length-only': () => [{ signature: signedWith('not-the-secret') }],
  'sig-prefix-compare': () => [
    { signature: (ts, body) => correctly(ts, body).replace(/.$/, (c) => (c === '0' ? '1' : '0')) },
  ],
  // Both sides of the edge: one of the two is judged in the same second as it was stamped.
  'window-off-by-one': () => [{ timestamp: String(nowSeconds() - 301) }, { timestamp: String(nowSeconds() + 301) }],
  'window-past-only': () => [{ timestamp: String(nowSeconds() + 400) }],
  'window-from-occurred-at': () => [{ timestamp: String(nowSeconds() - 400) }],
  'window-accepts-ms': () => [{ timestamp: String(Date.now()) }],
  'size-in-characters': (id) => [{ raw: eventOfSize(id, 262_145, 'é') }],
  'size-content-length-only': (id) => [{ raw: eventOfSize(id, 300_000, 'x'), chunked: true }],
  'size-400': (id) => [{ raw: eventOfSize(id, 300_000, 'x') }],
  'event-id-bytes': (id) => [{ event: { event_id: `${id}-`.padEnd(120, 'é') } }],
  'provider-case-insensitive': () => [{ provider: PROVIDER.toUpperCase() }],
  'dedupe-case-insensitive': (id) => [{ event: { event_id: `${id}-Case` } }, { event: { event_id: `${id}-case` } }],
  'dedupe-trims': (id) => [{ event: { event_id: id } }, { event: { event_id: `${id} ` } }],
  'dedupe-nfc': (id) => [{ event: { event_id: `${id}-\u00e9` } }, { event: { event_id: `${id}-e\u0301` } }],
  'dedupe-last-16': (id) => [
    {},
    ...Array.from({ length: 16 }, (_, i) => ({ event: { event_id: `${id}-other-${i}` } })),
    {},
  ],
  'dedupe-forgets': () => [{}, { pauseMs: 3_500 }],
  'records-before-auth': () => [{ signature: signedWith('not-the-secret') }, {}],
  'records-before-schema': () => [{ event: { channel: 'carrier-pigeon' } }, {}],
  'dedupe-on-body': () => [{ event: { text: 'first' } }, { event: { text: 'second' } }],
  'enum-case-insensitive': () => [{ event: { channel: 'WhatsApp' } }],
  'enum-synonyms': () => [{ event: { author: 'bot' } }],
  'event-type-prefix': () => [{ event: { event: 'appointment.deleted' } }],
  'e164-max-14': () => [{ event: { from_number_e164: '+493012345678901' } }],
  'e164-no-plus': () => [{ event: { from_number_e164: '447700900123' } }],
  'date-time-no-fraction': () => [{ event: { occurred_at: '2026-01-05T10:30:00.123456+01:00' } }],
  'date-time-no-z': () => [{ event: { occurred_at: '2026-01-05T09:30:00Z' } }],
  'attempts-not-integer': (id) => [
    {
      raw: JSON.stringify({
        event: 'job.closed',
        event_id: id,
        lead_id: 'lead-zoo-witness',
        outcome: 'no_answer',
        attempts: 1.5,
      }),
    },
  ],
  'bad-signature-400': () => [{ signature: signedWith('not-the-secret') }],
  'schema-401': () => [{ event: { direction: 'sideways' } }],
  'bad-json-500': () => [{ raw: '{"event": "conversation.message", ' }],
  // python/receiver_b.py: bodies that no re-serialisation gives back byte for byte.
  reserialised: (id) => [{ raw: JSON.stringify(validEvent(id), null, 2).replace(/\n/g, '\r\n') }],
  compact: (id) => [{ raw: JSON.stringify(validEvent(id, { text: 'Olá, “amigo”' })) }],
};

/** What an A witness needs: the provider's endpoint, the callback listener, and a fresh id. */
export interface AContext {
  endpoint: string;
  listener: { url: string; arrivals: Arrival[] };
  id: string;
}

/** Waits until `path` has seen an ending event (appointment.* or job.closed) accepted, at most `ms`, then `settleMs` more. */
async function conversationOn(context: AContext, path: string, ms = 8_000, settleMs = 600): Promise<Arrival[]> {
  const ended = () =>
    context.listener.arrivals.some(
      (a) => a.path === path && a.answer === 202 && /^(appointment\.|job\.closed)/.test(String(a.doc?.event)),
    );
  for (const start = Date.now(); !ended() && Date.now() - start < ms; ) await sleep(50);
  await sleep(settleMs);
  return context.listener.arrivals.filter((arrival) => arrival.path === path);
}

const jobStatus = async (
  context: AContext,
  probe: Omit<Parameters<typeof sendJob>[1], 'job'>,
  fields: Record<string, unknown> = {},
) => [
  describeAck(
    await sendJob(context.endpoint, {
      job: validJob(context.id, `${context.listener.url}/plain/${context.id}`, fields),
      ...probe,
    }),
  ),
];

/** A job sent twice: whether the acknowledgments agree, and how many conversations reached their end. */
async function repeated(context: AContext): Promise<string[]> {
  const path = `/plain/${context.id}`;
  const first = await sendJob(context.endpoint, { job: validJob(context.id, `${context.listener.url}${path}`) });
  const again = await sendJob(context.endpoint, { job: validJob(context.id, `${context.listener.url}${path}`) });
  const arrivals = await conversationOn(context, path, 8_000, 1_500);
  const endings = arrivals.filter((a) => /^(appointment\.|job\.closed)/.test(String(a.doc?.event))).length;
  const jobId = (text: string) => (JSON.parse(text) as { provider_job_id?: string }).provider_job_id;
  return [`same acknowledgment:${first.text !== '' && jobId(first.text) === jobId(again.text)}`, `endings:${endings}`];
}

/** A job whose events go to the scripted path (503, 429, 400 on the first three): the events as a platform sees them. */
async function callbacks(context: AContext): Promise<string[]> {
  const path = `/scripted/${context.id}`;
  const leadId = `Lead-Cafe\u0301-${context.id}`;
  await sendJob(context.endpoint, { job: validJob(context.id, `${context.listener.url}${path}`, { lead_id: leadId }) });
  return describeArrivals(await conversationOn(context, path), path, leadId);
}

/** Interface A: for each fault of node/receiver-a.mjs, what it is seen to do. */
export const A_WITNESSES: Record<string, (context: AContext) => Promise<string[]>> = {
  'ack-200': (c) => jobStatus(c, {}),
  'ack-national-number': (c) => jobStatus(c, {}),
  'repeat-new-job': repeated,
  'repeat-restarts-conversation': repeated,
  'accepts-events-secret': (c) => jobStatus(c, { secret: EVENTS_SECRET }),
  'signature-optional': (c) => jobStatus(c, { without: 'x-cai-signature' }),
  'window-units': (c) => jobStatus(c, { timestamp: String(nowSeconds() - 400) }),
  'source-not-checked': (c) => jobStatus(c, { without: 'x-cai-source' }),
  'requires-origin': (c) => jobStatus(c, {}),
  'callback-lead-nfc': callbacks,
  'callback-jobs-secret': callbacks,
  'callback-no-retry-5xx': callbacks,
  'callback-ignores-retry-after': callbacks,
  'callback-retries-400': callbacks,
  'callback-new-event-id-on-retry': callbacks,
};
