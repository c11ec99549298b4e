/**
 * `cai load --interface A --callbacks`: a listener whose address is each job's `callback_url` (§2.2), so the time
 * from a job to the provider's first event for it (§3 step 5) can be measured against §8's first-contact target.
 * Each job gets its own path (`/cai-load/<token>`), so a callback is matched to its job whatever its body says. A
 * callback counts when its signature verifies with the events secret (§5); it is answered 202 (401 when it does
 * not verify), as a platform would. The time runs from when the job was sent; only jobs the provider accepted as
 * new are judged. It is cai's one listener (http/listener.ts) with the bounds of every run
 * (LISTENER_CAPS: 408 for a body that stalls or drags, 503 past the bytes being read at once), reading at most §8's
 * limit: a body over it, declared or sent, is answered 413. Nothing is kept, so it records no request cap.
 */
import { LISTENER_CAPS } from '../bounds.js';
import { startListener, type Arrival, type Handled, type Listener } from '../http/listener.js';
import { hostPort } from '../http/address.js';
import { errorReply, jsonReply, type Reply } from '../http/server.js';
import { verify } from '../signing/verify.js';
import { Headers, MAX_BODY_BYTES } from '../spec/constants.js';
import { LOAD_BOUNDS } from './bounds.js';
import { Histogram } from './histogram.js';

const PATH_PREFIX = '/cai-load/';

interface JobState {
  sentAt: number;
  contactedAt?: number;
  /** The provider's answer: accepted as a new job (judged), or not (forgotten). */
  accepted?: boolean;
}

/** What a run's callbacks come to (LoadReport.callbacks): counts, and the first contacts' delays. */
function newSummary(targetMs: number) {
  return {
    /** Jobs accepted as new whose first callback was awaited. */
    tracked: 0,
    contacted: 0,
    withinTarget: 0,
    /** Tracked jobs with no callback within the target. */
    missing: 0,
    /** Jobs accepted while LOAD_BOUNDS.callbackJobs were awaited already: sent, but not timed. */
    untracked: 0,
    /** Callbacks received in all (every event of every conversation), and those whose signature did not verify. */
    received: 0,
    invalidSignature: 0,
    targetMs,
    firstContact: new Histogram(),
  };
}

export type CallbackSummary = ReturnType<typeof newSummary>;

export interface CallbackListenerOptions {
  host: string;
  port: number;
  /** The address the provider reaches the listener at (default: its own). */
  publicUrl?: string;
  /** The events direction's secrets (§5.1). */
  secrets: readonly string[];
  /** §8 first contact, scaled. */
  targetMs: number;
}

export class CallbackListener {
  private readonly jobs = new Map<string, JobState>();
  private readonly summary: CallbackSummary;
  private listener: Listener | undefined;
  private base = '';
  /** Accepted jobs not contacted yet. */
  private awaiting = 0;

  constructor(private readonly options: CallbackListenerOptions) {
    this.summary = newSummary(options.targetMs);
  }

  async start(): Promise<void> {
    this.listener = await startListener({
      host: this.options.host,
      port: this.options.port,
      handle: (arrival) => this.handle(arrival),
      option: 'callback-listen',
      caps: { ...LISTENER_CAPS, keptRequests: Number.POSITIVE_INFINITY, keptBodyBytes: Number.POSITIVE_INFINITY },
      bodyLimit: MAX_BODY_BYTES,
    });
    const port = Number(new URL(this.listener.url).port);
    const url = this.options.publicUrl ?? `http://${hostPort(this.options.host, port)}`;
    this.base = url.replace(/\/+$/, '');
  }

  /** The callback_url of the job named `token`. */
  urlFor(token: string): string {
    return `${this.base}${PATH_PREFIX}${token}`;
  }

  /** A job goes on the wire now. */
  sent(token: string): void {
    if (this.jobs.size >= LOAD_BOUNDS.callbackJobs) return;
    this.jobs.set(token, { sentAt: performance.now() });
  }

  /** The provider's answer to a job: accepted as new (judged from now on), or not. */
  answered(token: string, acceptedAsNew: boolean): void {
    const job = this.jobs.get(token);
    if (job === undefined) {
      if (acceptedAsNew) this.summary.untracked += 1;
      return;
    }
    if (!acceptedAsNew) {
      this.jobs.delete(token);
      return;
    }
    job.accepted = true;
    this.summary.tracked += 1;
    if (job.contactedAt !== undefined) this.contacted(token, job);
    else this.awaiting += 1;
  }

  /**
   * Waits until every accepted job has had its first callback, or its target has passed (then it is missing), or
   * `signal` aborts. Jobs still awaited then are counted as missing.
   */
  async settle(signal?: AbortSignal): Promise<void> {
    while (this.awaiting > 0 && signal?.aborted !== true) {
      const now = performance.now();
      let latest = now;
      for (const job of this.jobs.values())
        if (job.accepted && job.contactedAt === undefined)
          latest = Math.max(latest, job.sentAt + this.options.targetMs);
      if (latest <= now) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, latest - now)));
    }
    for (const job of this.jobs.values()) if (job.accepted && job.contactedAt === undefined) this.summary.missing += 1;
  }

  result(): CallbackSummary {
    return this.summary;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  private handle(arrival: Arrival): Handled {
    const arrived = performance.now();
    const reply = (answer: Reply): Handled => ({ response: { kind: 'reply', reply: answer }, answered: () => {} });
    // §8: a body over the limit, declared or sent, is not read past it.
    if (arrival.cut)
      return reply(errorReply(413, 'payload_too_large', `the body is over the ${MAX_BODY_BYTES}-byte limit (§8)`));
    this.summary.received += 1;
    // §5: the events direction's signature over the raw body.
    const verdict = verify({
      secrets: this.options.secrets,
      signature: arrival.headers[Headers.signature],
      timestamp: arrival.headers[Headers.timestamp],
      rawBody: arrival.body,
    });
    if (!verdict.valid) {
      this.summary.invalidSignature += 1;
      return reply(errorReply(401, 'invalid_signature', verdict.message));
    }
    const path = arrival.path.split('?')[0] ?? '';
    const token = path.startsWith(PATH_PREFIX) ? path.slice(PATH_PREFIX.length) : '';
    // A job's later events (and paths of no job) change nothing: only the first callback of a job is timed.
    const job = this.jobs.get(token);
    if (job !== undefined && job.contactedAt === undefined) {
      job.contactedAt = arrived;
      if (job.accepted) {
        this.awaiting -= 1;
        this.contacted(token, job);
      }
    }
    return reply(jsonReply(202, { ok: true }));
  }

  /** The first callback of an accepted job: its delay counted, the job forgotten. */
  private contacted(token: string, job: JobState): void {
    const delay = (job.contactedAt as number) - job.sentAt;
    this.summary.contacted += 1;
    if (delay <= this.options.targetMs) this.summary.withinTarget += 1;
    this.summary.firstContact.record(Math.max(0, delay) * 1000);
    this.jobs.delete(token);
  }
}
