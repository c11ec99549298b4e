import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnProcess, type CliResult } from '../helpers/cli.js';
import { SPEC_VERSION } from '../../src/spec/constants.js';

/**
 * Install by name (issue #12): the tarball of `npm pack`, installed as a user would, into an empty directory as
 * a dev dependency and globally under a prefix, runs from any directory. One pack serves every case; the two
 * installs run side by side. npm fetches the dependencies from its cache when it can (--prefer-offline).
 */

const MINUTES = 60_000;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'cai-install-'));
const project = join(work, 'project');
const globalPrefix = join(work, 'global');
const elsewhere = join(work, 'elsewhere');

let tarball = '';
let packed: string[] = [];
let projectInstall: CliResult;
let globalInstall: CliResult;

function exec(command: string, args: string[], cwd: string): Promise<CliResult> {
  // NO_COLOR: plain output to compare; npm's own update notice off so that stderr holds only what matters.
  return spawnProcess(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false' } });
}

/** npx's own warnings about the machine's npm configuration are not cai's output. */
const npx = async (args: string[], cwd: string): Promise<CliResult> => {
  // --no: never fall back to fetching a package called `cai` from the registry (an unrelated one owns that name).
  const result = await exec('npx', ['--no', '--', ...args], cwd);
  return { ...result, stderr: result.stderr.replace(/^npm (warn|notice) .*\n/gm, '') };
};

const npmInstall = (cwd: string, ...args: string[]) => exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...args], cwd);

beforeAll(async () => {
  // `npm test` has just built dist/; --ignore-scripts keeps `prepare` from rebuilding it under the other tests' feet.
  const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  const [result] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = join(work, result.filename);
  packed = result.files.map((file) => file.path);
  for (const dir of [project, elsewhere]) mkdirSync(dir);
  // What `npm init -y` writes. Without a package.json, npm installs into the nearest ancestor that has one,
  // which, in a shared temp directory, may be anything.
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  [projectInstall, globalInstall] = await Promise.all([npmInstall(project, '--save-dev', tarball), npmInstall(elsewhere, '-g', '--prefix', globalPrefix, tarball)]);
}, 5 * MINUTES);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack: the tarball carries what cai reads at run time, and no tests', () => {
  it('is named after the package, and holds the bin, the built code and the shipped signature example', () => {
    expect(manifest.name).toBe('cai-toolkit');
    expect(manifest.bin).toEqual({ cai: 'bin/cai.js', 'cai-toolkit': 'bin/cai.js' });
    expect(tarball).toBe(join(work, `cai-toolkit-${manifest.version}.tgz`));
    for (const file of ['package.json', 'bin/cai.js', 'dist/bundle/cai.js', 'dist/index.js', 'dist/index.d.ts', 'fixtures/signature-example.json']) expect(packed).toContain(file);
    expect(packed.filter((file) => /^(src|test|bench|scripts)\/|^fixtures\/(?!signature-example\.json$)/.test(file))).toEqual([]);
  });
});

describe('installed as a dev dependency into an empty directory', () => {
  it('installs without building anything in the consumer', () => {
    expect(projectInstall.code, projectInstall.stderr).toBe(0);
    expect(existsSync(join(project, 'node_modules', 'cai-toolkit', 'dist', 'main.js'))).toBe(true);
    // No TypeScript in the consumer: the tarball is installed as built, its devDependencies are not.
    expect(existsSync(join(project, 'node_modules', 'typescript'))).toBe(false);
    const written = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(written.devDependencies).toEqual({ 'cai-toolkit': expect.stringMatching(/^file:.*cai-toolkit-\d+\.\d+\.\d+\.tgz$/) });
  });

  it('npx cai --version names the tool and spec versions', { timeout: MINUTES }, async () => {
    expect(await npx(['cai', '--version'], project)).toEqual({ code: 0, stdout: `${manifest.version} (spec ${SPEC_VERSION})\n`, stderr: '' });
  });

  it('npx cai conformance run --mock --interface B: the main job passes', { timeout: 2 * MINUTES }, async () => {
    const run = await npx(['cai', 'conformance', 'run', '--mock', '--interface', 'B'], project);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n/);
    expect(run.code).toBe(0);
  });

  it('the library imports by the package name', { timeout: MINUTES }, async () => {
    const run = await exec(process.execPath, ['--input-type=module', '-e', "const m = await import('cai-toolkit'); console.log(typeof m.sign, typeof m.runConformance)"], project);
    expect(run).toEqual({ code: 0, stdout: 'function function\n', stderr: '' });
  });
});

describe('installed globally (npm install -g --prefix DIR)', () => {
  it('runs as DIR/bin/cai from another directory, with its shipped fixture', { timeout: MINUTES }, async () => {
    expect(globalInstall.code, globalInstall.stderr).toBe(0);
    const cai = join(globalPrefix, 'bin', 'cai');
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(await exec(cai, ['--version'], elsewhere)).toEqual({ code: 0, stdout: `${manifest.version} (spec ${SPEC_VERSION})\n`, stderr: '' });
    // `verify --example` reads fixtures/signature-example.json from the install, not from the working directory.
    const example = await exec(cai, ['verify', '--example'], elsewhere);
    expect(example.stdout).toContain('reproduced: the computed signature equals the published one');
    expect(example.code).toBe(0);
  });
});
