/**
 * Valid, realistic documents (§2): fresh `event_id`s, current times with an explicit offset, plausible
 * E.164 numbers from ranges reserved for fiction (Ofcom 07700 900xxx, NANP 555-01xx), and names.
 */
import { MAX_WALK_DEPTH } from '../bounds.js';
import { jsonNestingDepth } from './json-syntax.js';
import { randomInt, randomUUID } from 'node:crypto';
import { codedError, optionName, usageError } from '../errors.js';
import type { EventType } from './constants.js';
import { eventTypeSpec } from './event-types.js';

export interface SampleJobOptions {
  callbackUrl?: string;
  branchCode?: string;
  now?: Date;
}

export interface SampleEventOptions {
  leadId?: string;
  providerJobId?: string;
  branchCode?: string;
  now?: Date;
}

/** The sample job's callback_url when none is given: a placeholder (`.example` is reserved, RFC 2606). */
export const DEFAULT_CALLBACK_URL = 'https://platform.example/cai/events';
export const DEFAULT_BRANCH_CODE = 'BR-001';

/** Name, language and city of a sample contact. */
const PEOPLE = [
  ['Olivia Bennett', 'en-GB', 'Manchester'],
  ['Lucía Fernández', 'es-ES', 'Sevilla'],
  ['James Carter', 'en-US', 'Denver'],
  ['Ana Sousa', 'pt-PT', 'Porto'],
  ['Mehmet Yılmaz', 'tr', 'Bristol'],
  ['Chloé Martin', 'fr-FR', 'Lyon'],
] as const;

const SERVICES = ['Initial consultation', 'Follow-up visit', 'Dental check-up', 'Physiotherapy assessment'];

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)] as T;
const digits = (count: number): string => Array.from({ length: count }, () => String(randomInt(10))).join('');

/** A plausible E.164 number from ranges reserved for drama and examples, never a real subscriber. */
export function sampleE164(): string {
  return randomInt(2) === 0 ? `+447700900${digits(3)}` : `+1202555${String(100 + randomInt(100)).padStart(4, '0')}`;
}

/** ISO 8601 with an explicit `±hh:mm` offset (§2.1), in the local time zone of `date`'s host. */
export function formatDateTime(date: Date, offsetMinutes = -date.getTimezoneOffset()): string {
  const shifted = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return shifted.toISOString().replace(/\.\d{3}Z$/, offset);
}

const newId = (prefix: 'lead' | 'job'): string => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
const minutes = (date: Date, delta: number): Date => new Date(date.getTime() + delta * 60_000);

/** Host names reserved for documentation (RFC 2606, RFC 6761): no events endpoint can live there. */
const RESERVED_HOST = /(^|\.)(example|invalid)$|(^|\.)example\.(com|net|org)$/i;

/**
 * Whether a job's callback_url (§2.2: where the provider sends the events, §4.2) is a placeholder rather than a
 * real endpoint: the sample's default, or any address under a reserved name such as `platform.example`.
 */
export function isPlaceholderCallbackUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  if (url === DEFAULT_CALLBACK_URL) return true;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return RESERVED_HOST.test(host.replace(/\.$/, ''));
}

/** A contact job (§2.2) with every field, as the platform would send it. */
export function sampleJob(options: SampleJobOptions = {}): Record<string, unknown> {
  const now = options.now ?? new Date();
  const [name, language, city] = pick(PEOPLE);
  const email = `${name
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z ]/g, '')
    .replace(/ /g, '.')}@mail.example`;
  return {
    lead_id: newId('lead'),
    event_id: randomUUID(),
    branch_code: options.branchCode ?? DEFAULT_BRANCH_CODE,
    city,
    contact: { name, phone_e164: sampleE164(), email, language },
    origin: {
      channel: 'landing_form',
      source: 'https://www.clinic.example/book',
      campaign: 'autumn-checkups',
      captured_at: formatDateTime(minutes(now, -1)),
    },
    brief: { intent: 'book_appointment', notes: 'Asked for an appointment next week, mornings preferred.' },
    callback_url: options.callbackUrl ?? DEFAULT_CALLBACK_URL,
  };
}

