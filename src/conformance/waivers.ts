/**
 * Waivers: `[{"id": "B-SIZE-001", "reason": "…", "expires": "2026-12-31"}]`. A waived failure is shown but does
 * not fail the run; an expired waiver is not applied and is reported, as is one whose check now passes.
 */
import { asObject } from '../spec/json.js';
import { describeJsonFailure } from '../spec/json-syntax.js';
import type { CheckResult, WaiverNotice } from './types.js';

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
    const record = asObject(entry);
    if (!record) return { ok: false, message: `entry ${index + 1} is not an object` };
    if (typeof record.id !== 'string' || record.id === '')
      return { ok: false, message: `entry ${index + 1}: "id" must be a check id such as "B-SIZE-001"` };
    if (typeof record.reason !== 'string' || record.reason.trim() === '')
      return { ok: false, message: `entry ${index + 1} (${record.id}): "reason" is required` };
    let expiresAt: number | undefined;
    if (record.expires !== undefined) {
      if (
        typeof record.expires !== 'string' ||
        !isCalendarDate(/^\d{4}-\d{2}-\d{2}(?=T|$)/.exec(record.expires)?.[0]) ||
        Number.isNaN(Date.parse(record.expires))
      ) {
        return {
          ok: false,
          message: `entry ${index + 1} (${record.id}): "expires" must be an ISO date such as "2026-12-31"`,
        };
      }
      // A bare date waives through the end of that day (UTC).
      expiresAt = /^\d{4}-\d{2}-\d{2}$/.test(record.expires)
        ? Date.parse(`${record.expires}T23:59:59.999Z`)
        : Date.parse(record.expires);
    }
    // Two entries for one check would leave which reason and expiry apply to the order of the file.
    const id = record.id.toUpperCase();
    const earlier = waivers.findIndex((waiver) => waiver.id === id);
    if (earlier !== -1)
      return {
        ok: false,
        message: `entry ${index + 1} (${record.id}): entry ${earlier + 1} waives that check already`,
      };
    waivers.push({
      id,
      reason: record.reason,
      ...(record.expires !== undefined ? { expires: record.expires as string } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    });
  }
  return { ok: true, waivers };
}

/** Whether `date` (YYYY-MM-DD) is a day of the calendar: Date.parse rolls 2027-02-30 over to 2 March instead. */
function isCalendarDate(date: string | undefined): boolean {
  const day = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(day) && new Date(day).toISOString().startsWith(`${date}T`);
}

export function isExpired(waiver: Waiver, now: number): boolean {
  return waiver.expiresAt !== undefined && waiver.expiresAt < now;
}

/**
 * What the report says about the waivers themselves: expired ones, ones whose check now passes, and ones naming
 * no check of the run (`planned`: the ids of the run's plan, run or skipped).
 */
export function waiverReport(
  waivers: readonly Waiver[],
  results: readonly CheckResult[],
  planned: readonly string[],
  now: number,
): WaiverNotice[] {
  const notices: WaiverNotice[] = [];
  const named = (result: CheckResult, id: string) =>
    [result.id, ...(result.aliases ?? [])].some((name) => name.toLowerCase() === id.toLowerCase());
  for (const waiver of waivers) {
    const notice = (kind: WaiverNotice['kind'], message: string) => notices.push({ id: waiver.id, kind, message });
    const result = results.find((entry) => named(entry, waiver.id));
    const known = planned.some((name) => name.toLowerCase() === waiver.id.toLowerCase());
    if (!result) {
      if (!known) notice('unknown-check', `waiver for ${waiver.id}: no such check in this run`);
      continue;
    }
    if (isExpired(waiver, now) && (result.verdict === 'failed' || result.verdict === 'warning'))
      notice('expired', `waiver for ${waiver.id} expired on ${waiver.expires}; the failure counts again`);
    else if (isExpired(waiver, now))
      notice('expired', `waiver for ${waiver.id} expired on ${waiver.expires}; remove it`);
    else if (result.verdict === 'passed')
      notice('now-passing', `waiver for ${waiver.id} is no longer needed: the check passes; remove it`);
  }
  return notices;
}
