/**
 * What the sender model (./sender.ts) reads: the answers cai gives, the attempts as cai recorded them, and the
 * deliveries they form (the attempts of one document). Plain data and small pure functions, no I/O.
 */
import { asObject, canonicalJson, isObject, jsonValueOf } from '../json.js';
import { SENDER_PATIENCE_MS } from './sender-latitude.js';

// --- Answers -------------------------------------------------------------------------------------------------------

/** The 2xx a receiver may accept with (§6.5), and the other statuses of §7 (500, 501, 502 and 504 as 5xx too). */
export type AcceptedStatus = 200 | 201 | 202 | 204;
export type ErrorStatus = 400 | 401 | 413 | 429 | 500 | 501 | 502 | 503 | 504;

/** The Retry-After of a 429 (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date at least that far ahead. */
export interface RetryAfter {
  form: 'seconds' | 'date';
  seconds: number;
}

/**
 * An answer a receiver may give an attempt. `accepted`: a 2xx (`empty`: a 202 without a body; a 204 never has one);
 * `duplicate`: §2.13's 202 `{"ok":true,"duplicate":true}`; `error`: a refusal, a 429 or a 5xx; `reset`: the
 * connection cut with no answer at all. `delayMs`: the answer comes that long after the request is read.
 */
export type Answer =
  | { kind: 'accepted'; status: AcceptedStatus; empty?: boolean; delayMs?: number }
  | { kind: 'duplicate'; delayMs?: number }
  | { kind: 'error'; status: ErrorStatus; retryAfter?: RetryAfter; delayMs?: number }
  | { kind: 'reset'; delayMs?: number };

/** What an answer asks of the sender. */
export type AnswerClass = 'accepted' | 'refused' | 'rate-limited' | 'unavailable' | 'cut';

export function classOf(answer: Answer): AnswerClass {
  switch (answer.kind) {
    case 'accepted':
    case 'duplicate':
      return 'accepted';
    case 'reset':
      return 'cut';
    case 'error':
      return answer.status === 429 ? 'rate-limited' : answer.status >= 500 ? 'unavailable' : 'refused';
  }
}

/** The delivery is over (§6.5 any 2xx, §7 400, 401, 413): a sender must not send the document again. */
export function isFinal(answer: Answer): boolean {
  const kind = classOf(answer);
  return kind === 'accepted' || kind === 'refused';
}

// --- Attempts as the model reads them -------------------------------------------------------------------------------

/** The Retry-After cai sent with a 429: the header as sent, and for an HTTP-date the moment it names (monotonic ms). */
export interface SentRetryAfter {
  header: string;
  form: RetryAfter['form'];
  /** The seconds asked for (a date: at least this many ahead, on a whole second). */
  seconds: number;
  dateMono?: number;
  /**
   * A date written in the sender's clock as cai read it (its `Date` header, whole seconds): the reading's shift. The
   * moment the date names is then known to a second only (sender-latitude.ts, SENDER_CLOCK_RESOLUTION_MS).
   */
  clockShiftMs?: number;
}

/** One attempt as it arrived, with the answer it got. Monotonic times in ms. */
export interface SeenAttempt {
  /** Wall clock (ms) when cai read its headers: §5.5's window is judged at this moment. */
  arrivedAt: number;
  /** When cai's event loop got to it: it arrived no later than this … */
  arrivedMono: number;
  /** … and no more than this earlier (cai's loop was busy, or not scheduled); 0 when unknown. */
  slackMs?: number;
  /**
   * How long cai's loop had been held up in all by then, from some moment (only the difference between two attempts
   * means anything): a sender in cai's own process (the reference provider of a run against the built-in one) was
   * held up as long, its timers late by as much.
   */
  heldMs?: number;
  /** The earliest the sender can have begun it: its connection was opened, or became free of the answer before. */
  openedMono?: number;
  /**
   * It went out on a kept-alive connection the moment the answer before it there was done: it waited in the
   * sender's queue, and may have been signed long before it was sent.
   */
  queued?: boolean;
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  /**
   * Every header field as received, in order, names as sent: `headers` keeps one value of a field Node reads as a
   * singleton (Content-Type among them), so a field sent twice is seen here only. Absent where not recorded.
   */
  rawHeaders?: readonly (readonly [string, string])[];
  body: Buffer;
  bodyBytes: number;
  /** Longer than cai keeps: only its size is judged. */
  cut: boolean;
  /** The identity of its document (./sender.ts deliveryKeyOf). */
  key: string;
  answer: Answer;
  /** When the answer went out, or the connection was cut (by cai, or by the sender before the answer). */
  answeredMono?: number;
  /** The sender closed the connection before the answer went out: to the sender it was a cut. */
  unheard?: boolean;
  retryAfter?: SentRetryAfter;
  /** Arrived after cai stopped listening to its stage. */
  late: boolean;
}

