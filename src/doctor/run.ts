import { tmpdir } from 'node:os';
import type { InterfaceId } from '../spec/constants.js';
import { endpointUrl } from '../spec/interfaces.js';
import type { ChosenEnvironment } from '../config/load.js';
import { checkTarget } from './checks.js';
import { checkConfiguration, checkSecrets } from './profile.js';
import { checkEnvironmentSecrets, checkNode, checkNoProfile, checkTempDir } from './local.js';
import type { ConfigSearch } from '../config/locate.js';
import type { CheckResult, DoctorTarget, Verdict } from './types.js';
import { hintOf } from '../errors.js';

export interface DoctorOptions {
  /** The chosen environment of the deployment profile, when there is one. */
  environment?: ChosenEnvironment;
  /** The interfaces to check the configuration for (both when not narrowed by --interface). */
  interfaces: InterfaceId[];
  /** The URLs to probe: --to, or those of the environment. */
  targets: DoctorTarget[];
  /**
   * This machine: the Node.js version, the temporary directory, and where a profile was looked for when none was
   * found (default: this process's version and temporary directory; no search named).
   */
  local?: { nodeVersion: string; tempDir: string; cwd: string; search?: ConfigSearch };
  env: NodeJS.ProcessEnv;
  now: () => number;
  timeoutMs: number;
  ca?: Buffer;
  /** Called as each check finishes (progress on a terminal). */
  onCheck?: (check: CheckResult) => void;
}

export type DoctorReport = Awaited<ReturnType<typeof runDoctor>>;

/** The URLs of an environment to probe: §4.1 `{provider_endpoint}/contact-jobs` and §4.2 `{events_url}`. */
export function targetsOf(environment: ChosenEnvironment, interfaces: readonly InterfaceId[]): DoctorTarget[] {
  const { provider_endpoint: endpoint, events_url: events } = environment.settings;
  const targets: DoctorTarget[] = [];
  if (interfaces.includes('A') && endpoint) targets.push({ url: endpointUrl('A', endpoint), interface: 'A' });
  if (interfaces.includes('B') && events) targets.push({ url: events, interface: 'B' });
  return targets;
}

/** Runs every check; never throws for what it finds (a finding is a verdict), only for bugs. */
export async function runDoctor(options: DoctorOptions) {
  const checks: CheckResult[] = [];
  const add = (results: CheckResult[]) => {
    for (const result of results) {
      checks.push(result);
      options.onCheck?.(result);
    }
  };
  const local = options.local ?? { nodeVersion: process.version, tempDir: tmpdir(), cwd: process.cwd() };
  add([checkNode(local.nodeVersion), checkTempDir(local.tempDir)]);
  if (options.environment) {
    add(checkConfiguration(options.environment, options.interfaces));
    add(checkSecrets(options.environment, options.env));
  } else {
    add([
      ...(local.search ? [checkNoProfile(local.search, local.cwd)] : checkConfiguration(undefined, options.interfaces)),
      ...checkEnvironmentSecrets(options.env),
    ]);
  }
  for (const target of options.targets) {
    add(await checkTarget(target, { timeoutMs: options.timeoutMs, ca: options.ca, now: options.now }));
  }
  if (options.targets.length === 0) {
    add([
      {
        id: 'network',
        verdict: 'skip',
        message: 'no URL to probe (DNS, TCP, TLS, certificate, clock)',
        hint: hintOf('doctor_no_target', {}, 'use a profile whose environment has provider_endpoint or events_url'),
      },
    ]);
  }
  const summary: Record<Verdict, number> = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const check of checks) summary[check.verdict] += 1;
  return {
    ok: summary.fail === 0,
    environment: options.environment?.name ?? null,
    targets: options.targets,
    checks,
    summary,
  };
}
