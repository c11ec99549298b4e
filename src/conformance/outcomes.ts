/**
 * What a check returns (passed, failed with its evidence, skipped with a reason), and the short description of
 * an answer that the report shows as "actual".
 */
import type { CheckOutcome, Exchange } from './types.js';

export function pass(expected: string, actual: string, notes?: string[]): CheckOutcome {
  return { verdict: 'passed', expected, actual, notes };
}

export function fail(expected: string, actual: string, evidence?: Exchange, notes?: string[]): CheckOutcome {
  return { verdict: 'failed', expected, actual, evidence, notes };
}

export function skip(reason: string): CheckOutcome {
  return { verdict: 'skipped', expected: '-', actual: reason };
}

const EXCERPT_LENGTH = 160;

/** `401 {"error":"…"}`, or `no response (timeout: …)`. */
export function describeAnswer(exchange: Exchange): string {
  if (exchange.status === undefined) return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? 'unknown'})`;
  const text = exchange.body.toString('utf8').replace(/\s+/g, ' ').trim();
  const excerpt = text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  return excerpt === '' ? `${exchange.status} (empty body)` : `${exchange.status} ${excerpt}`;
}

/** The body as JSON, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
