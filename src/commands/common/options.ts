import { InvalidArgumentError, Option, type Command } from 'commander';
import { FLAG_BOUNDS } from '../../bounds-flags.js';
import { parseDuration } from '../../duration.js';
import { usageError } from '../../errors.js';
import { RETRY_PERIOD_SECONDS } from '../../spec/constants.js';
import type { InterfaceSpec } from '../../spec/interfaces.js';
import { closestValue, suggestValue } from '../../suggest.js';

/**
 * Option value parsers for commander. They turn a bad value into commander's own
 * "option '--x <n>' argument 'y' is invalid." usage error (exit 2), with the reason.
 */

/** A whole number from `min` to `max` (docs/limits.md, "Flag values"). */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^[0-9]+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`expected a whole number of ${min} or more.`);
    if (Number(value) > max) throw new InvalidArgumentError(`expected at most ${max} (docs/limits.md).`);
    return Number(value);
  };
}

/**
 * A field value that may not be empty (a lead_id, a branch_code): '' is refused before anything is sent, not
 * rejected by the receiver halfway through a flow. `what` names it with an example: `a lead_id such as lead_4f1c2a`.
 */
export function nonEmpty(what: string): (value: string) => string {
  return (value) => {
    if (value === '') throw new InvalidArgumentError(`expected ${what}, not an empty string.`);
    return value;
  };
}

/** Unix seconds, as `X-CAI-Timestamp` carries them (§4.1, §4.2). */
export function parseUnixSeconds(value: string): number {
  if (!/^[0-9]{1,12}$/.test(value))
    throw new InvalidArgumentError('expected unix seconds, a whole number such as 1700000000.');
  return Number(value);
}

/** Parses `500ms`, `30s`, `2m`, `24h`, `1h30m`; a bare number is seconds (src/duration.ts). Returns milliseconds. */
export function parseDurationMs(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError('expected a duration such as 500ms, 30s, 2m or 24h.');
  return withinDurationBound(ms);
}

/** Every duration flag waits at most a day (docs/limits.md): Node's timers would turn 25 days into 1 ms. */
function withinDurationBound(ms: number): number {
  if (ms > FLAG_BOUNDS.durationMs) throw new InvalidArgumentError('expected at most 24h (docs/limits.md).');
  return ms;
}

/** A duration that must be more than zero (a time-out of 0 would fail every attempt). */
export function parsePositiveDurationMs(value: string): number {
  const ms = parseDurationMs(value);
  if (ms <= 0) throw new InvalidArgumentError('expected a duration of more than 0, such as 500ms or 10s.');
  return ms;
}

/** `--retry-for`: §7 and §8 retry with backoff "for up to 24 hours", so a longer period is refused. */
export function parseRetryPeriodMs(value: string): number {
  const ms = parseDuration(value) ?? parseDurationMs(value);
  if (ms > RETRY_PERIOD_SECONDS * 1000)
    throw new InvalidArgumentError('expected at most 24h: §8 retries for up to 24 hours.');
  return ms;
}

