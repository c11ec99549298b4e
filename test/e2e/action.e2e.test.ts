/**
 * The GitHub composite action at the repository root (action.yml), checked as GitHub reads it and run as its runner
 * would: each `run` step in `bash --noprofile --norc -eo pipefail`, the `${{ … }}` expressions substituted, the
 * inputs also as INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP as files and folders of a
 * temporary directory, GITHUB_OUTPUT read back as the runner reads it. `uses:` steps are not run: setup-node (Node
 * is here) and upload-artifact, whose paths must then name what the run wrote.
 *
 * The action's path is a fresh clone of this repository (its committed and new files as they are now, without
 * node_modules, dist/ or bundle/), as `uses: ./cai` runs it after actions/checkout: the first run installs and builds
 * what it needs from the lockfile.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/**
 * What a clone of this repository would hold: the files git tracks and the new ones it does not ignore, with their
 * content and modes as they are now (so that the action under test is this one, committed or not).
 */
function freshClone(): string {
  const clone = join(root, 'cai');
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter((name) => name !== '')) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the work tree
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
    chmodSync(join(clone, file), statSync(join(ROOT, file)).mode);
  }
  for (const built of ['node_modules', 'dist', 'bundle'])
    if (existsSync(join(clone, built))) throw new Error(`the clone has ${built}`);
  return clone;
}
const clone = freshClone();

/** $GITHUB_OUTPUT as the runner reads it: `name=value` (up to the first `=`), or `name<<DELIMITER` … `DELIMITER`. */
function readOutputs(text: string): { outputs: Record<string, string>; names: string[] } {
  const outputs: Record<string, string> = {};
  const names: string[] = [];
  const lines = text.split('\n');
  for (let at = 0; at < lines.length; at += 1) {
    const line = lines[at] as string;
    if (line === '') continue;
    const equals = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      names.push(line.slice(0, equals));
      outputs[line.slice(0, equals)] = line.slice(equals + 1);
      continue;
    }
    if (heredoc < 0) throw new Error(`invalid line in GITHUB_OUTPUT: ${line}`);
    const name = line.slice(0, heredoc);
    const delimiter = line.slice(heredoc + 2);
    const value: string[] = [];
    for (at += 1; at < lines.length && lines[at] !== delimiter; at += 1) value.push(lines[at] as string);
    if (at >= lines.length) throw new Error(`GITHUB_OUTPUT: no closing ${delimiter} for ${name}`);
    names.push(name);
    outputs[name] = value.join('\n');
  }
  return { outputs, names };
}

describe('action.yml', () => {
  it('is a composite action with a shell on every run step', () => {
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) {
      expect(step.run !== undefined || step.uses !== undefined, step.name).toBe(true);
      if (step.run !== undefined) expect(step.shell, step.name).toBe('bash');
    }
    expect(action.runs.steps.map((step) => step.uses).filter(Boolean)).toEqual([
      'actions/setup-node@v4',
      'actions/upload-artifact@v4',
    ]);
  });

  it('uses every input it declares, and declares every input it uses', () => {
    const steps = JSON.stringify(action.runs.steps);
    for (const name of Object.keys(action.inputs)) expect(steps, name).toContain(`inputs.${name} `);
    for (const match of steps.matchAll(/inputs\.([\w-]+)/g)) expect(Object.keys(action.inputs)).toContain(match[1]);
    for (const output of Object.values(action.outputs))
      expect(output.value).toMatch(/^\$\{\{ steps\.run\.outputs\.[\w-]+ \}\}$/);
  });

  it('is documented in docs/ci.md: every input in its table, used at the version of the package', () => {
    const page = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    const rows = page.split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.flatMap((row) =>
      [...(row.split('|')[1] ?? '').matchAll(/`([\w-]+)`/g)].map((match) => match[1]),
    );
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
  /** Every output name each step wrote, in order, repeats included. */
  written: Record<string, string[]>;
}

/** `${{ … }}` as the runner substitutes it, for the expressions the action uses; anything else fails the test. */
function expand(
  value: string,
  context: {
    inputs: Record<string, string>;
    paths: Record<string, string>;
    outputs: Record<string, Record<string, string>>;
  },
): string {
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
    const compare = /^((?:inputs|steps\.[\w-]+\.outputs)\.[\w-]+) (==|!=) '([^']*)'$/.exec(t);
    if (compare) return (expand(`\${{ ${compare[1] as string} }}`, context) === compare[3]) === (compare[2] === '==');
    throw new Error(`the test runner does not know the condition ${t}`);
  });
}

