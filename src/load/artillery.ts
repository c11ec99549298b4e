/**
 * `cai load export --engine artillery`: the scenario of `cai load` as an Artillery project that runs unchanged on one
 * machine (`npx artillery run cai-load.yml`) and on AWS Fargate (`artillery run-fargate --count N --environment
 * fargate`). A pure function: the files as text, and notes on what does not translate.
 *
 * - cai-load.yml: `config.target` (the origin), `config.phases` (Artillery's open model: a new virtual user per
 *   arrival, `arrivalRate` / `rampTo`, durations in whole seconds), `config.processor` (relative: Artillery
 *   resolves it against the YAML's folder), weighted scenarios (one per event type of the mix), each one POST with
 *   the `caiSign` beforeRequest hook and the `caiJudge` afterResponse hook, and the thresholds as conditions of the
 *   `ensure` plugin (`config.plugins.ensure` loads it; `config.ensure.conditions` holds filtrex expressions over the
 *   report's counters and summaries; a strict one that fails makes `artillery run` exit 1).
 *   `artillery run-fargate --count N` runs the whole script on each of N workers (docs: "setting --count 10 can be
 *   thought of as multiplying the load … by a factor of 10"), so the environment `fargate` holds the same phases
 *   at 1/N of the rate, for N = `workers`.
 * - cai-processor.cjs: the signing hooks (src/load/artillery-processor.ts).
 * - package.json: artillery pinned at 2.0.21, the last release that runs on Node 20, with `engines`.
 * - README.md: both commands, and how the secret is passed.
 */
import { sampleEvent, sampleJob } from '../spec/sample.js';
import { CONTACT_JOBS_PATH, Headers } from '../spec/constants.js';
import { LOAD_BOUNDS } from './bounds.js';
import { processorSource } from './artillery-processor.js';
import type { Scenario } from './scenario.js';
import { describeRate } from './schedule.js';
import type { Threshold } from './thresholds.js';

export const ARTILLERY_VERSION = '2.0.21';
export const SCRIPT_FILE = 'cai-load.yml';
export const PROCESSOR_FILE = 'cai-processor.cjs';

export interface ArtilleryExportOptions {
  scenario: Scenario;
  /** The events URL (B) or the provider endpoint (A). */
  target: string;
  identity: string;
  /** The environment variable the processor reads the secret from. */
  secretEnv: string;
  thresholds: readonly Threshold[];
  timeoutMs: number;
  /** The Fargate workers the `fargate` environment divides the rate by. */
  workers: number;
  branchCode?: string;
  callbackUrl?: string;
  /** `cai 0.2.0`. */
  generator: string;
  /** The `cai load …` command line the project stands for (no secret in it). */
  command: string;
}

export interface ExportedProject {
  files: { name: string; content: string }[];
  /** Thresholds Artillery cannot judge, each with why (left out of `ensure`, listed in the YAML's comments). */
  untranslated: { expression: string; why: string }[];
}

