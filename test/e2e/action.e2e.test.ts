/**
 * The GitHub composite action at the repository root (action.yml), checked as GitHub reads it and run as its runner
 * would: each `run` step in `bash --noprofile --norc -eo pipefail`, the `${{ … }}` expressions substituted, the
 * inputs also as INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP as files and folders of a
 * temporary directory. `uses:` steps are not run: setup-node (Node is here) and upload-artifact, whose paths must
 * then name what the run wrote.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

const text = readFileSync(join(ROOT, 'action.yml'), 'utf8');
const action = parse(text) as Action;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const root = mkdtempSync(join(tmpdir(), 'cai-action-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('action.yml', () => {
  it('is a composite action with a shell on every run step', () => {
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) {
      expect(step.run !== undefined || step.uses !== undefined, step.name).toBe(true);
      if (step.run !== undefined) expect(step.shell, step.name).toBe('bash');
    }
    expect(action.runs.steps.map((step) => step.uses).filter(Boolean)).toEqual(['actions/setup-node@v4', 'actions/upload-artifact@v4']);
  });

  it('uses every input it declares, and declares every input it uses', () => {
    const steps = JSON.stringify(action.runs.steps);
    for (const name of Object.keys(action.inputs)) expect(steps, name).toContain(`inputs.${name} `);
    for (const match of steps.matchAll(/inputs\.([\w-]+)/g)) expect(Object.keys(action.inputs)).toContain(match[1]);
    for (const output of Object.values(action.outputs)) expect(output.value).toMatch(/^\$\{\{ steps\.run\.outputs\.[\w-]+ \}\}$/);
  });

  it('is documented in docs/ci.md: every input in its table, used at the version of the package', () => {
    const page = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    const rows = page.split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([\w-]+)`/g)].map((match) => match[1]));
    expect([...documented].sort()).toEqual(Object.keys(action.inputs).sort());
    expect(page).toContain(`uses: cai-toolkit/cai@v${version}`);
    expect(page.indexOf('uses: cai-toolkit/cai@')).toBeLessThan(page.indexOf('## GitLab CI'));
  });

  it("names no version but package.json's", () => {
    const versions = [...text.matchAll(/\b\d+\.\d+\.\d+\b/g)].map((match) => match[0]);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set([version]));
  });
});

interface RunResult {
  /** Each run step's exit status, by id. */
  statuses: Record<string, number>;
  outputs: Record<string, Record<string, string>>;
  summary: string;
  uploaded?: string[];
  stderr: string;
  workspace: string;
}

/** `${{ … }}` as the runner substitutes it, for the expressions the action uses; anything else fails the test. */
function expand(value: string, context: { inputs: Record<string, string>; paths: Record<string, string>; outputs: Record<string, Record<string, string>> }): string {
  return value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_match, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return context.inputs[input[1] as string] ?? '';
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return context.outputs[output[1] as string]?.[output[2] as string] ?? '';
    if (expression in context.paths) return context.paths[expression] as string;
    throw new Error(`the test runner does not know the expression ${expression}`);
  });
}

/** `if:` as the runner evaluates it, for the terms the action uses (joined by &&). */
function condition(value: string | undefined, context: Parameters<typeof expand>[1], failed: boolean): boolean {
  if (value === undefined) return !failed;
  const inner = /^\$\{\{\s*(.*?)\s*\}\}$/.exec(value)?.[1] ?? value;
  return inner.split('&&').every((term) => {
    const t = term.trim();
    if (t === '!cancelled()' || t === 'always()') return true;
    const compare = /^(inputs\.[\w-]+) == '([^']*)'$/.exec(t);
    if (compare) return expand(`\${{ ${compare[1] as string} }}`, context) === compare[2];
    throw new Error(`the test runner does not know the condition ${t}`);
  });
}