/** An event (§2.4–2.7) of `type`, carrying every field its section lists. */
export function sampleEvent(type: EventType, options: SampleEventOptions = {}): Record<string, unknown> {
  const now = options.now ?? new Date();
  const envelope = { event: type, event_id: randomUUID(), lead_id: options.leadId ?? newId('lead') };
  return eventTypeSpec(type).sample({
    envelope,
    now,
    occurredAt: formatDateTime(now),
    branchCode: options.branchCode ?? DEFAULT_BRANCH_CODE,
    providerJobId: options.providerJobId ?? newId('job'),
    e164: sampleE164,
    service: () => pick(SERVICES),
    daysAhead: (days) => {
      const scheduled = new Date(now.getTime() + days * 86_400_000);
      scheduled.setHours(10, 30, 0, 0); // local time, the zone formatDateTime writes the offset of
      return formatDateTime(scheduled);
    },
  });
}

export interface Overrides {
  set?: [string, unknown][];
  unset?: string[];
}

/**
 * Applies `--set path=value` and `--unset path` (dotted paths) to a copy of `doc`. Throws a usage
 * CaiError when a path runs through something that is not an object, or `unset` names nothing.
 */
export function applyOverrides(doc: Record<string, unknown>, overrides: Overrides): Record<string, unknown> {
  refuseRepeatedPaths(overrides);
  const copy = structuredClone(doc);
  for (const [path, value] of overrides.set ?? []) {
    const { parent, key } = walk(copy, path, true);
    parent[key] = value;
  }
  for (const path of overrides.unset ?? []) {
    const { parent, key } = walk(copy, path, false);
    if (!Object.prototype.hasOwnProperty.call(parent, key)) {
      throw usageError(
        'bad_override',
        `${optionName('unset')} ${path}: the document has no field ${path}`,
        'check the path against the sample (cai sample … prints it)',
      );
    }
    delete parent[key];
  }
  return copy;
}

/**
 * A field set twice, or set and removed, is refused: only one of the two values could be sent, and keeping the last
 * would drop what the user gave without a word.
 */
function refuseRepeatedPaths(overrides: Overrides): void {
  const seen = new Map<string, string>();
  const given = [
    ...(overrides.set ?? []).map(([path]) => [path, optionName('set')] as const),
    ...(overrides.unset ?? []).map((path) => [path, optionName('unset')] as const),
  ];
  for (const [path, option] of given) {
    const earlier = seen.get(path);
    if (earlier !== undefined) {
      throw usageError(
        'bad_override',
        earlier === option
          ? `${option} ${path} is given twice; only one value can be sent`
          : `${path} is given to both ${earlier} and ${option}`,
        'give each field once',
      );
    }
    seen.set(path, option);
  }
}

function walk(
  doc: Record<string, unknown>,
  path: string,
  create: boolean,
): { parent: Record<string, unknown>; key: string } {
  const segments = path.split('.');
  if (path === '' || segments.some((segment) => segment === '')) {
    throw usageError(
      'bad_override',
      `bad field path ${JSON.stringify(path)}`,
      'use dotted field names, e.g. contact.phone_e164',
    );
  }
  if (segments.some((segment) => segment === '__proto__' || segment === 'constructor' || segment === 'prototype')) {
    throw usageError(
      'bad_override',
      `field path ${JSON.stringify(path)} names a reserved property`,
      'use the field names of the spec',
    );
  }
  let parent = doc;
  for (const [index, segment] of segments.slice(0, -1).entries()) {
    const next = parent[segment];
    if (next === undefined && create) {
      const created: Record<string, unknown> = {};
      parent[segment] = created;
      parent = created;
    } else if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      parent = next as Record<string, unknown>;
    } else {
      const at = segments.slice(0, index + 1).join('.');
      const message =
        next === undefined
          ? `the document has no field ${at}`
          : `${at} is not an object, so ${path} cannot be ${create ? 'set' : 'unset'}`;
      throw create
        ? codedError('usage', 'bad_override', message, { object: at })
        : usageError('bad_override', message, 'check the path against the sample');
    }
  }
  return { parent, key: segments[segments.length - 1] as string };
}