/** What the sender heard: the answer's class, or a cut when it closed the connection before the answer. */
export function heard(attempt: Pick<SeenAttempt, 'answer' | 'unheard'>): AnswerClass {
  return attempt.unheard ? 'cut' : classOf(attempt.answer);
}

export const asksRetry = (kind: AnswerClass) => kind === 'rate-limited' || kind === 'unavailable' || kind === 'cut';

/**
 * What a conforming sender must do after an answer it heard: stop (a final answer: the document is not sent again),
 * or send the same document again under the same event_id, signed afresh: after a 429 no earlier than the moment its
 * Retry-After names (§7), after a 5xx or a cut connection with waits that grow (§7, §8). A retry may come later than
 * it must: how much later is the sender's (SENDER_LATITUDE).
 */
export type Next = { must: 'stop' } | { must: 'retry'; notBeforeMono?: number; backoff: boolean };

export function nextAfter(attempt: Pick<SeenAttempt, 'answer' | 'unheard' | 'answeredMono' | 'retryAfter'>): Next {
  const kind = heard(attempt);
  if (kind === 'accepted' || kind === 'refused') return { must: 'stop' };
  if (kind !== 'rate-limited' || attempt.retryAfter === undefined || attempt.answeredMono === undefined)
    return { must: 'retry', backoff: kind !== 'rate-limited' };
  return {
    must: 'retry',
    notBeforeMono: attempt.retryAfter.dateMono ?? attempt.answeredMono + attempt.retryAfter.seconds * 1000,
    backoff: false,
  };
}

const documents = new WeakMap<Buffer, unknown>();

/** The body as a JSON value, or undefined when it is not JSON (or was cut). Parsed once per body. */
export function documentOf(attempt: Pick<SeenAttempt, 'body' | 'cut'>): unknown {
  if (attempt.cut) return undefined;
  if (!documents.has(attempt.body)) documents.set(attempt.body, jsonValueOf(attempt.body));
  return documents.get(attempt.body);
}

/** The document's event_id (a job's or an event's), when it has a string one. */
export function eventIdOfAttempt(attempt: Pick<SeenAttempt, 'body' | 'cut'>): string | undefined {
  const id = asObject(documentOf(attempt))?.event_id;
  return typeof id === 'string' ? id : undefined;
}

/** A document's canonical texts: whole, and without its event_id. */
interface Texts {
  whole: string;
  content: string;
}
const texts = new WeakMap<Buffer, Texts>();

/**
 * The canonical texts of an attempt's document (canonicalJson), written once per body: a stage's attempts are
 * compared pair by pair (renames, repeats, retries), and a document read again for each pair cost a sender run of 20
 * documents at once seconds of cai's loop, long enough for a sender's own time-out to pass before its answer went out.
 */
function textsOf(attempt: Pick<SeenAttempt, 'body' | 'cut'>): Texts | undefined {
  const doc = documentOf(attempt);
  if (doc === undefined) return undefined;
  let known = texts.get(attempt.body);
  if (known === undefined) {
    const whole = canonicalJson(doc);
    // Without its event_id: what a retry under another event_id still has in common with the first.
    const { event_id: _ignored, ...content } = isObject(doc) ? doc : {};
    known = { whole, content: isObject(doc) ? canonicalJson(content) : whole };
    texts.set(attempt.body, known);
  }
  return known;
}

