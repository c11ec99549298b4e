/**
 * Attempts of a sender as cai's listener records them, built by hand for the judges' tests: a signed document
 * arriving `atMs` after its stage started (the monotonic clock at 1 000 ms then), answered 5 ms later as the scenario
 * scripts it, with the Retry-After the recorder would have written for a 429.
 */
import { bodyDigest, type Attempt } from '../../src/conformance/evidence.js';
import { retryAfterOf } from '../../src/conformance/listen/recorder.js';
import type { ScriptedAnswer } from '../../src/conformance/listen/scenarios.js';
import { sign } from '../../src/signing/sign.js';
import { deliveryKeyOf } from '../../src/spec/model/sender.js';

export interface RecordedAttempt {
  stage: string;
  /** Its place among the stage's attempts (1-based). */
  number: number;
  /** The stage's start on the wall clock (ms since the epoch). */
  startedAt: number;
  atMs: number;
  doc: object;
  answer: ScriptedAnswer;
  secret: string;
  path: string;
  /** The identity header and its value (X-CAI-Provider: acme by default). */
  identity?: [header: string, value: string];
  /** X-CAI-Timestamp; by default the arrival's second. */
  timestamp?: string;
}

export function recordedAttempt(attempt: RecordedAttempt): Attempt {
  const body = Buffer.from(JSON.stringify(attempt.doc));
  const arrivedAt = attempt.startedAt + attempt.atMs;
  const timestamp = attempt.timestamp ?? String(Math.floor(arrivedAt / 1000));
  const { answer } = attempt;
  const retryAfter =
    answer.kind === 'error' && answer.retryAfter
      ? retryAfterOf(answer.retryAfter, arrivedAt + 5, 1_000 + attempt.atMs + 5)
      : undefined;
  const [identityHeader, identity] = attempt.identity ?? ['x-cai-provider', 'acme'];
  return {
    stage: attempt.stage,
    number: attempt.number,
    key: deliveryKeyOf({ body, cut: false }, attempt.number, bodyDigest),
    arrivedAt,
    arrivedMono: 1_000 + attempt.atMs,
    answeredMono: 1_000 + attempt.atMs + 5,
    method: 'POST',
    path: attempt.path,
    httpVersion: '1.1',
    headers: {
      'content-type': 'application/json',
      [identityHeader]: identity,
      'x-cai-timestamp': timestamp,
      'x-cai-signature': sign(attempt.secret, timestamp, body),
    },
    rawHeaders: [],
    body,
    bodyBytes: body.length,
    cut: false,
    answer,
    ...(retryAfter ? { retryAfter } : {}),
    late: false,
  };
}