/** A URL path: it starts with `/` and holds no spaces, query or fragment. */
export function parseUrlPath(value: string): string {
  if (!/^\/[^\s?#]*$/.test(value))
    throw new InvalidArgumentError('expected a path that starts with /, such as /events.');
  // A request-target is printable ASCII (RFC 9112 §3.2): a client sends any other character percent-encoded, so a path
  // holding one as it is would never be matched.
  if (!/^[\x21-\x7e]*$/.test(value))
    throw new InvalidArgumentError('expected printable ASCII; percent-encode other characters, such as /%C3%A9vents.');
  return value;
}

/**
 * Parses a rate such as `20/s`, `600/m` or a bare `20` (per second), from 1/h to 100000/s (docs/limits.md): a
 * slower one would pause past a duration flag's bound. Returns requests per second.
 */
export function parseRatePerSecond(value: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(?:\/(s|m|h))?$/.exec(value.trim());
  if (!match || Number(match[1]) <= 0) throw new InvalidArgumentError('expected a rate such as 20/s or 600/m.');
  const per = { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
  const rate = Number(match[1]) / per;
  if (rate * 3600 < FLAG_BOUNDS.ratePerHourLeast)
    throw new InvalidArgumentError(`expected at least ${FLAG_BOUNDS.ratePerHourLeast}/h (docs/limits.md).`);
  if (rate > FLAG_BOUNDS.ratePerSecond)
    throw new InvalidArgumentError(`expected at most ${FLAG_BOUNDS.ratePerSecond}/s (docs/limits.md).`);
  return rate;
}

/** A probability between 0 and 1. */
export function parseProbability(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a number from 0 to 1.');
  return n;
}

/** A TCP port, 0 meaning "any free port". */
export function parsePort(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return Number(value);
}

/** An absolute http(s) URL. */
export function parseHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an absolute URL such as https://example.test/path.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('expected an http:// or https:// URL.');
  return value;
}

/** Repeatable option collector. */
export function collectValues(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Restricts a value to a fixed set, naming the set in the error, and the value meant when it is a typo. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value: string) => {
    if (!(choices as readonly string[]).includes(value)) {
      const near = closestValue(value, choices);
      throw new InvalidArgumentError(
        `${near === undefined ? '' : `did you mean ${near}? `}expected one of: ${choices.join(', ')}.`,
      );
    }
    return value as T;
  };
}

/**
 * A repeatable option whose values come from a list too long to print in an error (the faults of `--break`): a
 * typo is answered with the value meant, anything else with where the list is.
 */
export function collectOneOf(
  known: readonly string[],
  what: string,
  listedBy: string,
): (value: string, previous: string[] | undefined) => string[] {
  return (value, previous) => {
    if (!known.includes(value))
      throw new InvalidArgumentError(
        `not a ${what}: ${suggestValue(value, known) ?? `${listedBy} lists the ${known.length} ${what}s`}`,
      );
    return collectValues(value, previous);
  };
}

/** Milliseconds: a bare number is milliseconds here (`--latency 250`); `1.5s`, `2m` also work. */
export function parseMilliseconds(value: string): number {
  const text = value.trim();
  const ms = /^[0-9]+$/.test(text) ? Number(text) : parseDuration(text);
  if (ms === undefined)
    throw new InvalidArgumentError('expected milliseconds such as 250, or a duration such as 1.5s.');
  return withinDurationBound(ms);
}

/** A point in time: an ISO 8601 date or date-time with an offset (§2.1), or a duration ago such as `24h` or `7d`. */
export type TimeBound = { at: number } | { agoMs: number };

export function parseTimeBound(value: string): TimeBound {
  const text = value.trim();
  if (/^[0-9]+(\.[0-9]+)?(ms|s|m|h|d)([0-9]|$)/.test(text)) {
    const agoMs = parseDuration(text) ?? parseDurationMs(text);
    if (agoMs > FLAG_BOUNDS.agoDays * 86_400_000)
      throw new InvalidArgumentError(
        `expected a duration ago of at most ${FLAG_BOUNDS.agoDays}d (docs/limits.md); an earlier point as a date (2026-11-01).`,
      );
    return { agoMs };
  }
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  if (!dateOnly && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    throw new InvalidArgumentError(
      'expected a date (2026-11-01, read as UTC), a date-time with an offset (2026-11-01T09:00:00+01:00), or a duration ago (24h, 7d).',
    );
  }
  const at = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(at) || !isRealDateTime(text)) throw new InvalidArgumentError('not a real date.');
  return { at };
}

/**
 * Whether every part of a date or date-time is in its range: Date.parse rolls 2026-02-31 over to 3 March and reads
 * T24:00 as the next day, and a value is never changed quietly (docs/limits.md).
 */
function isRealDateTime(text: string): boolean {
  // Year, month, day, then hour, minute, second, offset hour and minute (0 when absent); no match: NaN, never real.
  const [, year = NaN, month = NaN, day = NaN, ...times] =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/i
      .exec(text)
      ?.map((part) => Number(part ?? 0)) ?? [];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const inRange = [24, 60, 60, 24, 60].every((bound, index) => (times[index] ?? 0) < bound);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && inRange;
}

