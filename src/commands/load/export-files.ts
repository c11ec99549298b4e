/**
 * The files of `cai load export --engine artillery` (the project src/load/artillery.ts plans): the script as YAML,
 * written through the `yaml` package (every string double-quoted and escaped by it, comments as comments), the
 * processor as the plan holds it, package.json as JSON, and the README. What they hold of the user's input was made
 * safe by the plan (no credential, no `{{` Artillery would template): a `{{` left in the script would be a bug, and
 * is refused rather than written.
 */
import { Document, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { ARTILLERY_VERSION, isTemplateFree, type ArtilleryPlan } from '../../load/artillery.js';
import type { PhaseSpec } from '../../load/schedule.js';
import { describeRate } from '../../load/schedule.js';

export const SCRIPT_FILE = 'cai-load.yml';
export const PROCESSOR_FILE = 'cai-processor.cjs';

/** What the files name besides the plan: `cai 0.2.0`, and the `cai load …` command line (no secret, no credential). */
export interface ProjectText {
  generator: string;
  command: string;
}

export function projectFiles(plan: ArtilleryPlan, text: ProjectText): { name: string; content: string }[] {
  const script = scriptYaml(plan, text);
  if (!isTemplateFree(script))
    throw new Error(`${SCRIPT_FILE} would hold '{{': a value escaped neither for YAML nor for Artillery`);
  return [
    { name: SCRIPT_FILE, content: script },
    { name: PROCESSOR_FILE, content: plan.processor },
    { name: 'package.json', content: packageJson(plan, text) },
    { name: 'README.md', content: readme(plan, text) },
  ];
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
function scriptYaml(plan: ArtilleryPlan, text: ProjectText): string {
  const doc = new Document({
    config: {
      target: plan.origin,
      processor: `./${PROCESSOR_FILE}`,
      http: { timeout: Math.max(1, Math.ceil(plan.timeoutMs / 1000)) },
      phases: phasesFor(plan.phases, 1),
      environments: { fargate: { phases: phasesFor(plan.phases, plan.workers) } },
      plugins: { ensure: {} },
      ...(plan.conditions.length > 0 || plan.untranslated.length > 0
        ? { ensure: { conditions: plan.conditions.map((expression) => ({ expression, strict: true })) } }
        : {}),
    },
    scenarios: plan.requests.map((request) => ({
      name: request.name,
      weight: request.weight,
      flow: [{ post: { url: plan.path, name: request.name, beforeRequest: 'caiSign', afterResponse: 'caiJudge' } }],
    })),
  });
  doc.commentBefore = [
    ` Written by ${text.generator} from:`,
    `   ${oneLine(text.command)}`,
    ` One machine:  ${plan.secretEnv}=… npx artillery run ${SCRIPT_FILE}`,
    ` Fargate:      npx artillery run-fargate --count ${plan.workers} --region REGION --environment fargate --secret ${plan.secretEnv} ${SCRIPT_FILE}`,
    ` Every request is signed by the processor (${PROCESSOR_FILE}) as the CAI spec asks (§5); README.md says more.`,
  ].join('\n');
  const environments = doc.getIn(['config', 'environments'], true) as YAMLMap<Scalar, unknown>;
  const fargate = environments.items[0];
  if (fargate) {
    fargate.key = doc.createNode(fargate.key) as unknown as Scalar;
    fargate.key.commentBefore = ` artillery run-fargate --count ${plan.workers} runs this script on each worker: each sends 1/${plan.workers} of the rate.`;
  }
  if (plan.untranslated.length > 0) {
    const conditions = doc.getIn(['config', 'ensure', 'conditions'], true) as YAMLSeq;
    conditions.comment = plan.untranslated
      .map((item) => ` not judged by Artillery: ${oneLine(item.expression)} (${oneLine(item.why)})`)
      .join('\n');
  }
  return doc.toString({ defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
}

/** package.json: Artillery pinned at 2.0.21, the last release that runs on Node 20, with `engines`. */
function packageJson(plan: ArtilleryPlan, text: ProjectText): string {
  const manifest = {
    name: 'cai-load-artillery',
    private: true,
    description: `The load of \`${oneLine(text.command)}\` as an Artillery project (written by ${text.generator})`,
    engines: { node: '>=20.19' },
    scripts: {
      load: `artillery run ${SCRIPT_FILE}`,
      'load:fargate': `artillery run-fargate --count ${plan.workers} --environment fargate --secret ${plan.secretEnv} ${SCRIPT_FILE}`,
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
function readme(plan: ArtilleryPlan, text: ProjectText): string {
  const env = plan.secretEnv;
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
    `divides the rate by ${plan.workers} (re-export with \`--workers N\` for another count). The secret goes to the`,
    `workers from AWS SSM Parameter Store, under \`/artilleryio/${env}\` in the test's region:`,
    '',
    '```sh',
    `aws ssm put-parameter --region eu-west-1 --name /artilleryio/${env} --type SecureString --value "$${env}"`,
    `npx artillery run-fargate --count ${plan.workers} --region eu-west-1 --environment fargate --secret ${env} ${SCRIPT_FILE}`,
    '```',
    '',
    '## What is counted',
    '',
    "Besides Artillery's own metrics, the processor counts `cai.responses`, `cai.status_2xx` … `cai.status_5xx`,",
    '`cai.rejected` (4xx other than 429), `cai.retry_after_missing` (a 429 without Retry-After), `cai.repeats_sent`,',
    '`cai.duplicates_confirmed` and `cai.repeats_unrecognised` (a repeat accepted as new: an event would be recorded',
    'twice, §6.1).',
  ];
  if (plan.untranslated.length > 0) {
    lines.push('', 'Thresholds of the `cai load` command that Artillery cannot judge (left out of `ensure`):', '');
    for (const item of plan.untranslated) lines.push(`- ${oneLine(item.expression)}: ${oneLine(item.why)}`);
  }
  return `${lines.join('\n')}\n`;
}