/** The document but for its event_id, as one text whatever its keys' order; undefined when the body is not JSON. */
export function contentOf(attempt: Pick<SeenAttempt, 'body' | 'cut'>): string | undefined {
  return textsOf(attempt)?.content;
}

/** Whether two attempts carry the same document (both JSON; key order aside). */
export function sameDocument(a: Pick<SeenAttempt, 'body' | 'cut'>, b: Pick<SeenAttempt, 'body' | 'cut'>): boolean {
  const [first, second] = [textsOf(a), textsOf(b)];
  return first !== undefined && second !== undefined && first.whole === second.whole;
}

/** Whether two attempts carry the same document but for its event_id (both JSON). */
export function sameContent(a: Pick<SeenAttempt, 'body' | 'cut'>, b: Pick<SeenAttempt, 'body' | 'cut'>): boolean {
  const first = contentOf(a);
  return first !== undefined && first === contentOf(b);
}

/**
 * The wait before an attempt, from the answer before it, as an interval: [earliest, latest] ms. The sender's own wait
 * may be shorter by cai's lag at the arrival; a sender in cai's own process (`inProcess`) waited less, too, by all the
 * time cai's loop was held up meanwhile: its timers ran on that loop.
 */
export function waitBefore(
  previous: SeenAttempt,
  next: SeenAttempt,
  inProcess = false,
): { earliest: number; latest: number } {
  const from = previous.answeredMono ?? previous.arrivedMono;
  const latest = next.arrivedMono - from;
  const held =
    inProcess && next.heldMs !== undefined && previous.heldMs !== undefined ? next.heldMs - previous.heldMs : 0;
  return { earliest: Math.max(0, latest - Math.max(next.slackMs ?? 0, held)), latest };
}

// --- Deliveries ----------------------------------------------------------------------------------------------------

/**
 * One delivery: a document and its retries, in order of arrival. `renamed` when its attempts carry more than one
 * event_id: the document sent again under a new event_id (`renamesOf`).
 */
export interface Delivery<A extends SeenAttempt = SeenAttempt> {
  key: string;
  attempts: A[];
  renamed: boolean;
}

/**
 * Whether `next`, which cai got to after `answered`'s answer went out, was surely sent after it. It was when it arrived
 * after that moment even read as early as cai's lag allows, or came on a connection opened (or freed by that answer,
 * not queued behind it) after. It was too when the answer went out before the sender can have given up waiting for
 * it (SENDER_PATIENCE_MS): a sender sends a document again after the answer, or while it waits (one-at-a-time's).
 */
export function sentAfterAnswer(
  answered: Pick<SeenAttempt, 'arrivedMono' | 'slackMs' | 'answeredMono'>,
  next: Pick<SeenAttempt, 'arrivedMono' | 'slackMs' | 'openedMono' | 'queued'>,
): boolean {
  const answeredMono = answered.answeredMono ?? Number.POSITIVE_INFINITY;
  if (next.arrivedMono - (next.slackMs ?? 0) >= answeredMono) return true;
  if (next.queued !== true && next.openedMono !== undefined && next.openedMono >= answeredMono) return true;
  return answeredMono - (answered.arrivedMono - (answered.slackMs ?? 0)) < SENDER_PATIENCE_MS;
}

/**
 * Whether `later` (the first attempt of a document identity not seen before) may be `earlier`'s document sent again
 * under a new event_id: the same document but for its event_id, arriving after the last answer of `earlier`, which
 * was its last attempt. After a retryable answer the delivery was abandoned, and any such document is one (`retry`);
 * after the duplicate answer only one whose request was begun after that answer went out can be (`duplicate`).
 */