/**
 * Parses one `--set path=value`: a value that parses as JSON is used as JSON (numbers, true, null,
 * objects, quoted strings), otherwise as the string itself. A value nested deeper than MAX_WALK_DEPTH is refused:
 * the document is printed and sent as JSON, and serialising it would overflow the stack (src/bounds.ts).
 */
export function parseSetOverride(text: string): [string, unknown] {
  const equals = text.indexOf('=');
  if (equals <= 0)
    throw codedError('usage', 'bad_override', `${optionName('set')} ${text}: expected path=value`, { syntax: true });
  const path = text.slice(0, equals);
  const raw = text.slice(equals + 1);
  const depth = jsonNestingDepth(raw);
  if (depth > MAX_WALK_DEPTH) {
    throw usageError(
      'bad_override',
      `${optionName('set')} ${path}: the value nests ${depth} levels deep, over the ${MAX_WALK_DEPTH} cai takes`,
      `a field of the spec nests at most 2 levels; give a shallower value (caps: docs/limits.md)`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {
    return [path, raw];
  }
  const changed = numberChangedByParsing(raw);
  if (changed !== undefined) {
    throw usageError(
      'bad_override',
      `${optionName('set')} ${path}: ${changed.why}`,
      `write it in double quotes to send it as a string ("${changed.written}")`,
    );
  }
  return [path, value];
}

/**
 * The first number of JSON text `raw` that parsing would change, and how: out of a double's range (1e999 would
 * be printed null), a non-zero one that underflows to 0, or one with more digits than a double holds (a whole
 * number past 2^53, 9007199254740993.5, 0.30000000000000000001), which it would print as another number.
 */
function numberChangedByParsing(raw: string): { written: string; why: string } | undefined {
  const outsideStrings = raw.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const [written] of outsideStrings.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    const n = Number(written);
    const why = !Number.isFinite(n)
      ? 'is beyond the range of a JSON number here (it would become null)'
      : n === 0 && /[1-9]/.test(written.split(/[eE]/)[0] as string)
        ? 'is too close to 0 for a JSON number here (it would become 0)'
        : decimalValue(String(n)) === decimalValue(written)
          ? undefined
          : /^-?\d+$/.test(written)
            ? `is a whole number past 2^53, which loses digits (it would become ${String(n)})`
            : `has more digits than a JSON number here holds (it would become ${String(n)})`;
    if (why !== undefined) return { written, why: `${written} ${why}` };
  }
  return undefined;
}

/**
 * A JSON number's decimal value as one text, whatever its notation: `1.5e3`, `1500` and `1500.0` give `15e2`, and
 * every zero `0`. Two numbers are the same value exactly when these are equal.
 */
function decimalValue(text: string): string {
  const [, sign = '', whole = '', fraction = '', exponent = '0'] =
    /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text) ?? [];
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  const significant = digits.replace(/0+$/, '');
  if (significant === '') return '0';
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length);
  return `${sign}${significant}e${scale}`;
}

/** A job acknowledgment (§2.3), as a provider answers a contact job with 202. */
export function sampleAck(): Record<string, unknown> {
  return { provider_job_id: newId('job'), assigned_number_e164: sampleE164() };
}

/** The duplicate acknowledgment (§2.13). */
export function sampleDuplicateAck(): Record<string, unknown> {
  return { ok: true, duplicate: true };
}
