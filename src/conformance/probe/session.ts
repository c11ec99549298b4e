/**
 * The connection to the target during one run: sends each request built from its recipe (./build.ts), honours 429
 * (§7: wait `Retry-After`, send again, re-signed), measures the target's clock, hands out fresh event_ids.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { postOnce } from '../../http/client.js';
import { DEFAULT_RETRY_POLICY, retryLoop } from '../../http/retry.js';
import { formatDuration } from '../../duration.js';
import { CaiError, errorMessage } from '../../errors.js';
import { Headers } from '../../spec/constants.js';
import { endpointUrl } from '../../spec/interfaces.js';
import { isWellFormedRetryAfter, parseRetryAfter } from '../../spec/retry-after.js';
import { classifyStatus } from '../../spec/statuses.js';
import type { Exchange } from '../evidence.js';
import {
  DEDUPE_MEMORY_WAIT_MS,
  DEFAULT_CALLBACK_WAIT_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  EXPECT_CONTINUE_WAIT_MS,
  MAX_429_RETRIES,
  RATE_LIMITED_BUDGET_MS,
} from '../tolerances.js';
import type { CallbackHarness } from './callbacks.js';
import { postExpectingContinue } from './expect-continue.js';
import { buildRequest, type SigningParty } from './build.js';
import type { RequestRecipe, SentRequest } from './recipe.js';

export interface TargetConfig extends SigningParty {
  /** B: the events URL. A: the provider endpoint; jobs go to `{url}/contact-jobs` (§4.1). */
  url: string;
  /** A: the branch_code put in every job; B: the branch_code of appointment events (a catalog code). */
  branchCode?: string;
  /** B: a lead_id the platform knows, used by every check except the unknown-lead one (§6.3). */
  leadId?: string;
  /** A: the provider code expected on callbacks. */
  providerCode?: string;
  timeoutMs: number;
  dispatcher: Dispatcher;
  /** A dispatcher bound to another local address (for the unregistered-origin check). */
  dispatcherFor?: (localAddress: string) => Dispatcher;
  sourceAddress?: string;
  /** Longest `Retry-After` honoured; a 429 asking for longer is not waited out (its check is not judged). */
  maxRetryAfterMs?: number;
  /** The run's waiting on 429s, all requests together (default RUN_RATE_LIMITED_BUDGET_MS). */
  rateLimitedRunBudgetMs?: number;
  /** The TLS and proxy options of the dispatcher, for the one kind of request it cannot send (`Expect: 100-continue`). */
  client?: { ca?: Buffer; insecure?: boolean; proxy?: string };
}

export interface ClockReading {
  /** The target's clock less cai's, when its `Date` gave one cai takes as a clock: null when it did not. */
  offsetSeconds: number | null;
  dateHeader: string | null;
  /** Why a `Date` that was read is not taken as the target's clock (the offset it gave is past any clock's). */
  note?: string;
}

/**
 * The largest offset from cai's clock that a target's `Date` is taken as (a day). The window is ±300 s (§5.5): a
 * clock a few minutes or hours off is a real clock, measured so that the probes land where they mean to on it; a
 * `Date` a day or more off (the year 1970, 275760) is no clock cai can time a request by. Its requests are then timed
 * by cai's own clock, as for a target that sends no `Date`, and B-CLOCK-001 reports the `Date` as unusable: a
 * timestamp cai made from it (13 digits, decades old) would be refused by a correct receiver, and the checks would
 * blame it for cai's own mistiming.
 */
export const MAX_ADOPTED_CLOCK_OFFSET_SECONDS = 86_400;

/**
 * The longest a run waits on 429s, all requests together (their waits counted once where they overlap). Each request
 * honours 429s for up to RATE_LIMITED_BUDGET_MS (src/conformance/tolerances.ts), and a run sends hundreds: a receiver
 * that keeps answering 429 would keep the run going for hours. Past this, no 429 is waited out: the request is not
 * sent again, and the check it belongs to is not judged (the receiver kept answering 429).
 */
