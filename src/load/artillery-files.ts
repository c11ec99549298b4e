/**
 * The text files of an exported Artillery project (./artillery.ts): the script as YAML, written through the `yaml`
 * package (every string double-quoted and escaped by it, comments as comments), package.json as JSON, and the
 * README. What they hold of the user's input is made safe by ./artillery-values.ts first: no credential, no `{{`
 * that Artillery would template.
 */
import { Document, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import type { PhaseSpec } from './schedule.js';
import { describeRate } from './schedule.js';

export const ARTILLERY_VERSION = '2.0.21';
export const SCRIPT_FILE = 'cai-load.yml';
export const PROCESSOR_FILE = 'cai-processor.cjs';

export interface Untranslated {
  expression: string;
  why: string;
}

/** What the files say: the project's scenario, already made safe to write. */
export interface ProjectText {
  /** The origin Artillery loads (`config.target`), and the path and query every request is POSTed to. */
  origin: string;
  path: string;
  phases: readonly PhaseSpec[];
  timeoutMs: number;
  workers: number;
  secretEnv: string;
  /** The scenarios: one per request kind (an event type, or the contact job), with its weight. */
  requests: readonly { name: string; weight: number }[];
  conditions: readonly string[];
  untranslated: readonly Untranslated[];
  /** `cai 0.2.0`, and the `cai load …` command line the project stands for (no secret, no credential in it). */
  generator: string;
  command: string;
}

/** A comment's text on one line: what a newline or a control character would break is a space. */
const oneLine = (text: string) => text.replace(/[\s\p{Cc}]+/gu, ' ').trim();

const round = (value: number) => Math.round(value * 1000) / 1000;

function phasesFor(phases: readonly PhaseSpec[], divisor: number): Record<string, unknown>[] {
  return phases.map((phase) => {
    const from = round(phase.fromPerSecond / divisor);
    const to = round(phase.toPerSecond / divisor);
    const kind = phase.fromPerSecond === phase.toPerSecond ? 'steady' : 'ramp';
    return {
      name: `${kind} ${describeRate(phase)}${divisor > 1 ? ` / ${divisor} workers` : ''}`,
      duration: Math.max(1, Math.round(phase.durationMs / 1000)),
      arrivalRate: from,
      ...(from !== to ? { rampTo: to } : {}),
    };
  });
}

/** cai-load.yml. */
export function scriptYaml(text: ProjectText): string {
  const doc = new Document({
    config: {
      target: text.origin,
      processor: `./${PROCESSOR_FILE}`,
      http: { timeout: Math.max(1, Math.ceil(text.timeoutMs / 1000)) },
      phases: phasesFor(text.phases, 1),
      environments: { fargate: { phases: phasesFor(text.phases, text.workers) } },
      plugins: { ensure: {} },
      ...(text.conditions.length > 0 || text.untranslated.length > 0 ? { ensure: { conditions: text.conditions.map((expression) => ({ expression, strict: true })) } } : {}),
    },
    scenarios: text.requests.map((request) => ({
      name: request.name,
      weight: request.weight,
      flow: [{ post: { url: text.path, name: request.name, beforeRequest: 'caiSign', afterResponse: 'caiJudge' } }],
    })),
  });
  doc.commentBefore = [
    ` Written by ${text.generator} from:`,
    `   ${oneLine(text.command)}`,
    ` One machine:  ${text.secretEnv}=… npx artillery run ${SCRIPT_FILE}`,
    ` Fargate:      npx artillery run-fargate --count ${text.workers} --region REGION --environment fargate --secret ${text.secretEnv} ${SCRIPT_FILE}`,
    ` Every request is signed by the processor (${PROCESSOR_FILE}) as the CAI spec asks (§5); README.md says more.`,
  ].join('\n');
  const environments = doc.getIn(['config', 'environments'], true) as YAMLMap<Scalar, unknown>;
  const fargate = environments.items[0];
  if (fargate) {
    fargate.key = doc.createNode(fargate.key) as unknown as Scalar;
    fargate.key.commentBefore = ` artillery run-fargate --count ${text.workers} runs this script on each worker: each sends 1/${text.workers} of the rate.`;
  }
  if (text.untranslated.length > 0) {
    const conditions = doc.getIn(['config', 'ensure', 'conditions'], true) as YAMLSeq;
    conditions.comment = text.untranslated.map((item) => ` not judged by Artillery: ${oneLine(item.expression)} (${oneLine(item.why)})`).join('\n');
  }
  return doc.toString({ defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
}

/** package.json: Artillery pinned at 2.0.21, the last release that runs on Node 20, with `engines`. */
export function packageJson(text: ProjectText): string {
  const manifest = {
    name: 'cai-load-artillery',
    private: true,
    description: `The load of \`${oneLine(text.command)}\` as an Artillery project (written by ${text.generator})`,
    engines: { node: '>=20.19' },
    scripts: {
      load: `artillery run ${SCRIPT_FILE}`,
      'load:fargate': `artillery run-fargate --count ${text.workers} --environment fargate --secret ${text.secretEnv} ${SCRIPT_FILE}`,
    },
    devDependencies: { artillery: ARTILLERY_VERSION },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** A code block that holds `code` whatever backticks it has: a fence longer than its longest run of them. */
function fenced(code: string): string[] {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}sh`, code, fence];
}

/** README.md: both commands, and how the secret is passed. */
export function readme(text: ProjectText): string {
  const env = text.secretEnv;
  const lines = [
    '# CAI load test (Artillery)',
    '',
    `Written by ${text.generator} from this command:`,
    '',
    ...fenced(oneLine(text.command)),
    '',
    'It sends what `cai load` sends: every request freshly signed (§5: HMAC-SHA256 over the timestamp, a dot and the',
    'exact body bytes), every document with an `event_id` of its own, and a share of repeats of earlier accepted',
    'documents, which must come back as duplicates (§2.13). The thresholds are Artillery `ensure` conditions in',
    `\`${SCRIPT_FILE}\`: a failed one makes the run exit 1.`,
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
    `divides the rate by ${text.workers} (re-export with \`--workers N\` for another count). The secret goes to the`,
    `workers from AWS SSM Parameter Store, under \`/artilleryio/${env}\` in the test's region:`,
    '',
    '```sh',
    `aws ssm put-parameter --region eu-west-1 --name /artilleryio/${env} --type SecureString --value "$${env}"`,
    `npx artillery run-fargate --count ${text.workers} --region eu-west-1 --environment fargate --secret ${env} ${SCRIPT_FILE}`,
    '```',
    '',
    '## What is counted',
    '',
    "Besides Artillery's own metrics, the processor counts `cai.responses`, `cai.status_2xx` … `cai.status_5xx`,",
    '`cai.rejected` (4xx other than 429), `cai.retry_after_missing` (a 429 without Retry-After), `cai.repeats_sent`,',
    '`cai.duplicates_confirmed` and `cai.repeats_unrecognised` (a repeat accepted as new: an event would be recorded',
    'twice, §6.1).',
  ];
  if (text.untranslated.length > 0) {
    lines.push('', 'Thresholds of the `cai load` command that Artillery cannot judge (left out of `ensure`):', '');
    for (const item of text.untranslated) lines.push(`- ${oneLine(item.expression)}: ${oneLine(item.why)}`);
  }
  return `${lines.join('\n')}\n`;
}
