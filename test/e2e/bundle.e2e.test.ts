/**
 * One file to carry (`npm run bundle`, scripts/bundle.mjs): cai.mjs copied alone into an empty folder outside the
 * repository, with no node_modules in it or any folder above it, runs every command with `node cai.mjs`, the parts
 * the CLI loads lazily included (generated documents, the HTML report, completion, the worked signature example, the
 * inspector's page). The single executable (`--sea`, Node's SEA) is tested the same way, without node on the PATH.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnProcess, type CliResult } from '../helpers/cli.js';
import { SPEC_VERSION } from '../../src/spec/constants.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const work = mkdtempSync(join(tmpdir(), 'cai-bundle-'));
const built = join(work, 'built');
/** Whether this node binary can make a single executable (scripts/bundle.mjs says so when it cannot). */
const seaFuse = readFileSync(process.execPath).includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2');

let buildRun: CliResult;
beforeAll(async () => {
  buildRun = await spawnProcess(
    process.execPath,
    [join(ROOT, 'scripts', 'bundle.mjs'), '--out', built, ...(seaFuse ? ['--sea'] : [])],
    { cwd: ROOT, env: { PATH: process.env.PATH } },
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An empty folder holding only `file`, with no node_modules in it or above it. */
function carried(file: string, name: string): string {
  const dir = join(work, `${name}-${readdirSync(work).length}`);
  mkdirSync(dir);
  copyFileSync(join(built, file), join(dir, file));
  for (let at = dir; ; at = dirname(at)) {
    expect(existsSync(join(at, 'node_modules')), `${at}/node_modules`).toBe(false);
    if (dirname(at) === at) break;
  }
  return dir;
}

/** A bare environment: no NODE_PATH, no CAI_* variables; PATH as given. */
function bare(dir: string, path: string): NodeJS.ProcessEnv {
  return { PATH: path, HOME: dir, NO_COLOR: '1', LANG: 'C.UTF-8' };
}

/** The inspector's page of a mock started with --ui: its script must be the one inlined at build time. */
async function inspectorPage(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(command, [...args, 'mock', 'platform', '--provider', 'acme', '--ui', '--port', '0'], {
    cwd,
    env: { ...env, CAI_SECRET: 'whsec_bundle_ui_0123456789' },
  });
  try {
    let stderr = '';
    const ui = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const found = /inspector: (http:\/\/\S+)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.on('close', () => reject(new Error(`the mock exited: ${stderr}`)));
    });
    return await (await fetch(ui)).text();
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.on('close', resolve)));
  }
}

/** The same checks for both forms: `run(args)` runs the carried cai in its folder. */
function carriedCaiRuns(
  label: string,
  make: () => { dir: string; command: string; prefix: string[]; env: NodeJS.ProcessEnv },
) {
  let dir = '';
  let command = '';
  let prefix: string[] = [];
  let env: NodeJS.ProcessEnv = {};
  const run = (...args: string[]) => spawnProcess(command, [...prefix, ...args], { cwd: dir, env });
  beforeAll(() => ({ dir, command, prefix, env } = make()));

  it(`${label}: --version`, async () => {
    expect(await run('--version')).toEqual({ code: 0, stdout: `${version} (spec ${SPEC_VERSION})\n`, stderr: '' });
  });

  it(`${label}: conformance run --interface B --mock passes, and a broken receiver fails with a repro script`, async () => {
    // The stateful phase smaller than by default: the bundle's parts load the same (the quick start runs it whole).
    const pass = await run('conformance', 'run', '--interface', 'B', '--mock', '--generate', '300');
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n/);
    const fail = await run(
      'conformance',
      'run',
      '--interface',
      'B',
      '--mock',
      '--break',
      'no-dedupe',
      '--only',
      'B-DEDUP-001',
      '--repro-dir',
      'repro',
    );
    expect(fail.code, fail.stderr).toBe(1);
    const repro = await spawnProcess('/bin/sh', [join(dir, 'repro', 'B-DEDUP-001.sh')], { cwd: work, env });
    expect(repro.code, repro.stderr).toBe(1);
    expect(repro.stdout).toMatch(/✗ B-DEDUP-001 /);
  });

  it(`${label}: the lazily loaded parts: generated documents, JUnit and HTML reports, Interface A, completion, the signature example, schemas`, async () => {
    const generated = await run(
      'conformance',
      'run',
      '--interface',
      'B',
      '--mock',
      '--only',
      'state',
      '--generate',
      '20',
      '--junit',
      'r.xml',
      '--html',
      'r.html',
    );
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toMatch(/\n[1-9]\d* passed, 0 failed, 0 skipped\n/);
    expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toMatch(/^<\?xml /);
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    const a = await run('conformance', 'run', '--interface', 'A', '--mock', '--only', 'dedupe');
    expect(a.code, a.stderr).toBe(0);
    const completion = await run('completion', 'bash');
    expect(completion.code, completion.stderr).toBe(0);
    expect(completion.stdout).toContain('complete -');
    const example = await run('verify', '--example');
    expect(example.stdout, example.stderr).toContain('reproduced: the computed signature equals the published one');
    expect(example.code).toBe(0);
    const schema = await run('schema', 'event');
    expect(JSON.parse(schema.stdout)).toHaveProperty('$schema');
  });

  it(`${label}: the inspector's page, its script inlined`, async () => {
    const page = await inspectorPage(command, prefix, dir, env);
    expect(page).toContain('function visible(text)');
    expect(page).toContain('function copyText(button, pre, selectedLabel) {');
  });
}

describe('npm run bundle', () => {
  it('writes cai.mjs, which reads no file beside itself', () => {
    expect(buildRun.code, buildRun.stderr).toBe(0);
    expect(readdirSync(built).sort()).toEqual(seaFuse ? ['cai', 'cai.mjs'] : ['cai.mjs']);
    const text = readFileSync(join(built, 'cai.mjs'), 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).not.toMatch(/new URL\(["'`]\.{1,2}\//);
  });

  it('is the script package.json names, and its output folder is not committed', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.bundle).toBe('node scripts/bundle.mjs');
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('bundle/');
  });
});

describe('node cai.mjs, carried alone into an empty folder', () => {
  carriedCaiRuns('node cai.mjs', () => {
    const dir = carried('cai.mjs', 'mjs');
    return {
      dir,
      command: process.execPath,
      prefix: [join(dir, 'cai.mjs')],
      env: bare(dir, process.env.PATH ?? '/usr/bin:/bin'),
    };
  });
});

describe.runIf(seaFuse)('the single executable (npm run bundle -- --sea), with no node on the PATH', () => {
  carriedCaiRuns('./cai', () => {
    const dir = carried('cai', 'sea');
    return { dir, command: join(dir, 'cai'), prefix: [], env: bare(dir, '/nonexistent') };
  });

  it('names itself once in the commands it writes', async () => {
    const dir = carried('cai', 'sea-repro');
    const run = await spawnProcess(
      join(dir, 'cai'),
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--mock',
        '--break',
        'no-dedupe',
        '--only',
        'B-DEDUP-001',
        '--repro-dir',
        'repro',
        '--format',
        'table',
      ],
      { cwd: dir, env: bare(dir, '/nonexistent') },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(
        `repro: +${join(dir, 'cai').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} conformance run --interface B --mock --break no-dedupe .*--only B-DEDUP-001\n`,
      ),
    );
  });
});
