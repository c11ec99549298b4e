/**
 * The arrival schedule of an open-model run: ramps (`--ramp 0..500/s:30s`), then the steady phase (`--rate` for
 * `--duration`). Arrivals are fixed in time by the schedule alone, whatever the target does: a slow target does
 * not slow the arrivals (an open model, as k6's arrival-rate executors and Artillery's phases), so a request that
 * cannot go out on time is counted, never silently delayed.
 *
 * A(t), the arrivals expected by time t, is the integral of the rate; arrival i (from 0) is due at the time where
 * A(t) = i, so a steady 200/s for 5 s sends 1000 requests at 0, 5, 10 … 4995 ms.
 */

export interface PhaseSpec {
  /** Arrivals a second at the start and at the end (equal for a steady phase). */
  fromPerSecond: number;
  toPerSecond: number;
  durationMs: number;
}

export interface Phase extends PhaseSpec {
  name: string;
  startMs: number;
  /** A(startMs). */
  before: number;
  /** Arrivals in this phase, fractional: A(end) - A(start). */
  arrivals: number;
}

/** `500/s`, `0..500/s`: how a phase's rate reads (to three decimals at most). */
export function describeRate(phase: PhaseSpec): string {
  const rate = (perSecond: number) => String(Math.round(perSecond * 1000) / 1000);
  const to = phase.fromPerSecond === phase.toPerSecond ? '' : `..${rate(phase.toPerSecond)}`;
  return `${rate(phase.fromPerSecond)}${to}/s`;
}

export class Schedule {
  readonly phases: readonly Phase[];
  readonly durationMs: number;
  /** Arrivals in the whole run: those due before its end. */
  readonly total: number;

  constructor(specs: readonly PhaseSpec[]) {
    let startMs = 0;
    let before = 0;
    const phases: Phase[] = [];
    for (const spec of specs) {
      const arrivals = ((spec.fromPerSecond + spec.toPerSecond) / 2) * (spec.durationMs / 1000);
      const kind = spec.fromPerSecond === spec.toPerSecond ? 'steady' : 'ramp';
      phases.push({
        ...spec,
        name: `${kind} ${describeRate(spec)} for ${spec.durationMs / 1000} s`,
        startMs,
        before,
        arrivals,
      });
      startMs += spec.durationMs;
      before += arrivals;
    }
    this.phases = phases;
    this.durationMs = startMs;
    // Arrivals i with A(t_i) = i < A(end); a float sum like 999.9999999 is read as the 1000 it stands for.
    this.total = Math.max(0, Math.ceil(before - 1e-9));
  }

  /** A(t): the arrivals expected by `ms` after the start (fractional). */
  expectedBy(ms: number): number {
    if (ms <= 0) return 0;
    for (const phase of this.phases) {
      if (ms < phase.startMs + phase.durationMs) return phase.before + arrivalsWithin(phase, ms - phase.startMs);
    }
    const last = this.phases[this.phases.length - 1];
    return last ? last.before + last.arrivals : 0;
  }

  /** How many arrivals are due by `ms` (arrival i is due once A(t) ≥ i), at most the total. */
  dueBy(ms: number): number {
    if (ms < 0) return 0;
    return Math.min(this.total, Math.floor(this.expectedBy(ms) + 1e-9) + 1);
  }

  /** When arrival `index` is due, in ms after the start. */
  dueAt(index: number): number {
    for (const phase of this.phases) {
      if (index < phase.before + phase.arrivals - 1e-9 || phase === this.phases[this.phases.length - 1]) {
        return phase.startMs + timeOfArrival(phase, index - phase.before);
      }
    }
    return this.durationMs;
  }

  /** The phase an instant falls in (the last one past the end). */
  phaseAt(ms: number): number {
    const index = this.phases.findIndex((phase) => ms < phase.startMs + phase.durationMs);
    return index === -1 ? this.phases.length - 1 : index;
  }
}

/** Arrivals in the first `ms` of a phase: the integral of a rate going linearly from `from` to `to`. */
function arrivalsWithin(phase: PhaseSpec, ms: number): number {
  const t = ms / 1000;
  const d = phase.durationMs / 1000;
  const slope = (phase.toPerSecond - phase.fromPerSecond) / d;
  return phase.fromPerSecond * t + (slope * t * t) / 2;
}

/** The time (ms into the phase) where arrivalsWithin reaches `n`: the root of slope/2·t² + from·t − n. */
function timeOfArrival(phase: PhaseSpec, n: number): number {
  const d = phase.durationMs / 1000;
  const slope = (phase.toPerSecond - phase.fromPerSecond) / d;
  if (n <= 0) return 0;
  let t: number;
  if (Math.abs(slope) < 1e-12) t = phase.fromPerSecond > 0 ? n / phase.fromPerSecond : d;
  else {
    const discriminant = phase.fromPerSecond * phase.fromPerSecond + 2 * slope * n;
    t = discriminant <= 0 ? d : (-phase.fromPerSecond + Math.sqrt(discriminant)) / slope;
  }
  return Math.min(phase.durationMs, Math.max(0, t * 1000));
}