export function exportArtillery(options: ArtilleryExportOptions): ExportedProject {
  const url = new URL(options.target);
  const origin = url.origin;
  const path = options.scenario.interface === 'A' ? `${url.pathname.replace(/\/+$/, '')}${CONTACT_JOBS_PATH}` : `${url.pathname}${url.search}` || '/';
  const conditions: string[] = [];
  const untranslated: ExportedProject['untranslated'] = [];
  const watched = new Set<number>();
  for (const threshold of options.thresholds) {
    const translated = ensureCondition(threshold);
    if ('why' in translated) untranslated.push({ expression: threshold.expression, why: translated.why });
    else {
      conditions.push(translated.expression);
      for (const status of translated.statuses) watched.add(status);
    }
  }
  const requests = requestNames(options);
  const processor = processorSource({
    interface: options.scenario.interface,
    identityHeader: options.scenario.interface === 'A' ? Headers.source : Headers.provider,
    identity: options.identity,
    secretEnv: options.secretEnv,
    repeatShare: options.scenario.repeatShare,
    templates: Object.fromEntries(requests.map((request) => [request.name, request.template])),
    watchedStatuses: [...watched].sort((a, b) => a - b),
    poolSize: LOAD_BOUNDS.repeatPool,
    generator: options.generator,
  });
  return {
    files: [
      { name: SCRIPT_FILE, content: scriptYaml(options, { origin, path, requests, conditions, untranslated }) },
      { name: PROCESSOR_FILE, content: processor },
      { name: 'package.json', content: packageJson(options) },
      { name: 'README.md', content: readme(options, untranslated) },
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

function requestNames(options: ArtilleryExportOptions): RequestKind[] {
  if (options.scenario.interface === 'A') {
    const job = sampleJob({ ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}), ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}) });
    return [{ name: 'contact-job', weight: 1, template: job }];
  }
  const mix = options.scenario.mix.length > 0 ? options.scenario.mix : [{ type: 'conversation.message' as const, weight: 1 }];
  return mix.map((entry) => ({ name: entry.type, weight: entry.weight, template: sampleEvent(entry.type) }));
}

// ----------------------------------------------------------------------------------------------- ensure

/** Artillery's summaries of http.response_time (p999 is left out: the plugin's name matching would take p99 in it). */
const SUMMARY = { avg: 'mean', min: 'min', max: 'max', med: 'median' } as const;
const PERCENTILES = new Set([50, 75, 90, 95, 99]);
const OPERATORS = { '<': '<', '<=': '<=', '>': '>', '>=': '>=', '==': '==', '!=': '!=' } as const;

type Translation = { expression: string; statuses: number[] } | { why: string };

/**
 * One threshold as an `ensure` condition over the report Artillery builds: its own counters (`http.requests`),
 * summaries (`http.response_time.p99`) and rates (`http.request_rate`), and the processor's `cai.*` counters. The
 * requests without an answer are `http.requests` less `cai.responses`.
 */
export function ensureCondition(threshold: Threshold): Translation {
  const op = OPERATORS[threshold.operator];
  const value = threshold.value;
  const { aggregation } = threshold;
  const counted = (name: string, statuses: number[] = []): Translation =>
    aggregation.kind === 'count' ? { expression: `${name} ${op} ${value}`, statuses } : { expression: `${name} / http.requests ${op} ${value}`, statuses };
  switch (threshold.metric) {
    case 'status': {
      const filter = threshold.filter;
      if (filter === undefined) return { why: 'no status' };
      if (filter.kind === 'error') return counted('(http.requests - cai.responses)');
      if (filter.kind === 'class') return filter.digit >= 2 && filter.digit <= 5 ? counted(`cai.status_${filter.digit}xx`) : { why: `Artillery's processor counts the classes 2xx to 5xx, not ${filter.digit}xx` };
      return counted(`cai.status_${filter.code}`, [filter.code]);
    }
    case 'http_req_duration': {
      if (threshold.filter) return { why: 'Artillery keeps one response-time summary, not one per status' };
      const name = aggregation.kind === 'p' ? (PERCENTILES.has(aggregation.percentile) ? `p${aggregation.percentile}` : undefined) : SUMMARY[aggregation.kind as keyof typeof SUMMARY];
      if (name === undefined) return { why: `Artillery summarises p50, p75, p90, p95 and p99 (and p999), not p(${aggregation.kind === 'p' ? aggregation.percentile : aggregation.kind})` };
      return { expression: `http.response_time.${name} ${op} ${value}`, statuses: [] };
    }
    case 'http_reqs':
      if (threshold.filter) {
        if (aggregation.kind !== 'count' || threshold.filter.kind !== 'code') return { why: 'a per-status rate a second has no counterpart in Artillery' };
        return { expression: `cai.status_${threshold.filter.code} ${op} ${value}`, statuses: [threshold.filter.code] };
      }
      return { expression: aggregation.kind === 'count' ? `http.requests ${op} ${value}` : `http.request_rate ${op} ${value}`, statuses: [] };
    case 'http_req_failed':
      return { expression: `(http.requests - cai.status_2xx) / http.requests ${op} ${value}`, statuses: [] };
    case 'availability':
      return { expression: `cai.answered_not_5xx / http.requests ${op} ${value}`, statuses: [] };
    case 'dropped_iterations':
      return { why: 'Artillery starts every arrival (it has no in-flight cap), so none is dropped' };
    case 'callback_first_contact':
    case 'callbacks_missing':
      return { why: 'the callbacks are timed by cai load --callbacks alone: Artillery has no listener' };
    default: {
      if (aggregation.kind !== 'count') return { why: `${threshold.metric} as a rate a second has no counterpart in Artillery` };
      const name = threshold.metric === 'repeats' ? 'cai.repeats_sent' : `cai.${threshold.metric}`;
      return { expression: `${name} ${op} ${value}`, statuses: [] };
    }
  }
}

