/**
 * The flags of `cai load` and `cai load export` (src/commands/load/command.ts): their types, the readers commander calls on
 * each value, and what both subcommands make of them together (the phases, the thresholds, the identity header,
 * the flags of the other interface refused).
 */
import type { SharedFlags } from '../common/flags.js';
import { InvalidArgumentError } from 'commander';
import { usageError } from '../../errors.js';
import { interfaceSpec, otherInterface } from '../../spec/interfaces.js';
import { LOAD_BOUNDS } from '../../load/bounds.js';
import type { PhaseSpec } from '../../load/schedule.js';
// The readers of the scenario's flags: small, plain data (no zod, no undici), so they load with the flags.
import { parseRamp, type MixEntry, type Scenario } from '../../load/scenario.js';
import { parseThreshold, type Threshold } from '../../load/threshold-syntax.js';
import { IDENTITY_HOW, identityFlagOf, parseDurationMs } from '../common/options.js';
import { identityValueProblem } from '../common/header-options.js';
import { hasSecretOptions } from '../common/secret-options.js';
import type { CommandContext } from '../common/runner.js';

export interface LoadFlags
  extends Pick<SharedFlags, 'to' | 'mock' | 'provider' | 'source' | 'callbackUrl' | 'branchCode' | 'html'> {
  interface: 'A' | 'B';
  rate?: number;
  duration: number;
  ramp?: PhaseSpec[];
  mix?: MixEntry[];
  repeat?: number;
  connections: number;
  timeout: number;
  threshold?: Threshold[];
  slo?: 'spec';
  sloScale: number;
  callbacks?: boolean;
  callbackListen?: { host: string; port: number };
  ca?: string;
  insecure?: boolean;
  [key: string]: unknown;
}

export interface ExportFlags {
  engine: 'artillery';
  out?: string;
  workers: number;
  force?: boolean;
}

export const DEFAULT_RATE_PER_SECOND = 10;
/** Interface B without --mix: every event a conversation.message (§2.5), the commonest event of a conversation. */
const DEFAULT_MIX: MixEntry[] = [{ type: 'conversation.message', weight: 1 }];

