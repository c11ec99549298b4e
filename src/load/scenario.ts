/**
 * What a load run sends, as data: the phases, the mix of documents, the share of repeats. The readers of the
 * textual forms (`0..500/s:30s`, `conversation.message=80,job.closed=20`, `10%`) return the value or throw a
 * SyntaxProblem saying what was expected; the command turns that into its usage error.
 */
import { EVENT_TYPES, type EventType } from '../spec/constants.js';
import { LOAD_BOUNDS } from './bounds.js';
import type { PhaseSpec } from './schedule.js';

/** A textual form that does not read: `message` says what was expected. */
export class SyntaxProblem extends Error {}

export interface MixEntry {
  type: EventType;
  weight: number;
}

export interface Scenario {
  interface: 'A' | 'B';
  phases: PhaseSpec[];
  /** Interface B: the event types and their weights (Interface A sends contact jobs only). */
  mix: MixEntry[];
  /** 0 to LOAD_BOUNDS.maxRepeatShare. */
  repeatShare: number;
}

const PER = { s: 1, m: 60, h: 3600 } as const;

/** `0..500/s:30s`, `10..200:1m`, `0/s..500/s:30s`: a ramp from one rate to another over a duration. */
export function parseRamp(text: string, parseDurationMs: (value: string) => number): PhaseSpec {
  const match =
    /^\s*([0-9]+(?:\.[0-9]+)?)(?:\/([smh]))?\s*\.\.\s*([0-9]+(?:\.[0-9]+)?)(?:\/([smh]))?\s*:\s*(\S+)\s*$/.exec(text);
  if (!match) throw new SyntaxProblem('expected a ramp such as 0..500/s:30s (from..to rate : duration).');
  const [, from, fromUnit, to, toUnit, duration = ''] = match;
  const unit = toUnit ?? fromUnit ?? 's';
  const fromPerSecond = Number(from) / PER[(fromUnit ?? unit) as keyof typeof PER];
  const toPerSecond = Number(to) / PER[unit as keyof typeof PER];
  let durationMs: number;
  try {
    durationMs = parseDurationMs(duration);
  } catch {
    throw new SyntaxProblem(`expected a duration after the colon, such as 30s or 2m, not "${duration}".`);
  }
  if (durationMs < 1000) throw new SyntaxProblem('a ramp lasts 1s or more.');
  checkRate(Math.max(fromPerSecond, toPerSecond));
  if (fromPerSecond === 0 && toPerSecond === 0)
    throw new SyntaxProblem('a ramp from 0 to 0 sends nothing; give a pause as a lower rate.');
  return { fromPerSecond, toPerSecond, durationMs };
}

function checkRate(perSecond: number): void {
  if (perSecond > LOAD_BOUNDS.maxRatePerSecond)
    throw new SyntaxProblem(`at most ${LOAD_BOUNDS.maxRatePerSecond}/s (docs/load.md, Bounds).`);
}

/** `conversation.message=80,job.closed=20`: event types with relative weights (any positive numbers). */
export function parseMix(text: string): MixEntry[] {
  const entries: MixEntry[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*([a-z.]+)\s*(?:=\s*([0-9]+(?:\.[0-9]+)?))?\s*$/.exec(part);
    if (!match)
      throw new SyntaxProblem(
        `expected type=weight pairs such as conversation.message=80,job.closed=20, not "${part.trim()}".`,
      );
    const type = match[1] as string;
    if (!(EVENT_TYPES as readonly string[]).includes(type))
      throw new SyntaxProblem(`"${type}" is not an event type (§6): ${EVENT_TYPES.join(', ')}.`);
    if (entries.some((entry) => entry.type === type)) throw new SyntaxProblem(`${type} is given twice.`);
    const weight = match[2] === undefined ? 1 : Number(match[2]);
    if (!(weight > 0)) throw new SyntaxProblem(`the weight of ${type} must be above 0.`);
    entries.push({ type: type as EventType, weight });
  }
  return entries;
}

/** `10%` or `0.1`: the share of requests that repeat an earlier document. */
export function parseRepeatShare(text: string): number {
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)\s*$/.exec(text);
  if (!match) throw new SyntaxProblem('expected a share such as 10% or 0.1.');
  const share = match[2] === '%' ? Number(match[1]) / 100 : Number(match[1]);
  if (share > LOAD_BOUNDS.maxRepeatShare) {
    throw new SyntaxProblem(
      `at most ${LOAD_BOUNDS.maxRepeatShare * 100}%: the rest must be new documents for the repeats to repeat.`,
    );
  }
  return share;
}

/** The mix a run sends: the one given, or conversation messages alone. */
export function mixOf(scenario: Scenario): readonly MixEntry[] {
  return scenario.mix.length > 0 ? scenario.mix : [{ type: 'conversation.message', weight: 1 }];
}

/** A cumulative table of the mix's weights, to pick a type with one random number. */
export function mixPicker(mix: readonly MixEntry[]): (random: number) => EventType {
  const total = mix.reduce((sum, entry) => sum + entry.weight, 0);
  let running = 0;
  const bounds = mix.map((entry) => (running += entry.weight / total));
  return (random) => {
    for (let index = 0; index < bounds.length; index += 1)
      if (random < (bounds[index] as number)) return (mix[index] as MixEntry).type;
    return (mix[mix.length - 1] as MixEntry).type;
  };
}

/** `conversation.message=80,job.closed=20`, as the flag reads. */
export function describeMix(mix: readonly MixEntry[]): string {
  return mix.map((entry) => `${entry.type}=${entry.weight}`).join(',');
}
