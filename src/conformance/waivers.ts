/**
 * Waivers: `[{"id": "B-SIZE-001", "reason": "…", "expires": "2026-12-31"}]`. A waived failure is shown but does
 * not fail the run; an expired waiver is not applied and is reported, as is one whose check now passes.
 */
import { describeJsonFailure } from '../spec/json-syntax.js';

export interface Waiver {
  id: string;
  reason: string;
  /** ISO date or date-time; absent = no expiry. */
  expires?: string;
  expiresAt?: number;
}

export type WaiverParse = { ok: true; waivers: Waiver[] } | { ok: false; message: string };

/** Parses and checks a waiver file's JSON text; every problem names the entry. */
export function parseWaivers(text: string): WaiverParse {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, message: `not valid JSON (${describeJsonFailure(text)})` };
  }
  if (!Array.isArray(value)) return { ok: false, message: 'expected a JSON array of {"id", "reason", "expires"}' };
  const waivers: Waiver[] = [];
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { ok: false, message: `entry ${index + 1} is not an object` };
    const record = entry as Record<string, unknown>;
    if (typeof record.id !== 'string' || record.id === '') return { ok: false, message: `entry ${index + 1}: "id" must be a check id such as "B-SIZE-001"` };
    if (typeof record.reason !== 'string' || record.reason.trim() === '') return { ok: false, message: `entry ${index + 1} (${record.id}): "reason" is required` };
    let expiresAt: number | undefined;
    if (record.expires !== undefined) {
      if (typeof record.expires !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(record.expires) || Number.isNaN(Date.parse(record.expires))) {
        return { ok: false, message: `entry ${index + 1} (${record.id}): "expires" must be an ISO date such as "2026-12-31"` };
      }
      // A bare date waives through the end of that day (UTC).
      expiresAt = /^\d{4}-\d{2}-\d{2}$/.test(record.expires) ? Date.parse(`${record.expires}T23:59:59.999Z`) : Date.parse(record.expires);
    }
    waivers.push({ id: record.id.toUpperCase(), reason: record.reason, ...(record.expires !== undefined ? { expires: record.expires as string } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) });
  }
  return { ok: true, waivers };
}

export function isExpired(waiver: Waiver, now: number): boolean {
  return waiver.expiresAt !== undefined && waiver.expiresAt < now;
}
