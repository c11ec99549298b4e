/**
 * A failing check's evidence as report data: the request and the answer with their headers, and bodies that a
 * report can carry (text cut after a limit, binary summarised). The reports render it; the full body is the
 * reproduction's body file.
 */
import { createHash } from 'node:crypto';
import type { BodyRecord, Exchange, ExchangeRecord } from './types.js';

/** Bodies longer than this are cut in reports (the oversize checks send more than a mebibyte). */
export const BODY_TEXT_LIMIT = 16 * 1024;
const HEX_PREFIX_BYTES = 32;

export function recordBody(body: Buffer, limit = BODY_TEXT_LIMIT): BodyRecord {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    const text = decoder.decode(body);
    return text.length > limit ? { bytes: body.length, text: text.slice(0, limit), truncated: true } : { bytes: body.length, text };
  } catch {
    return { bytes: body.length, sha256: createHash('sha256').update(body).digest('hex'), hexPrefix: body.subarray(0, HEX_PREFIX_BYTES).toString('hex') };
  }
}

export function recordExchange(exchange: Exchange): ExchangeRecord {
  return {
    request: { method: 'POST', url: exchange.request.url, headers: { ...exchange.request.headers }, body: recordBody(exchange.request.body) },
    ...(exchange.status !== undefined
      ? { response: { status: exchange.status, headers: { ...exchange.headers }, body: recordBody(exchange.body), ...(exchange.bodyTruncated ? { bodyTruncated: true } : {}) } }
      : {}),
    ...(exchange.error ? { error: { ...exchange.error } } : {}),
    latencyMs: Math.round(exchange.latencyMs),
  };
}