function runAction(
  given: Record<string, string>,
  setup: { workspaceCai?: boolean; env?: NodeJS.ProcessEnv; actionPath?: string } = {},
): RunResult {
  const actionPath = setup.actionPath ?? clone;
  const dir = mkdtempSync(join(root, 'run-'));
  const workspace = join(dir, 'workspace');
  const temp = join(dir, 'temp');
  mkdirSync(workspace);
  mkdirSync(temp);
  if (setup.workspaceCai) {
    // cai-toolkit in the project's devDependencies: node_modules/.bin/cai-toolkit.
    mkdirSync(join(workspace, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(
      join(workspace, 'node_modules', '.bin', 'cai-toolkit'),
      `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`,
    );
    chmodSync(join(workspace, 'node_modules', '.bin', 'cai-toolkit'), 0o755);
  }
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) inputs[name] = given[name] ?? input.default ?? '';
  const summary = join(dir, 'summary.md');
  writeFileSync(summary, '');
  const context = {
    inputs,
    paths: { 'github.action_path': actionPath, 'github.workspace': workspace, 'runner.temp': temp },
    outputs: {} as Record<string, Record<string, string>>,
  };
  const result: RunResult = { statuses: {}, outputs: context.outputs, summary: '', stderr: '', workspace, written: {} };
  let failed = false;
  for (const [index, step] of action.runs.steps.entries()) {
    if (!condition(step.if, context, failed)) continue;
    if (step.uses?.startsWith('actions/upload-artifact@')) {
      result.uploaded = expand(step.with?.path ?? '', context)
        .split('\n')
        .filter((line) => line.trim() !== '');
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
      GITHUB_ACTION_PATH: actionPath,
      // npm as on a runner, less its notices; its cache is this machine's.
      npm_config_update_notifier: 'false',
      npm_config_prefer_offline: 'true',
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: temp,
      ...Object.fromEntries(
        Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value]),
      ),
      ...setup.env,
      ...Object.fromEntries(
        Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value), context)]),
      ),
    };
    // The first run from the clone installs its dependencies and builds: minutes on a loaded machine.
    const ran = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: workspace,
      env,
      encoding: 'utf8',
      timeout: 5 * 60_000,
    });
    result.stderr += ran.stderr;
    result.statuses[id] = ran.status ?? -1;
    const written = readOutputs(readFileSync(output, 'utf8'));
    context.outputs[id] = written.outputs;
    result.written[id] = written.names;
    if (ran.status !== 0) failed = true;
  }
  result.summary = readFileSync(summary, 'utf8');
  return result;
}

