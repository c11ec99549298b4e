import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../errors.js';
import { errorReply, sendReply, sleep, type Reply } from '../http/server.js';
import { LogWriteError } from './log.js';
import type { MockRequestEntry } from './platform.js';

export interface ReceiverStep {
  /** `'B'` for the platform mock (events), `'A'` for the provider mock (jobs). */
  interface: 'A' | 'B';
  /** `event` or `job`, in the 503 message. */
  what: string;
  /** `cai mock platform` or `cai mock provider`, in the 500 message. */
  name: string;
  latencyMs?: number;
  now(): number;
  onRequest?: (entry: MockRequestEntry) => void;
}

/**
 * One request through a reference receiver: decide the reply, answer, report the entry. Shared by both mocks.
 * A log that cannot be written is 503 (not acknowledged, so the sender retries, §7); any other exception is a
 * bug in the mock and answers 500, never passing for a storage outage that senders would retry for 24 h.
 */
export async function receive(
  step: ReceiverStep,
  request: IncomingMessage,
  response: ServerResponse,
  decide: (request: IncomingMessage, entry: MockRequestEntry) => Promise<Reply>,
): Promise<void> {
  const entry: MockRequestEntry = { received_at: new Date(step.now()).toISOString(), interface: step.interface, status: 0, verdict: 'rejected' };
  let reply: Reply;
  try {
    reply = await decide(request, entry);
  } catch (error) {
    if (error instanceof LogWriteError) {
      entry.reason = 'log_unavailable';
      entry.message = error.message;
      reply = errorReply(503, 'log_unavailable', `the ${step.what} could not be stored; retry later`);
    } else {
      entry.reason = 'internal_error';
      entry.message = `a bug in the mock: ${errorMessage(error)}`;
      reply = errorReply(500, 'internal_error', `internal error in ${step.name}; please report it`);
    }
  }
  if (step.latencyMs) await sleep(step.latencyMs);
  entry.status = reply.status;
  sendReply(request, response, reply);
  step.onRequest?.(entry);
}

/**
 * The request body as JSON, or undefined when it is not UTF-8 (§2) or not JSON. Checked with isUtf8 first:
 * toString would quietly turn bad bytes into U+FFFD and the mock would store changed text.
 */
export function parseJsonBody(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (!isUtf8(body)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}