export const RUN_RATE_LIMITED_BUDGET_MS = 5 * 60_000;

/** Why a 429 was the last answer to a request cai meant to send again (its check is then not judged), by exchange. */
const UNHONOURED_429 = new WeakMap<Exchange, string>();

/** Why the answer is a 429 that was not waited out, when it is: the check cannot judge the request it stood for. */
export function unhonoured429(exchange: Exchange): string | undefined {
  return UNHONOURED_429.get(exchange);
}

/** A receiver's Retry-After as a report shows it: its start. */
const RETRY_AFTER_SHOWN = 40;
const shownRetryAfter = (value: string) =>
  value.length > RETRY_AFTER_SHOWN ? `${value.slice(0, RETRY_AFTER_SHOWN)}…` : value;

/** `Retry-After` that is neither a number of seconds nor an HTTP-date (§7, RFC 9110 §10.2.3), in words; else undefined. */
export function malformedRetryAfter(value: string | undefined): string | undefined {
  if (isWellFormedRetryAfter(value)) return undefined;
  return value === undefined
    ? 'a 429 without Retry-After (§7: retry after the number in it)'
    : `a 429 with Retry-After: ${shownRetryAfter(value)}, neither a number of seconds nor an HTTP-date (§7)`;
}

/** Waits `ms`, or less when `signal` stops the run (at once if it already has): a stopped run waits for nothing. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

export class Session {
  readonly runId = randomBytes(4).toString('hex');
  clock: ClockReading = { offsetSeconds: null, dateHeader: null };
  /** The status of the unsigned probe sent before the checks (404/405 hint at a wrong URL). */
  probeStatus?: number;
  /** Interface A: the callback listener, where the provider's events for each job arrive (none without a callback secret). */
  callback?: CallbackHarness;
  /** How long the callback checks wait for the provider's events of one job (--callback-wait). */
  callbackWaitMs = DEFAULT_CALLBACK_WAIT_MS;
  /** How long after an event_id is accepted its repeat is sent, to see that it is still remembered (§6.1). */
  dedupeMemoryWaitMs = DEDUPE_MEMORY_WAIT_MS;
  /**
   * The run's first document, sent before any check (the preflight), when it was accepted: the memory check, run
   * last, repeats it, as late as the run allows.
   */
  firstAccepted?: { body: Buffer; exchange: Exchange; atMs: number };
  private counter = 0;
  /** The run's waits on 429s as one span: the time spent (overlaps once), until when the last wait runs, and spent out. */
  private readonly rateLimited = { spentMs: 0, untilMs: 0, spent: false };
  private readonly shared = new Map<string, Promise<unknown>>();
  private readonly abort = new AbortController();

  constructor(readonly config: TargetConfig) {
    // Every request in flight listens on this one signal (Ctrl-C); dozens at once is expected, not a leak.
    setMaxListeners(0, this.abort.signal);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  stop(): void {
    this.abort.abort();
  }

  /** Where requests go: the events URL (B), or `{provider_endpoint}/contact-jobs` (A, §4.1). */
  get postUrl(): string {
    return endpointUrl(this.config.interface, this.config.url);
  }

  /** A fresh, unique event_id naming the run and the check, so a receiver's log shows which check sent it. */
  freshEventId(checkId: string): string {
    this.counter += 1;
    return conformanceEventId(this.runId, checkId, this.counter);
  }

  /** Now on the target's clock, in unix seconds (our clock plus the measured offset). */
  targetNowSeconds(): number {
    return Math.floor(Date.now() / 1000) + (this.clock.offsetSeconds ?? 0);
  }

  /** Memoised work shared by several checks (e.g. one callback job whose events several checks judge). */
  once<T>(key: string, factory: () => Promise<T>): Promise<T> {
    if (!this.shared.has(key)) this.shared.set(key, factory());
    return this.shared.get(key) as Promise<T>;
  }

  /** Builds the exact request of a recipe, signed now (./build.ts). */
  build(recipe: RequestRecipe): SentRequest {
    return buildRequest(this.config, this.postUrl, recipe, this.targetNowSeconds());
  }

  /**
   * Sends a recipe once, honouring 429 (§7: "Retry after the number in the Retry-After header"): the request is
   * rebuilt and re-signed after the wait, and the 429 is never the check's answer.
   */
  async send(recipe: RequestRecipe): Promise<Exchange> {
    // The one attempt loop of every sender (src/http/retry.ts), with a decision of its own: only a 429 is waited
    // out and sent again; any other answer, a 5xx or a cut connection included, is the check's evidence. The 429s
    // waited out are kept on the exchange (their Retry-After, §7, is judged like any answer).
    const honoured: { retryAfter?: string }[] = [];
    let unhonoured: string | undefined;
    const end = await retryLoop<Exchange>({
      policy: DEFAULT_RETRY_POLICY,
      attempt: async (number) => {
        if (recipe.atSecondFraction !== undefined)
          await pause(untilSecondFraction(recipe.atSecondFraction, Date.now()), this.signal);
        const exchange = await this.sendOnce(this.build(recipe), recipe);
        exchange.rateLimitedRetries = number - 1;
        return exchange;
      },
      outcomeOf: (exchange) =>
        exchange.status === undefined
          ? { kind: 'error', code: 'connection' }
          : { kind: 'response', status: exchange.status, retryAfter: exchange.headers[Headers.retryAfter] },
      decide: ({ outcome, attempts, elapsedMs }) => {
        if (outcome.kind !== 'response' || classifyStatus(outcome.status) !== 'rate-limited' || recipe.raw429)
          return { retry: false, reason: 'the answer is the evidence' };
        const stop = this.why429NotWaited(outcome.retryAfter, attempts, elapsedMs);
        if (stop !== undefined) {
          const malformed = malformedRetryAfter(outcome.retryAfter);
          unhonoured = malformed !== undefined ? `${stop}; ${malformed}` : stop;
          return { retry: false, reason: stop };
        }
        honoured.push(outcome.retryAfter !== undefined ? { retryAfter: outcome.retryAfter } : {});
        const delayMs = retryAfterMs(outcome.retryAfter, attempts, this.config.maxRetryAfterMs);
        return { retry: true, delayMs, basis: 'retry-after', reason: 'rate limited (§7)' };
      },
      // A wait ends early when the run is interrupted; the request is then sent once more, to be judged or cut short.
      sleep: (ms) => pause(ms, this.signal),
    });
    const last = end.last as Exchange;
    if (honoured.length > 0) last.honoured429 = honoured.slice(0, last.rateLimitedRetries);
    if (unhonoured !== undefined && last.status !== undefined && classifyStatus(last.status) === 'rate-limited')
      UNHONOURED_429.set(last, unhonoured);
    return last;
  }

  /**
   * Why a 429 is not waited out, when it is not: a Retry-After longer than cai waits (its cap: a wait cut short would
   * only meet the 429 again), the request's own bounds (MAX_429_RETRIES, RATE_LIMITED_BUDGET_MS), or the run's
   * (RUN_RATE_LIMITED_BUDGET_MS). Else the wait is taken from the run's budget.
   */
  private why429NotWaited(retryAfter: string | undefined, attempts: number, elapsedMs: number): string | undefined {
    const capMs = this.config.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    const askedMs = parseRetryAfter(retryAfter, Date.now());
    if (askedMs !== undefined && askedMs > capMs)
      return `the receiver answered 429 with Retry-After: ${shownRetryAfter(retryAfter ?? '')}, longer than the ${capMs / 1000} s cai waits`;
    const delayMs = retryAfterMs(retryAfter, attempts, capMs);
    if (attempts > MAX_429_RETRIES || elapsedMs + delayMs > RATE_LIMITED_BUDGET_MS)
      return `the receiver kept answering 429 (${attempts} times to this request, for ${Math.round(elapsedMs / 1000)} s)`;
    if (!this.takeRateLimitedWait(delayMs, Date.now()))
      return `the receiver kept answering 429: the run's ${formatDuration(this.rateLimitedRunBudgetMs)} of waiting on 429s is spent, and no request is sent again after one`;
    return undefined;
  }

  private get rateLimitedRunBudgetMs(): number {
    return this.config.rateLimitedRunBudgetMs ?? RUN_RATE_LIMITED_BUDGET_MS;
  }

  /** Takes a wait of `ms` from now out of the run's budget for 429s, when it fits; once one does not, none does. */
  private takeRateLimitedWait(ms: number, nowMs: number): boolean {
    const budget = this.rateLimited;
    const added = Math.max(0, nowMs + ms - Math.max(nowMs, budget.untilMs));
    if (budget.spent || budget.spentMs + added > this.rateLimitedRunBudgetMs) {
      budget.spent = true;
      return false;
    }
    budget.spentMs += added;
    budget.untilMs = Math.max(budget.untilMs, nowMs + ms);
    return true;
  }

  private async sendOnce(request: SentRequest, recipe: RequestRecipe): Promise<Exchange> {
    const dispatcher =
      recipe.sourceAddress && this.config.dispatcherFor
        ? this.config.dispatcherFor(recipe.sourceAddress)
        : this.config.dispatcher;
    const started = performance.now();
    try {
      const response = recipe.expectContinue
        ? await this.sendExpectingContinue(request)
        : await postOnce({
            url: request.url,
            // undici sends a header given as a list on one line per value.
            headers: { ...request.headers, ...request.lines } as Record<string, string>,
            // undici frames a body it cannot measure in advance with chunked transfer encoding, without Content-Length.
            body: recipe.chunked ? (inChunks(request.body, recipe.chunkCut) as unknown as Uint8Array) : request.body,
            timeoutMs: this.config.timeoutMs,
            dispatcher,
            signal: this.signal,
          });
      // The body is at most NETWORK_CAPS.responseBodyBytes (postOnce cuts it, src/bounds.ts); a cut is kept in the exchange.
      const truncated = response.bodyTruncated ? { bodyTruncated: true } : {};
      return {
        request,
        status: response.status,
        headers: response.headers,
        body: response.body,
        ...truncated,
        latencyMs: response.latencyMs,
        answeredAtMs: Date.now(),
        rateLimitedRetries: 0,
      };
    } catch (error) {
      const code = error instanceof CaiError ? error.code : 'network';
      return {
        request,
        headers: {},
        body: Buffer.alloc(0),
        latencyMs: performance.now() - started,
        answeredAtMs: Date.now(),
        error: { code, message: errorMessage(error) },
        rateLimitedRetries: 0,
      };
    }
  }

  /** `Expect: 100-continue` (RFC 9110 §10.1.1), through node:http: undici does not send it. Never through a proxy. */
  private async sendExpectingContinue(request: SentRequest): ReturnType<typeof postExpectingContinue> {
    const client = this.config.client ?? {};
    if (client.proxy)
      throw new CaiError('Expect: 100-continue is not sent through a proxy (a run without one sends it)', {
        code: 'not_sent',
      });
    return postExpectingContinue({
      url: request.url,
      headers: request.headers,
      body: request.body,
      timeoutMs: this.config.timeoutMs,
      signal: this.signal,
      continueWaitMs: EXPECT_CONTINUE_WAIT_MS,
      ...(client.ca ? { ca: client.ca } : {}),
      ...(client.insecure ? { insecure: true } : {}),
    });
  }
}

