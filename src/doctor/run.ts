import { CONTACT_JOBS_PATH, type InterfaceId } from '../spec/constants.js';
import type { ChosenEnvironment } from '../config/load.js';
import { checkConfiguration, checkSecrets, checkTarget } from './checks.js';
import type { CheckResult, DoctorTarget, Verdict } from './types.js';

export interface DoctorOptions {
  /** The chosen environment of the deployment profile, when there is one. */
  environment?: ChosenEnvironment;
  /** The interfaces to check the configuration for (both when not narrowed by --interface). */
  interfaces: InterfaceId[];
  /** The URLs to probe: --target, or those of the environment. */
  targets: DoctorTarget[];
  env: NodeJS.ProcessEnv;
  now: () => number;
  timeoutMs: number;
  ca?: Buffer;
  /** Called as each check finishes (progress on a terminal). */
  onCheck?: (check: CheckResult) => void;
}

export interface DoctorReport {
  ok: boolean;
  environment: string | null;
  targets: DoctorTarget[];
  checks: CheckResult[];
  summary: Record<Verdict, number>;
}

/** The URLs of an environment to probe: §4.1 `{provider_endpoint}/contact-jobs` and §4.2 `{events_url}`. */
export function targetsOf(environment: ChosenEnvironment, interfaces: readonly InterfaceId[]): DoctorTarget[] {
  const { provider_endpoint: endpoint, events_url: events } = environment.settings;
  const targets: DoctorTarget[] = [];
  if (interfaces.includes('A') && endpoint) targets.push({ url: endpoint.replace(/\/+$/, '') + CONTACT_JOBS_PATH, interface: 'A' });
  if (interfaces.includes('B') && events) targets.push({ url: events, interface: 'B' });
  return targets;
}

/** Runs every check; never throws for what it finds (a finding is a verdict), only for bugs. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const checks: CheckResult[] = [];
  const add = (results: CheckResult[]) => {
    for (const result of results) {
      checks.push(result);
      options.onCheck?.(result);
    }
  };
  add(checkConfiguration(options.environment, options.interfaces));
  add(checkSecrets(options.environment, options.env));
  for (const target of options.targets) {
    add(await checkTarget(target, { timeoutMs: options.timeoutMs, ca: options.ca, now: options.now }));
  }
  const summary: Record<Verdict, number> = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const check of checks) summary[check.verdict] += 1;
  return { ok: summary.fail === 0, environment: options.environment?.name ?? null, targets: options.targets, checks, summary };
}