function runAction(given: Record<string, string>, setup: { workspaceCai?: boolean; env?: NodeJS.ProcessEnv } = {}): RunResult {
  const dir = mkdtempSync(join(root, 'run-'));
  const workspace = join(dir, 'workspace');
  const temp = join(dir, 'temp');
  mkdirSync(workspace);
  mkdirSync(temp);
  if (setup.workspaceCai) {
    // cai-toolkit in the project's devDependencies: node_modules/.bin/cai-toolkit.
    mkdirSync(join(workspace, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(workspace, 'node_modules', '.bin', 'cai-toolkit'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
    chmodSync(join(workspace, 'node_modules', '.bin', 'cai-toolkit'), 0o755);
  }
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) inputs[name] = given[name] ?? input.default ?? '';
  const summary = join(dir, 'summary.md');
  writeFileSync(summary, '');
  const context = { inputs, paths: { 'github.action_path': ROOT.replace(/\/$/, ''), 'github.workspace': workspace, 'runner.temp': temp }, outputs: {} as Record<string, Record<string, string>> };
  const result: RunResult = { statuses: {}, outputs: context.outputs, summary: '', stderr: '', workspace };
  let failed = false;
  for (const [index, step] of action.runs.steps.entries()) {
    if (!condition(step.if, context, failed)) continue;
    if (step.uses?.startsWith('actions/upload-artifact@')) {
      result.uploaded = expand(step.with?.path ?? '', context).split('\n').filter((line) => line.trim() !== '');
      continue;
    }
    if (step.run === undefined) continue;
    const id = step.id ?? `step${index}`;
    const output = join(dir, `output.${id}`);
    writeFileSync(output, '');
    const script = join(dir, `${id}.sh`);
    writeFileSync(script, expand(step.run, context));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: temp,
      ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value])),
      ...setup.env,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value), context)])),
    };
    const ran = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: workspace, env, encoding: 'utf8', timeout: 120_000 });
    result.stderr += ran.stderr;
    result.statuses[id] = ran.status ?? -1;
    context.outputs[id] = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    if (ran.status !== 0) failed = true;
  }
  result.summary = readFileSync(summary, 'utf8');
  return result;
}

describe('the action, run as the runner would', () => {
  it('passes against the reference receiver with the cai of its own checkout: reports kept, summary written', () => {
    const run = runAction({ interface: 'B', mock: 'true' });
    expect(run.statuses, run.stderr).toEqual({ install: 0, run: 0 });
    expect(run.outputs.install?.bin).toBe(join(ROOT, 'bin', 'cai.js'));
    expect(run.outputs.run).toEqual({ 'exit-code': '0', junit: 'cai-conformance.xml', html: 'cai-conformance.html' });
    expect(readFileSync(join(run.workspace, 'cai-conformance.xml'), 'utf8')).toMatch(/^<\?xml /);
    expect(readFileSync(join(run.workspace, 'cai-conformance.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    expect(run.summary).toMatch(/cai conformance passed/);
    expect(run.uploaded).toEqual(['cai-conformance.xml', 'cai-conformance.html', 'cai-repro']);
  });

  it("fails the step with cai's exit code against a broken receiver, and still keeps the reports, with the workspace's cai", () => {
    const run = runAction({ interface: 'B', mock: 'true', break: 'no-dedupe', only: 'dedupe', 'repro-dir': 'repro', 'artifact-name': 'gate' }, { workspaceCai: true });
    expect(run.outputs.install?.bin).toBe(join(run.workspace, 'node_modules', '.bin', 'cai-toolkit'));
    expect(run.statuses).toEqual({ install: 0, run: 1 });
    expect(run.outputs.run?.['exit-code']).toBe('1');
    expect(run.summary).toMatch(/B-DEDUP-001/);
    expect(run.uploaded).toEqual(['cai-conformance.xml', 'cai-conformance.html', 'repro']);
    for (const path of run.uploaded ?? []) expect(existsSync(join(run.workspace, path)), path).toBe(true);
    expect(readdirSync(join(run.workspace, 'repro')).some((name) => name.endsWith('.sh'))).toBe(true);
  });

  it('passes the inputs as single words, never as shell code; args adds flags', () => {
    const run = runAction(
      { interface: 'B', target: 'http://127.0.0.1:9/events', provider: '$(touch pwned)`touch pwned2`', 'secret-env': 'GATE_SECRET', args: '--timeout 1s --concurrency 2', upload: 'false' },
      { env: { GATE_SECRET: 'whsec_action_0123456789' } },
    );
    expect(run.statuses.run).toBe(3);
    expect(run.stderr).toContain('error: target unreachable: cannot reach http://127.0.0.1:9');
    expect(readdirSync(run.workspace).filter((name) => name.startsWith('pwned'))).toEqual([]);
    expect(run.uploaded).toBeUndefined();
  });
});