/**
 * The body in two pieces, so it goes out chunked: cut inside a character of several bytes where the body has one
 * (a receiver that decodes each piece it reads on its own breaks that character, and the signature, §5.2), a moment
 * apart so that they reach it as two reads.
 */
async function* inChunks(body: Buffer, where?: 'between-characters'): AsyncGenerator<Buffer> {
  const cut = where === 'between-characters' ? cutBetweenCharacters(body) : cutInsideCharacter(body);
  yield body.subarray(0, cut);
  await new Promise((resolve) => setTimeout(resolve, 2));
  yield body.subarray(cut);
}

/** The place nearest the middle of the body where a character starts (no UTF-8 continuation byte there). */
export function cutBetweenCharacters(body: Buffer): number {
  let place = Math.max(1, Math.floor(body.length / 2));
  while (place < body.length - 1 && ((body[place] as number) & 0xc0) === 0x80) place += 1;
  return place;
}

/** The place of the UTF-8 continuation byte (10xxxxxx) nearest the middle of the body, or the middle. */
export function cutInsideCharacter(body: Buffer): number {
  const half = Math.floor(body.length / 2);
  for (let distance = 0; distance <= half + 1; distance += 1) {
    for (const place of [half - distance, half + distance]) {
      if (place > 0 && place < body.length && ((body[place] as number) & 0xc0) === 0x80) return place;
    }
  }
  return Math.max(1, half);
}