/** A flag the command cannot do without, and how to pass it (`the events URL, e.g. --to https://…`). */
export interface RequiredOption {
  flag: string;
  value: string | undefined;
  how: string;
}

/**
 * The flags a command cannot do without, checked in the action (a deployment profile may supply them): every
 * missing one is named in the one error, so a first run does not find them one per attempt. `when` says when they
 * are needed (`with --format curl`).
 */
export function requireOptions(required: readonly RequiredOption[], when = ''): string[] {
  const missing = required.filter((option) => option.value === undefined || option.value === '');
  const flags = missing.map((option) => option.flag);
  if (missing.length > 0)
    throw usageError(
      'missing_option',
      `${flags.length === 1 ? `${flags[0]} is` : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)} are`} required${when === '' ? '' : ` ${when}`}`,
      `pass ${missing.map((option) => option.how).join('; and ')}`,
    );
  return required.map((option) => option.value as string);
}

/**
 * The one reader of a listen address: `HOST:PORT`, `[IPv6]:PORT`, `HOST`, `:PORT` or `PORT`, as the parts given
 * (a port as its digits, its range for the caller to judge); undefined for anything else.
 */
export function listenAddressParts(value: string): { host?: string; port?: string } | undefined {
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return { port: text };
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::([0-9]+))?$/.exec(text);
  if (!match) return undefined;
  const host = match[1] ?? match[2];
  return { ...(host ? { host } : {}), ...(match[3] !== undefined ? { port: match[3] } : {}) };
}

/** `HOST:PORT` where a listener listens (`[::1]:8080` for IPv6; port 0: any free port). */
export function parseHostPort(value: string): { host: string; port: number } {
  const parts = listenAddressParts(value);
  if (parts?.host === undefined || parts.port === undefined || Number(parts.port) > 65535) {
    throw new InvalidArgumentError('expected HOST:PORT such as 127.0.0.1:8787 (port 0: any free port).');
  }
  return { host: parts.host, port: Number(parts.port) };
}

/** An option that takes one of `choices`, `defaultValue` (the first) when absent; help lists both. */
export function choiceOption(flags: string, text: string, choices: string[], defaultValue = choices[0]): Option {
  return new Option(flags, text).choices(choices).default(defaultValue);
}

/** `--interface A|B`: which interface a command works on, as `text` says. */
export function interfaceOption(text: string): Option {
  return new Option('--interface <id>', text).choices(['A', 'B']);
}

/** A `<duration>` option (500ms, 10s, 10m) whose default is `shown` as help shows it; `positive` refuses 0. */
export function durationOption(flags: string, text: string, shown: string, positive = false): Option {
  const parse = positive ? parsePositiveDurationMs : parseDurationMs;
  return new Option(flags, text).argParser(parse).default(parse(shown), shown);
}

/** `--callback-listen`: where the listener of the provider's events listens, in a conformance run and in a load. */
export function callbackListenOption(): Option {
  const description = 'A: where the callback listener listens (default 127.0.0.1:0)';
  return new Option('--callback-listen <host:port>', description).argParser(parseHostPort);
}

/** The flag that gives the sender's identity of an interface: its option, `--source` (§4.1) or `--provider` (§5.6). */
export function identityFlagOf(spec: Pick<InterfaceSpec, 'identityOption'>): string {
  return `--${spec.identityOption}`;
}

/** The first of these options (attribute names) given on the command line, as its flag (`--lead-id`). */
export function flagGiven(command: Command, keys: readonly string[]): string | undefined {
  const key = keys.find((name) => command.getOptionValueSource(name) === 'cli');
  return key === undefined ? undefined : `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** How to pass the identity header's value, by the option that gives it (§4.1 X-CAI-Source, §4.2 X-CAI-Provider). */
export const IDENTITY_HOW = {
  provider: 'your provider_code for X-CAI-Provider (§4.2), e.g. --provider acme',
  source: 'the X-CAI-Source value identifying the platform (§4.1), e.g. --source platform',
} as const;