function renameOf(
  earlier: readonly SeenAttempt[],
  later: Pick<SeenAttempt, 'arrivedMono' | 'openedMono' | 'body' | 'cut'>,
): 'retry' | 'duplicate' | undefined {
  const last = earlier.at(-1);
  if (!last || last.answeredMono === undefined || last.answeredMono > later.arrivedMono) return undefined;
  const [firstId, laterId] = [eventIdOfAttempt(last), eventIdOfAttempt(later)];
  if (firstId === undefined || laterId === undefined || firstId === laterId) return undefined;
  if (!isObject(documentOf(later)) || !sameContent(last, later)) return undefined;
  if (asksRetry(heard(last))) return 'retry';
  const openedAfter = later.openedMono !== undefined && later.openedMono >= last.answeredMono;
  return last.answer.kind === 'duplicate' && !last.unheard && openedAfter ? 'duplicate' : undefined;
}

/** How many documents (event_ids) a stage brought: what a sender sends in one run. */
export function documentsIn(attempts: readonly SeenAttempt[]): number {
  return new Set(attempts.map((attempt) => eventIdOfAttempt(attempt) ?? attempt.key)).size;
}

/**
 * The identity of an attempt's document: its `event_id` when the body is a JSON object with a string one; else its
 * bytes (a retry of the same unreadable body is still the same delivery); a body too long to keep is its own.
 */
export function deliveryKeyOf(
  arrival: Pick<SeenAttempt, 'body' | 'cut'>,
  number: number,
  digest: (body: Buffer) => string,
): string {
  if (arrival.cut) return `cut:${number}`;
  const id = eventIdOfAttempt(arrival);
  return id !== undefined ? `id:${id}` : `bytes:${digest(arrival.body)}`;
}

/**
 * The deliveries of a stage, once every attempt is in. Attempts of one document identity form one delivery; a
 * document sent again under a new event_id joins the delivery it renames (`renameOf`), so that its retry is judged
 * as a retry, and its new event_id as the fault it is. Documents alike after the duplicate answer may as well be a
 * sender's documents alike sent at once (a sender may send two events alike): they are taken for renames only when
 * the stage brought that many more documents than the sender sends in a run (`documentsPerRun`, its other stages').
 * So are documents alike after an answer asking for a retry, when that number is known: on a busy machine one of
 * several alike, sent at once, may come after another's last answer.
 */
export function deliveriesOf<A extends SeenAttempt>(attempts: readonly A[], documentsPerRun?: number): Delivery<A>[] {
  const byKey = new Map<string, A[]>();
  for (const attempt of attempts) byKey.set(attempt.key, [...(byKey.get(attempt.key) ?? []), attempt]);
  const groups = [...byKey.entries()].map(([key, list]) => ({ key, attempts: list }));
  const links = new Map<string, { key: string; kind: 'retry' | 'duplicate' }>();
  for (const [index, later] of groups.entries()) {
    const first = later.attempts[0] as A;
    for (const group of groups.slice(0, index)) {
      const kind = links.has(group.key) ? undefined : renameOf(group.attempts, first);
      if (kind) {
        links.set(group.key, { key: later.key, kind });
        break;
      }
    }
  }
  const extra = documentsPerRun === undefined ? 0 : documentsIn(attempts) - documentsPerRun;
  // Alike after an answer asking for a retry, too, when the run shows how many documents the sender sends: more
  // renames than the stage brought documents beyond those are the sender's documents alike, one of them late.
  for (const kind of documentsPerRun === undefined ? ['duplicate'] : ['duplicate', 'retry']) {
    const linked = [...links].filter(([, link]) => link.kind === kind);
    if (linked.length > extra) for (const [key] of linked) links.delete(key);
  }
  const chainedInto = new Map([...links].map(([key, link]) => [key, link.key]));
  const chained = new Set(chainedInto.values());
  return groups
    .filter((group) => !chained.has(group.key))
    .map((head) => {
      const list = [...head.attempts];
      let next = chainedInto.get(head.key);
      while (next !== undefined) {
        list.push(...(byKey.get(next) ?? []));
        next = chainedInto.get(next);
      }
      return { key: head.key, attempts: list, renamed: list.length > head.attempts.length };
    });
}