/** Milliseconds from `nowMs` to the next moment at `fraction` of a second of cai's clock. */
export function untilSecondFraction(fraction: number, nowMs: number): number {
  return (Math.round(fraction * 1000) - (nowMs % 1000) + 1000) % 1000;
}

/**
 * §7: wait what `Retry-After` says (capped); without a usable one, a short growing back-off. A `Retry-After` of 0
 * (or less than the floor) is legal: it is waited for at least a floor that doubles with each honoured 429, so a
 * receiver that keeps saying "now" while its cap refills does not run a check out of retries.
 */
export function retryAfterMs(value: string | undefined, attempt: number, capMs = DEFAULT_MAX_RETRY_AFTER_MS): number {
  const fallback = Math.min(250 * 2 ** (attempt - 1), 4000);
  const ms = parseRetryAfter(value, Date.now());
  if (ms === undefined) return fallback;
  const floor = Math.min(50 * 2 ** (attempt - 1), 2000);
  return Math.min(Math.max(ms, floor), capMs);
}

/** Reads the target's clock from a response's `Date` header (1 s resolution) against the send mid-point. */
export function clockFromResponse(
  dateHeader: string | undefined,
  sentAtMs: number,
  receivedAtMs: number,
): ClockReading {
  if (!dateHeader) return { offsetSeconds: null, dateHeader: null };
  const parsed = Date.parse(dateHeader);
  if (Number.isNaN(parsed)) return { offsetSeconds: null, dateHeader };
  // The target wrote the header (truncated to its second) some time between the send and the answer: any offset in
  // that span fits the reading. A clock that agrees with cai's fits every reading, and a reading across a second's
  // turn fits 0 and 1 alike; rounding the mid-point alone would then put the target a second ahead half the time.
  if (parsed - receivedAtMs <= 0 && 0 < parsed + 1000 - sentAtMs) return { offsetSeconds: 0, dateHeader };
  const midpoint = (sentAtMs + receivedAtMs) / 2;
  const offsetSeconds = Math.round((parsed + 500 - midpoint) / 1000);
  if (Math.abs(offsetSeconds) <= MAX_ADOPTED_CLOCK_OFFSET_SECONDS) return { offsetSeconds, dateHeader };
  const note = `the target's Date puts its clock ${offsetSeconds > 0 ? '+' : ''}${offsetSeconds} s from cai's, more than ${MAX_ADOPTED_CLOCK_OFFSET_SECONDS} s: not taken as its clock; requests are timed by cai's`;
  return { offsetSeconds: null, dateHeader, note };
}

/**
 * `cai-conf-<run>-<check id>-<n>`, its number at a fixed width: an id made near one (a character more or less, a
 * leading zero: what the stateful phase sends to find a receiver that conflates them) is then never another fresh
 * id of the run, which another conversation may have stored.
 */
export function conformanceEventId(runId: string, checkId: string, counter: number): string {
  return `cai-conf-${runId}-${checkId.toLowerCase()}-${String(counter).padStart(COUNTER_DIGITS, '0')}`;
}

const COUNTER_DIGITS = 7;
