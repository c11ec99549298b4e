/**
 * `cai load export --engine artillery`: the scenario of `cai load` as an Artillery project that runs unchanged on one
 * machine (`npx artillery run cai-load.yml`) and on AWS Fargate (`artillery run-fargate --count N --environment
 * fargate`). A pure function: the files as text, and notes on what does not translate.
 *
 * - cai-load.yml (./artillery-files.ts): `config.target` (the origin), `config.phases` (Artillery's open model: a
 *   new virtual user per arrival, `arrivalRate` / `rampTo`, durations in whole seconds), `config.processor`
 *   (relative: Artillery resolves it against the YAML's folder), weighted scenarios (one per event type of the
 *   mix), each one POST with the `caiSign` beforeRequest hook and the `caiJudge` afterResponse hook, and the
 *   thresholds as conditions of the `ensure` plugin (./artillery-ensure.ts).
 *   `artillery run-fargate --count N` runs the whole script on each of N workers (docs: "setting --count 10 can be
 *   thought of as multiplying the load … by a factor of 10"), so the environment `fargate` holds the same phases
 *   at 1/N of the rate, for N = `workers`.
 * - cai-processor.cjs: the signing hooks (src/load/artillery-processor.ts).
 * - package.json and README.md.
 *
 * No file holds a URL's credentials, and nothing of the user's reaches Artillery's templating (./artillery-values.ts).
 */
import { sampleEvent, sampleJob } from '../spec/sample.js';
import { endpointUrl, interfaceSpec } from '../spec/interfaces.js';
import { LOAD_BOUNDS } from './bounds.js';
import { ensureCondition } from './artillery-ensure.js';
import { packageJson, PROCESSOR_FILE, readme, SCRIPT_FILE, scriptYaml, type ProjectText, type Untranslated } from './artillery-files.js';
import { processorSource } from './artillery-processor.js';
import { checkHeaderValue, exportUrl, isTemplateFree, withoutCredentials } from './artillery-values.js';
import type { Scenario } from './scenario.js';
import type { Threshold } from './thresholds.js';

export { ensureCondition } from './artillery-ensure.js';
export { ARTILLERY_VERSION, PROCESSOR_FILE, SCRIPT_FILE } from './artillery-files.js';
export { encodeBraces, ExportValueError, withoutCredentials } from './artillery-values.js';

export interface ArtilleryExportOptions {
  scenario: Scenario;
  /** The events URL (B) or the provider endpoint (A; §4.1's path is appended). Its credentials are left out (exportUrl). */
  target: string;
  identity: string;
  /** The environment variable the processor reads the secret from. */
  secretEnv: string;
  thresholds: readonly Threshold[];
  timeoutMs: number;
  /** The Fargate workers the `fargate` environment divides the rate by. */
  workers: number;
  branchCode?: string;
  /** Interface A: the jobs' callback_url (its credentials, if any, are left out). */
  callbackUrl?: string;
  /** `cai 0.2.0`. */
  generator: string;
  /** The `cai load …` command line the project stands for (no secret and no credential in it). */
  command: string;
}

export interface ExportedProject {
  files: { name: string; content: string }[];
  /** Thresholds Artillery cannot judge, each with why (left out of `ensure`, listed in the YAML's comments). */
  untranslated: Untranslated[];
}

export function exportArtillery(options: ArtilleryExportOptions): ExportedProject {
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
  const requests = requestKinds(options);
  const processor = processorSource({
    interface: options.scenario.interface,
    identityHeader: spec.identityHeader,
    identity,
    secretEnv: options.secretEnv,
    repeatShare: options.scenario.repeatShare,
    templates: Object.fromEntries(requests.map((request) => [request.name, request.template])),
    watchedStatuses: [...watched].sort((a, b) => a - b),
    poolSize: LOAD_BOUNDS.repeatPool,
    generator: options.generator,
  });
  const text: ProjectText = {
    origin: target.origin,
    path: target.pathAndQuery,
    phases: options.scenario.phases,
    timeoutMs: options.timeoutMs,
    workers: options.workers,
    secretEnv: options.secretEnv,
    requests,
    conditions,
    untranslated,
    generator: options.generator,
    command: options.command,
  };
  const script = scriptYaml(text);
  // What the user gave is encoded or refused above: a `{{` left in the script would be a bug, never written.
  if (!isTemplateFree(script)) throw new Error(`${SCRIPT_FILE} would hold '{{': a value escaped neither for YAML nor for Artillery`);
  return {
    files: [
      { name: SCRIPT_FILE, content: script },
      { name: PROCESSOR_FILE, content: processor },
      { name: 'package.json', content: packageJson(text) },
      { name: 'README.md', content: readme(text) },
    ],
    untranslated,
  };
}

interface RequestKind {
  /** The scenario's and the request's name: the event type, or `contact-job`. */
  name: string;
  weight: number;
  template: Record<string, unknown>;
}

function requestKinds(options: ArtilleryExportOptions): RequestKind[] {
  if (interfaceSpec(options.scenario.interface).document === 'job') {
    // The callback_url goes into the job's body (a Buffer the processor signs: never templated), without credentials.
    const callbackUrl = options.callbackUrl !== undefined ? withoutCredentials(options.callbackUrl).url.href : undefined;
    const job = sampleJob({ ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}), ...(callbackUrl !== undefined ? { callbackUrl } : {}) });
    return [{ name: 'contact-job', weight: 1, template: job }];
  }
  const mix = options.scenario.mix.length > 0 ? options.scenario.mix : [{ type: 'conversation.message' as const, weight: 1 }];
  return mix.map((entry) => ({ name: entry.type, weight: entry.weight, template: sampleEvent(entry.type) }));
}