// ----------------------------------------------------------------------------------------------- files

/** A YAML scalar: JSON's double-quoted strings are YAML too. */
const q = (text: string) => JSON.stringify(text);

interface ScriptParts {
  origin: string;
  path: string;
  requests: RequestKind[];
  conditions: string[];
  untranslated: ExportedProject['untranslated'];
}

function phaseLines(options: ArtilleryExportOptions, divisor: number, indent: string): string[] {
  const lines: string[] = [];
  for (const phase of options.scenario.phases) {
    const seconds = Math.max(1, Math.round(phase.durationMs / 1000));
    const from = round(phase.fromPerSecond / divisor);
    const to = round(phase.toPerSecond / divisor);
    lines.push(`${indent}- name: ${q(`${phase.fromPerSecond === phase.toPerSecond ? 'steady' : 'ramp'} ${describeRate(phase)}${divisor > 1 ? ` / ${divisor} workers` : ''}`)}`);
    lines.push(`${indent}  duration: ${seconds}`);
    lines.push(`${indent}  arrivalRate: ${from}`);
    if (from !== to) lines.push(`${indent}  rampTo: ${to}`);
  }
  return lines;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function scriptYaml(options: ArtilleryExportOptions, parts: ScriptParts): string {
  const lines = [
    `# Written by ${options.generator} from:`,
    `#   ${options.command}`,
    `# One machine:  ${options.secretEnv}=… npx artillery run ${SCRIPT_FILE}`,
    `# Fargate:      npx artillery run-fargate --count ${options.workers} --region REGION --environment fargate --secret ${options.secretEnv} ${SCRIPT_FILE}`,
    '# Every request is signed by the processor (cai-processor.cjs) as the CAI spec asks (§5); README.md says more.',
    'config:',
    `  target: ${q(parts.origin)}`,
    `  processor: ${q(`./${PROCESSOR_FILE}`)}`,
    '  http:',
    `    timeout: ${Math.max(1, Math.ceil(options.timeoutMs / 1000))}`,
    '  phases:',
    ...phaseLines(options, 1, '    '),
    '  environments:',
    `    # artillery run-fargate --count ${options.workers} runs this script on each worker: each sends 1/${options.workers} of the rate.`,
    '    fargate:',
    '      phases:',
    ...phaseLines(options, options.workers, '        '),
    '  plugins:',
    '    ensure: {}',
  ];
  if (parts.conditions.length > 0 || parts.untranslated.length > 0) {
    lines.push('  ensure:', '    conditions:');
    for (const expression of parts.conditions) lines.push(`      - expression: ${q(expression)}`, '        strict: true');
    if (parts.conditions.length === 0) lines.push('      []');
    for (const item of parts.untranslated) lines.push(`    # not judged by Artillery: ${item.expression.replace(/\s+/g, ' ')} (${item.why})`);
  }
  lines.push('scenarios:');
  for (const request of parts.requests) {
    lines.push(
      `  - name: ${q(request.name)}`,
      `    weight: ${request.weight}`,
      '    flow:',
      '      - post:',
      `          url: ${q(parts.path)}`,
      `          name: ${q(request.name)}`,
      '          beforeRequest: "caiSign"',
      '          afterResponse: "caiJudge"',
    );
  }
  return lines.join('\n') + '\n';
}

function packageJson(options: ArtilleryExportOptions): string {
  return (
    JSON.stringify(
      {
        name: 'cai-load-artillery',
        private: true,
        description: `The load of \`${options.command}\` as an Artillery project (written by ${options.generator})`,
        engines: { node: '>=20.19' },
        scripts: {
          load: `artillery run ${SCRIPT_FILE}`,
          'load:fargate': `artillery run-fargate --count ${options.workers} --environment fargate --secret ${options.secretEnv} ${SCRIPT_FILE}`,
        },
        devDependencies: { artillery: ARTILLERY_VERSION },
      },
      null,
      2,
    ) + '\n'
  );
}

function readme(options: ArtilleryExportOptions, untranslated: ExportedProject['untranslated']): string {
  const env = options.secretEnv;
  const lines = [
    '# CAI load test (Artillery)',
    '',
    `Written by ${options.generator} from \`${options.command}\`. It sends what \`cai load\` sends: every request freshly`,
    'signed (§5: HMAC-SHA256 over the timestamp, a dot and the exact body bytes), every document with an `event_id` of',
    'its own, and a share of repeats of earlier accepted documents, which must come back as duplicates (§2.13). The',
    `thresholds are Artillery \`ensure\` conditions in \`${SCRIPT_FILE}\`: a failed one makes the run exit 1.`,
    '',
    `Artillery ${ARTILLERY_VERSION} is pinned: the last release that runs on Node.js 20.`,
    '',
    '## The secret',
    '',
    `The processor reads the signing secret from the environment variable \`${env}\`. It is in none of these files;`,
    'do not add it to them.',
    '',
    '## One machine',
    '',
    '```sh',
    'npm install',
    `export ${env}=…            # or: npx artillery run --dotenv .env ${SCRIPT_FILE}`,
    `npx artillery run ${SCRIPT_FILE}`,
    '```',
    '',
    '## AWS Fargate',
    '',
    `\`artillery run-fargate --count N\` runs the whole script on each of N workers, so the environment \`fargate\``,
    `divides the rate by ${options.workers} (re-export with \`--workers N\` for another count). The secret goes to the`,
    `workers from AWS SSM Parameter Store, under \`/artilleryio/${env}\` in the test's region:`,
    '',
    '```sh',
    `aws ssm put-parameter --region eu-west-1 --name /artilleryio/${env} --type SecureString --value "$${env}"`,
    `npx artillery run-fargate --count ${options.workers} --region eu-west-1 --environment fargate --secret ${env} ${SCRIPT_FILE}`,
    '```',
    '',
    '## What is counted',
    '',
    'Besides Artillery\'s own metrics, the processor counts `cai.responses`, `cai.status_2xx` … `cai.status_5xx`,',
    '`cai.rejected` (4xx other than 429), `cai.retry_after_missing` (a 429 without Retry-After), `cai.repeats_sent`,',
    '`cai.duplicates_confirmed` and `cai.repeats_unrecognised` (a repeat accepted as new: an event would be recorded',
    'twice, §6.1).',
  ];
  if (untranslated.length > 0) {
    lines.push('', 'Thresholds of the `cai load` command that Artillery cannot judge (left out of `ensure`):', '');
    for (const item of untranslated) lines.push(`- \`${item.expression}\`: ${item.why}`);
  }
  return lines.join('\n') + '\n';
}

