/**
 * `cai load export --engine artillery`: the scenario of `cai load` as an Artillery project that runs unchanged on one
 * machine (`npx artillery run`) and on AWS Fargate (`artillery run-fargate`). A pure function: what the project
 * holds, as data (its target, phases, scenarios and `ensure` conditions, what does not translate) and its processor
 * as text; the command writes the files (src/commands/load/export-files.ts).
 *
 * - The target is the origin, and every request goes to the path of the interface's endpoint (src/spec/interfaces.ts),
 *   without a URL's credentials, nothing in it that Artillery would template (./artillery-values.ts).
 * - The phases are Artillery's open model (a new virtual user per arrival, `arrivalRate` / `rampTo`, whole seconds);
 *   its `run-fargate --count N` runs the whole script on each of N workers (Artillery's docs: "can be thought of as
 *   multiplying the load … by a factor of N"), so the project also holds the phases at 1/N of the rate, N = `workers`.
 * - One weighted scenario per event type of the mix (or the contact job), each one POST signed by the processor's
 *   `caiSign` hook and judged by its `caiJudge` hook; the thresholds as conditions of the `ensure` plugin
 *   (./artillery-ensure.ts).
 * - The processor (./artillery-processor.ts, bundled at build time) and its settings; the secret is in neither.
 */
import { endpointUrl, interfaceSpec } from '../spec/interfaces.js';
import { LOAD_BOUNDS } from './bounds.js';
import { ensureCondition } from './artillery-ensure.js';
import { PROCESSOR_BUNDLE } from './artillery-processor.generated.js';
import type { ProcessorSettings } from './artillery-processor.js';
import { checkHeaderValue, exportUrl, withoutCredentials } from './artillery-values.js';
import { mixOf, type Scenario } from './scenario.js';
import type { Threshold } from './thresholds.js';

export { ensureCondition } from './artillery-ensure.js';
export { encodeBraces, ExportValueError, isTemplateFree, withoutCredentials } from './artillery-values.js';

/** Artillery 2.0.21, the last release that runs on Node.js 20. */
export const ARTILLERY_VERSION = '2.0.21';

export interface ArtilleryExportOptions {
  scenario: Scenario;
  /** The events URL (B) or the provider endpoint (A; §4.1's path is appended). Its credentials are left out. */
  target: string;
  identity: string;
  /** The environment variable the processor reads the secret from. */
  secretEnv: string;
  thresholds: readonly Threshold[];
  timeoutMs: number;
  /** The Fargate workers the project's second set of phases divides the rate by. */
  workers: number;
  branchCode?: string;
  /** Interface A: the jobs' callback_url (its credentials are left out). */
  callbackUrl?: string;
  /** `cai 0.2.0`: named in the processor's header. */
  generator: string;
}

/** A threshold Artillery cannot judge, and why (left out of `ensure`). */
export interface Untranslated {
  expression: string;
  why: string;
}

export type ArtilleryPlan = ReturnType<typeof planArtillery>;

export function planArtillery(options: ArtilleryExportOptions) {
  const spec = interfaceSpec(options.scenario.interface);
  const target = exportUrl(endpointUrl(spec.id, options.target), 'target');
  const identity = checkHeaderValue(options.identity, 'identity');
  const conditions: string[] = [];
  const untranslated: Untranslated[] = [];
  const watched = new Set<number>();
  for (const threshold of options.thresholds) {
    const translated = ensureCondition(threshold);
    if ('why' in translated) untranslated.push({ expression: threshold.expression, why: translated.why });
    else {
      conditions.push(translated.expression);
      for (const status of translated.statuses) watched.add(status);
    }
  }
  // The callback_url goes into the job's body (a Buffer the processor signs: never templated), without credentials.
  const callbackUrl = options.callbackUrl !== undefined ? withoutCredentials(options.callbackUrl).url.href : undefined;
  const settings: ProcessorSettings = {
    interface: spec.id,
    identityHeader: spec.identityHeader,
    identity,
    secretEnv: options.secretEnv,
    repeatShare: options.scenario.repeatShare,
    poolSize: LOAD_BOUNDS.repeatPool,
    ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
    ...(callbackUrl !== undefined ? { callbackUrl } : {}),
    watchedStatuses: [...watched].sort((a, b) => a - b),
  };
  return {
    /** `config.target`, and the path and query every request is POSTed to (braces percent-encoded). */
    origin: target.origin,
    path: target.pathAndQuery,
    phases: options.scenario.phases,
    timeoutMs: options.timeoutMs,
    workers: options.workers,
    secretEnv: options.secretEnv,
    /** One scenario per request kind: the event type (or `contact-job`), with its weight. */
    requests: requestKinds(options.scenario),
    conditions,
    untranslated,
    /** The text of the processor file. */
    processor: processorFile(settings, options.generator),
  };
}

/** The scenarios: one per event type of the mix (the sample's, as `cai sample` makes it), or the contact job. */
function requestKinds(scenario: Scenario): { name: string; weight: number }[] {
  if (interfaceSpec(scenario.interface).document === 'job') return [{ name: 'contact-job', weight: 1 }];
  return mixOf(scenario).map((entry) => ({ name: entry.type, weight: entry.weight }));
}

/**
 * The processor file: the bundle of ./artillery-processor.ts (built by scripts/build-processor.mjs), then its
 * settings as JSON (a JavaScript expression whatever the strings hold), passed to `createProcessor`.
 */
function processorFile(settings: ProcessorSettings, generator: string): string {
  const line = (text: string) => text.replace(/[\r\n\u2028\u2029]+/g, ' ');
  return [
    `// cai-processor.cjs: written by ${line(generator)} for Artillery. Signs each request as the CAI spec asks (§5):`,
    '// HMAC-SHA256 over "<timestamp>.<body>", with a fresh X-CAI-Timestamp, over the exact bytes sent; each document',
    '// has an event_id of its own (§6.1), and a share of the requests repeat an earlier accepted document, which must',
    '// come back as a duplicate (§2.13, §2.2). The code of cai itself, bundled; Node built-ins only.',
    `// The secret is read from the environment (${line(settings.secretEnv)}); it is never in this file.`,
    "'use strict';",
    PROCESSOR_BUNDLE.trimEnd(),
    '',
    '// The settings of this export.',
    `module.exports = module.exports.createProcessor(${JSON.stringify(settings, null, 2)});`,
    '',
  ].join('\n');
}
