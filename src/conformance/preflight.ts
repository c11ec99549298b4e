/**
 * Before a receiver run's checks: reachability and the target's clock (§5.5), then one valid, correctly signed
 * request (§4.1, §4.2) that stops the run when the target is plainly not the endpoint, and is diagnosed when it
 * is refused.
 */
import { postOnce } from '../http/client.js';
import { notAnEndpoint, notTheEndpoint } from '../http/not-an-endpoint.js';
import { CaiError, codedError, deliveryError, errorMessage } from '../errors.js';
import { Headers } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { classifyStatus } from '../spec/statuses.js';
import { EVENTS_RECEIVER, JOBS_RECEIVER } from './checks/receiver/receivers.js';
import { describeAnswer } from './evidence.js';
import { compact, NON_ASCII_TEXT } from './probe/bodies.js';
import { ProbeScope } from './probe/scope.js';
import { isAccepted } from './probe/verdict.js';
import { clockFromResponse, type Session } from './probe/session.js';

/** The request every check builds on: a valid, correctly signed event (B) or contact job (A), with a fresh id. */
const PREFLIGHT = { id: 'PREFLIGHT' } as const;

/**
 * One valid, correctly signed request before the checks (§4.1, §4.2). A target that is plainly not the endpoint
 * (404, 405, 501, a refused connection, an HTML page) would fail nearly every check the same way: the run stops
 * here with one error naming what came back (exit 3). Any other answer is reported; a refusal is diagnosed
 * (./diagnose). Its free text is not ASCII: a receiver that verifies over an ASCII-escaping re-serialisation (as
 * Python's json.dumps writes) refuses it, and is diagnosed here rather than failing every check.
 */
export async function sendPreflight(session: Session) {
  const spec = interfaceSpec(session.config.interface);
  const receiver = spec.document === 'event' ? EVENTS_RECEIVER : JOBS_RECEIVER;
  const scope = new ProbeScope(session, PREFLIGHT);
  const body = compact({ ...receiver.document(scope), [receiver.textField]: NON_ASCII_TEXT });
  const exchange = await scope.send({ body });
  if (session.signal.aborted) return undefined;
  if (isAccepted(exchange)) session.firstAccepted = { body, exchange, atMs: Date.now() };
  const expected = spec.document === 'event' ? '202 (§4.2, §7)' : '202 with the acknowledgment of §2.3 (§4.1)';
  const wrong = notTheEndpoint(exchange);
  if (wrong !== undefined) {
    const { message, hint } = notAnEndpoint(
      spec.id,
      session.postUrl,
      wrong,
      `a valid, correctly signed ${spec.documentName}`,
    );
    throw deliveryError('not_an_endpoint', message, hint);
  }
  const status = exchange.status !== undefined ? { status: exchange.status } : {};
  return { report: { expected, actual: describeAnswer(exchange), ...status }, body, ...status };
}

/** What came back, and the body sent: a diagnosis sends it again, signed otherwise. */
export type Preflight = NonNullable<Awaited<ReturnType<typeof sendPreflight>>>;

/**
 * One unsigned POST of `{}` to the target, whose answer (any) carries its `Date`. On a connection of its own, closed
 * after it: a receiver that refuses it from its headers and leaves its body unread would read the next request on
 * that connection (the preflight) from those two bytes, and answer it as no endpoint would.
 */
function postEmptyObject(session: Session) {
  return postOnce({
    closeConnection: true,
    url: session.postUrl,
    headers: { [Headers.contentType]: 'application/json' },
    body: Buffer.from('{}'),
    timeoutMs: session.config.timeoutMs,
    dispatcher: session.config.dispatcher,
    signal: session.signal,
  });
}

/**
 * A round trip over which the `Date` header (whole seconds) may have been written up to a second from cai's mid-point:
 * the clock is read again, and the reading of the shortest round trip kept. A reading a busy machine drew out put the
 * target a second ahead, and the checks of the window's edge sent a second past it.
 */
const CLOCK_ROUND_TRIP_MS = 200;
const CLOCK_READINGS = 3;

async function readClockAgain(
  session: Session,
  first: Session['clock'],
  firstTripMs: number,
): Promise<Session['clock']> {
  let best = { clock: first, tripMs: firstTripMs };
  for (
    let reading = 1;
    reading < CLOCK_READINGS && best.tripMs > CLOCK_ROUND_TRIP_MS && !session.signal.aborted;
    reading += 1
  ) {
    const sentAt = Date.now();
    try {
      const response = await postEmptyObject(session);
      const tripMs = Date.now() - sentAt;
      if (tripMs < best.tripMs && response.headers.date !== undefined)
        best = { clock: clockFromResponse(response.headers.date, sentAt, sentAt + tripMs), tripMs };
    } catch {
      break;
    }
  }
  return best.clock;
}

/**
 * Reachability and clock (§5.5): one unsigned POST of `{}` — any answer will do — reads the target's `Date`.
 * No answer at all is "target unreachable" (exit 3), before any check runs; so is an answer that is none (not
 * HTTP/1.1, or cut off mid-body), in its own words.
 */
export async function measureClock(session: Session): Promise<void> {
  const sentAt = Date.now();
  try {
    const response = await postEmptyObject(session);
    const receivedAt = Date.now();
    session.clock = clockFromResponse(response.headers.date, sentAt, receivedAt);
    session.probeStatus = response.status;
    if (receivedAt - sentAt > CLOCK_ROUND_TRIP_MS && response.headers.date !== undefined)
      session.clock = await readClockAgain(session, session.clock, receivedAt - sentAt);
    if (classifyStatus(response.status) === 'redirect') {
      // Senders do not follow redirects (neither do cai's): every check would see the 3xx.
      const location = response.headers.location ?? '(no Location)';
      // A delivery failure (exit 3), as a redirect is for every command that sends.
      throw codedError('delivery', 'target_redirects', `the target answers ${response.status} → ${location}`, {
        location,
      });
    }
  } catch (error) {
    if (error instanceof CaiError && (error.kind === 'usage' || error.code === 'target_redirects')) throw error;
    // Interrupted during the probe: no clock, and every check is reported as not run.
    if (session.signal.aborted) return;
    // An answer that is not HTTP/1.1, or one cut off mid-body, came from the target: it says so itself (src/http/client.ts).
    if (error instanceof CaiError && error.data.answered !== undefined) throw error;
    if (error instanceof CaiError) {
      // No answer at all is worded as the receiver's address under test; any other cause keeps its own hint.
      const unanswered = error.code === 'unreachable' || error.code === 'connection';
      throw new CaiError(`target unreachable: ${error.message}`, {
        code: error.code === 'aborted' ? 'aborted' : 'unreachable',
        kind: 'delivery',
        data: error.data,
        cause: error,
        ...(unanswered ? {} : { hint: error.hint }),
      });
    }
    throw codedError('delivery', 'unreachable', `target unreachable: ${errorMessage(error)}`, {}, error);
  }
}