/** The domain's SyntaxProblem as commander's own usage error: `option '--mix <…>' argument '…' is invalid. <why>`. */
export function syntax<T, P = T>(parse: (text: string, previous: P) => T): (text: string, previous: P) => T {
  return (text, previous) => {
    try {
      return parse(text, previous);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

export function bounded(max: number, what: string): (value: string) => number {
  return (value) => {
    if (!/^[0-9]+$/.test(value) || Number(value) === 0)
      throw new InvalidArgumentError('expected a whole number of 1 or more.');
    if (Number(value) > max) throw new InvalidArgumentError(`at most ${max} ${what} (docs/load.md, Bounds).`);
    return Number(value);
  };
}

export function parseScale(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || Number.isNaN(n) || n <= 0)
    throw new InvalidArgumentError('expected a factor above 0, such as 0.01 (a hundredth of the targets).');
  if (n > LOAD_BOUNDS.maxSloScale)
    throw new InvalidArgumentError(`expected at most ${LOAD_BOUNDS.maxSloScale} (docs/load.md, Bounds).`);
  return n;
}

export function collectRamp(text: string, previous: PhaseSpec[] | undefined): PhaseSpec[] {
  const ramps = [...(previous ?? []), parseRamp(text, parseDurationMs)];
  if (ramps.length > LOAD_BOUNDS.maxRamps) throw new InvalidArgumentError(`at most ${LOAD_BOUNDS.maxRamps} ramps.`);
  return ramps;
}

export function collectThreshold(text: string, previous: Threshold[] | undefined): Threshold[] {
  const thresholds = [...(previous ?? []), parseThreshold(text)];
  if (thresholds.length > LOAD_BOUNDS.maxThresholds)
    throw new InvalidArgumentError(`at most ${LOAD_BOUNDS.maxThresholds} thresholds.`);
  return thresholds;
}

// ----------------------------------------------------------------------------------------------- the scenario

/** Flags that belong to the other interface, given: a usage error rather than a silent no-op. */
export function refuseOtherInterface(options: LoadFlags): void {
  const spec = interfaceSpec(options.interface);
  const other = otherInterface(options.interface);
  const foreign: [string, boolean][] = [
    [identityFlagOf(other), options[other.identityOption] !== undefined],
    // The mix is of event types (§2.4); a job has none.
    ...(spec.document === 'event' ? [] : ([['--mix', options.mix !== undefined]] as [string, boolean][])),
    // A job's callback_url and branch_code, and its callbacks (§3).
    ...(spec.callbacks
      ? []
      : ([
          ['--callbacks', options.callbacks === true],
          ['--callback-listen', options.callbackListen !== undefined],
          ['--callback-url', options.callbackUrl !== undefined],
          ['--branch-code', options.branchCode !== undefined],
        ] as [string, boolean][])),
  ];
  for (const [flag, given] of foreign) {
    if (given) {
      const hint =
        spec.document === 'job'
          ? `jobs carry ${spec.identityHeaderName} (${identityFlagOf(spec)}); drop the option`
          : `pass --interface ${other.id} to load a ${other.receiver}'s contact-jobs endpoint, or drop the option`;
      throw usageError('conflicting_options', `${flag} is for interface ${other.id}, not ${options.interface}`, hint);
    }
  }
  if (options.callbackListen !== undefined && !options.callbacks)
    throw usageError(
      'conflicting_options',
      '--callback-listen needs --callbacks',
      'add --callbacks to time the first callbacks, or drop the option',
    );
  if (hasSecretOptions(options, 'callback-secret') && !options.callbacks)
    throw usageError(
      'conflicting_options',
      'the callback secret options need --callbacks',
      "add --callbacks to verify and time the provider's callbacks, or drop them",
    );
}

/** The phases: the ramps in order, then the steady phase (--rate for --duration). */
export function phasesOf(options: LoadFlags): PhaseSpec[] {
  const ramps = options.ramp ?? [];
  const last = ramps[ramps.length - 1];
  const rate = options.rate ?? (last ? last.toPerSecond : DEFAULT_RATE_PER_SECOND);
  const phases = [...ramps];
  if (options.duration > 0) phases.push({ fromPerSecond: rate, toPerSecond: rate, durationMs: options.duration });
  if (phases.length === 0)
    throw usageError(
      'bad_option',
      '--duration 0 without --ramp sends nothing',
      'give a --duration such as 30s, or a --ramp',
    );
  if (options.duration > 0 && rate === 0)
    throw usageError('bad_option', 'the steady rate is 0', 'give --rate, e.g. --rate 100/s');
  const total = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  if (total > LOAD_BOUNDS.maxDurationMs)
    throw usageError(
      'bad_option',
      `the run would last ${Math.round(total / 60_000)} min, over the ${LOAD_BOUNDS.maxDurationMs / 3_600_000} h cai load takes`,
      'shorten --duration or the ramps (docs/load.md, Bounds)',
    );
  return phases;
}

/** The scenario the flags describe, run here (`cai load`) or written as a project (`cai load export`). */
export function scenarioOf(options: LoadFlags, phases: PhaseSpec[]): Scenario {
  return { interface: options.interface, phases, mix: options.mix ?? DEFAULT_MIX, repeatShare: options.repeat ?? 0 };
}

export async function thresholdsOf(options: LoadFlags, context: CommandContext): Promise<Threshold[]> {
  const thresholds = [...(options.threshold ?? [])];
  if (options.slo === 'spec') {
    const { sloThresholds } = await import('../../load/thresholds.js');
    thresholds.push(
      ...sloThresholds({
        interface: options.interface,
        scale: options.sloScale,
        callbacks: options.callbacks === true,
      }),
    );
    if (options.repeat === undefined) {
      options.repeat = SLO_REPEAT_SHARE;
      context.output.note(
        `--slo spec sends ${SLO_REPEAT_SHARE * 100}% repeats to check that no event is lost (set --repeat to change it)`,
      );
    }
  } else if (options.sloScale !== 1 && !options.callbacks) {
    throw usageError(
      'conflicting_options',
      '--slo-scale scales the time targets of --slo spec and --callbacks',
      'add --slo spec, or drop --slo-scale',
    );
  }
  const [{ unmetNeed }, { NEED_TEXT }] = await Promise.all([import('../../load/thresholds.js'), import('./needs.js')]);
  for (const threshold of thresholds) {
    const need = unmetNeed(threshold, {
      callbacks: options.callbacks === true && interfaceSpec(options.interface).callbacks,
    });
    if (need !== undefined)
      throw usageError(
        'bad_threshold',
        `threshold '${threshold.expression}': ${threshold.metric} ${NEED_TEXT[need]}`,
        'add --interface A --callbacks, or drop the threshold',
      );
  }
  return thresholds;
}

/**
 * X-CAI-Provider (B, §4.2) or X-CAI-Source (A, §4.1): required unless the reference receiver is loaded, and a value
 * HTTP carries as given (RFC 9110 §5.5: a CR or LF would add a header to every request).
 */
export function identityOf(options: LoadFlags, required: boolean): string | undefined {
  const spec = interfaceSpec(options.interface);
  const flag = identityFlagOf(spec);
  const identity = options[spec.identityOption];
  if (identity === undefined || identity === '') {
    if (!required) return undefined;
    throw usageError('missing_option', `${flag} is required`, `pass ${IDENTITY_HOW[spec.identityOption]}`);
  }
  const problem = identityValueProblem(identity);
  if (problem) {
    throw usageError(
      'bad_header_value',
      `${flag} is the ${spec.identityHeaderName} header, and ${problem}`,
      `pass the ${spec.identityName} alone, printable ASCII on one line`,
    );
  }
  return identity;
}

/** With --slo spec and no --repeat: enough repeats for "no lost event" to be judged on evidence. */
const SLO_REPEAT_SHARE = 0.05;