describe('the action, run as the runner would', () => {
  it('from a fresh clone as its path (no node_modules, no build), with cai-version empty: installs from the lockfile, builds, runs the suite, writes exit-code, the JUnit and the HTML', {
    timeout: 6 * 60_000,
  }, () => {
    expect(existsSync(join(clone, 'package-lock.json'))).toBe(true);
    const run = runAction({ interface: 'B', mock: 'true', 'cai-version': '' });
    expect(run.statuses, run.stderr).toEqual({ install: 0, run: 0 });
    expect(run.outputs.install?.bin).toBe(join(clone, 'bundle', 'cai.mjs'));
    expect(existsSync(join(clone, 'node_modules', '.package-lock.json')), 'npm ci').toBe(true);
    expect(run.outputs.run).toEqual({
      'exit-code': '0',
      junit: 'cai-conformance.xml',
      html: 'cai-conformance.html',
      'repro-dir': 'cai-repro',
    });
    expect(readFileSync(join(run.workspace, 'cai-conformance.xml'), 'utf8')).toMatch(/^<\?xml /);
    expect(readFileSync(join(run.workspace, 'cai-conformance.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    expect(run.summary).toMatch(/cai conformance passed/);
    expect(run.uploaded).toEqual(['cai-conformance.xml', 'cai-conformance.html', 'cai-repro']);
  });

  it('a second run from the same checkout builds nothing again', () => {
    const run = runAction({ interface: 'B', mock: 'true', only: 'dedupe', upload: 'false' });
    expect(run.statuses, run.stderr).toEqual({ install: 0, run: 0 });
    expect(run.stderr).not.toMatch(/npm (warn|error)/i);
    expect(run.uploaded).toBeUndefined();
  });

  it("fails the step with cai's exit code against a broken receiver, and still keeps the reports, with the workspace's cai", () => {
    const run = runAction(
      {
        interface: 'B',
        mock: 'true',
        break: 'no-dedupe',
        only: 'dedupe',
        'repro-dir': 'repro',
        'artifact-name': 'gate',
      },
      { workspaceCai: true },
    );
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
      {
        interface: 'B',
        target: 'http://127.0.0.1:9/events',
        provider: '$(touch pwned)`touch pwned2`',
        'secret-env': 'GATE_SECRET',
        args: '--timeout 1s --concurrency 2',
        upload: 'false',
      },
      { env: { GATE_SECRET: 'whsec_action_0123456789' } },
    );
    expect(run.statuses.run).toBe(3);
    expect(run.stderr).toContain('error: target unreachable: cannot reach http://127.0.0.1:9');
    expect(readdirSync(run.workspace).filter((name) => name.startsWith('pwned'))).toEqual([]);
    expect(run.uploaded).toBeUndefined();
  });

  it('$GITHUB_OUTPUT holds exactly one exit-code, and the upload only the paths given, whatever the inputs hold', () => {
    const hostile: Record<string, string>[] = [
      { junit: 'cai.xml\nexit-code=0' },
      { html: 'cai.html\n/etc/passwd' },
      { 'repro-dir': 'repro\r\nexit-code=0' },
      { args: '--timeout 1s\nexit-code=0' },
      { provider: 'acme\nexit-code=0' },
    ];
    for (const given of hostile) {
      const [name] = Object.keys(given);
      const run = runAction({ interface: 'B', mock: 'true', break: 'no-dedupe', only: 'dedupe', ...given });
      expect(run.written.run, name).toEqual(['exit-code']);
      expect(run.outputs.run, name).toEqual({ 'exit-code': '2' });
      expect(run.statuses.run, name).toBe(2);
      expect(run.stderr).toContain(`error: the action's input ${name as string} holds a line break\nhint: `);
      expect(run.uploaded, name).toBeUndefined();
    }
    // A value that looks like an output, on one line, stays the value of its own output.
    const run = runAction({
      interface: 'B',
      mock: 'true',
      break: 'no-dedupe',
      only: 'B-DEDUP-001',
      junit: 'exit-code=0',
      html: 'x<<EOF',
    });
    expect(run.statuses.run).toBe(1);
    expect(run.written.run?.filter((name) => name === 'exit-code')).toEqual(['exit-code']);
    expect(run.outputs.run).toMatchObject({ 'exit-code': '1', junit: 'exit-code=0', html: 'x<<EOF' });
    expect(run.uploaded).toEqual(['exit-code=0', 'x<<EOF', 'cai-repro']);
    expect(existsSync(join(run.workspace, 'exit-code=0'))).toBe(true);
  });
});
