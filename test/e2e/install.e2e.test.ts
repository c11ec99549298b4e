import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnProcess, type CliResult } from '../helpers/cli.js';
import { codeBlocks } from '../docs/markdown.js';
import { SPEC_VERSION } from '../../src/spec/constants.js';

/**
 * Install as docs/install.md says, and nothing that reaches another package's `cai`: the tarball `npm pack` writes (in
 * a copy of the repository's packed files, so that `prepack` strips the lifecycle scripts as it does for a user), the
 * page's tarball commands run in an empty project folder, its registry commands against a local registry that
 * serves that tarball as `cai-toolkit` (and sends npm to the real registry for everything else), the completion
 * for `npx cai-toolkit` from the installed package, and a failing run's repro script from a folder without `cai`.
 * npm fetches the dependencies from its cache when it can (--prefer-offline).
 */

const MINUTES = 60_000;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
/** The install page: its blocks marked `<!-- install: NAME -->` are run here as written. */
const INSTALL_PAGE = 'docs/install.md';
const INSTALL = readFileSync(join(ROOT, INSTALL_PAGE), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'cai-install-'));
const clone = join(work, 'clone');
const project = join(work, 'project');
const registryProject = join(work, 'registry-project');
const globalPrefix = join(work, 'global');
const elsewhere = join(work, 'elsewhere');
const version = `${manifest.version} (spec ${SPEC_VERSION})\n`;

let tarball = '';
let packed: string[] = [];
let packedManifest: Record<string, unknown> = {};
let tarballRun: CliResult;
let registryRun: CliResult;
let registry: Server;

/** No colour, no npm update notice, no audit or funding requests: stderr holds only what matters. */
const quietNpm: NodeJS.ProcessEnv = {
  NO_COLOR: '1',
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_prefer_offline: 'true',
};

function exec(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return spawnProcess(command, args, { cwd, env: { ...process.env, ...quietNpm, ...env } });
}

/** The commands of the install page's block marked `<!-- install: NAME -->`, comments dropped. */
function installBlock(name: string): string[] {
  const block = codeBlocks(INSTALL).find((candidate) => candidate.marker === `install: ${name}`);
  if (!block) throw new Error(`${INSTALL_PAGE} has no <!-- install: ${name} --> block`);
  return block.lines.map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');
}

/** Runs commands as a user types them, in bash, stopping at the first that fails. */
function runLines(lines: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return exec('bash', ['-euo', 'pipefail', '-c', lines.join('\n')], cwd, env);
}

/**
 * A registry of one package: `cai-toolkit` at the packed version, served from the tarball; every other request is
 * sent to the real registry (the dependencies), as a scoped or mirrored registry would.
 */
function startRegistry(file: string): Promise<string> {
  const bytes = readFileSync(file);
  const name = manifest.name;
  return new Promise((resolve) => {
    registry = createServer((request, response) => {
      const base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
      const tarballPath = `/${name}/-/${name}-${manifest.version}.tgz`;
      if (request.url === `/${name}`) {
        const dist = {
          tarball: `${base}${tarballPath}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        };
        const body = {
          name,
          'dist-tags': { latest: manifest.version },
          versions: { [manifest.version]: { ...packedManifest, _id: `${name}@${manifest.version}`, dist } },
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      } else if (request.url === tarballPath) {
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
      } else {
        response.writeHead(302, { location: `https://registry.npmjs.org${request.url ?? '/'}` }).end();
      }
    });
    registry.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(registry.address() as AddressInfo).port}/`));
  });
}

beforeAll(async () => {
  // A copy of what the repository packs, and the script `prepack` runs: packing it runs the lifecycle a user's
  // `npm pack` runs, without touching this checkout's package.json or rebuilding its dist/ under the other tests.
  const listed = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT);
  expect(listed.code, listed.stderr).toBe(0);
  const [dry] = JSON.parse(listed.stdout) as [{ files: { path: string }[] }];
  for (const file of [...dry.files.map((entry) => entry.path), 'scripts/pack-manifest.mjs']) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  const pack = await exec('npm', ['pack', '--json', '--pack-destination', work], clone, { CAI_PACK_PREBUILT: '1' });
  expect(pack.code, pack.stderr).toBe(0);
  const [result] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = join(work, result.filename);
  packed = result.files.map((file) => file.path);
  const extracted = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' });
  packedManifest = JSON.parse(extracted.stdout) as Record<string, unknown>;

  for (const dir of [project, registryProject, elsewhere]) mkdirSync(dir);
  // What `npm init -y` writes. Without a package.json, npm installs into the nearest ancestor that has one.
  for (const dir of [project, registryProject])
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  copyFileSync(tarball, join(project, result.filename));
  const registryUrl = await startRegistry(tarball);
  // The install page's commands, as written: from the tarball, and from the registry (global installs under a prefix).
  [tarballRun, registryRun] = await Promise.all([
    runLines(installBlock('tarball'), project),
    runLines(installBlock('registry'), registryProject, {
      npm_config_registry: registryUrl,
      npm_config_prefix: globalPrefix,
      PATH: `${join(globalPrefix, 'bin')}:${process.env.PATH ?? ''}`,
    }),
  ]);
}, 5 * MINUTES);

afterAll(async () => {
  registry?.closeAllConnections();
  await new Promise((resolve) => registry?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

describe('npm pack: the tarball', () => {
  it('holds the bin, the built code, the license and every file the docs tell a user to run, and no tests', () => {
    expect(tarball).toBe(join(work, `cai-toolkit-${manifest.version}.tgz`));
    const needed = [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/cai.js',
      'dist/bundle/cai.js',
      'dist/index.js',
      'dist/index.d.ts',
      'fixtures/signature-example.json',
      'fixtures/vectors.json',
      'fixtures/vectors/body-256k.json',
      // What the examples of operations.md and records.md read.
      'fixtures/logs/provider.ndjson',
      'fixtures/logs/platform.ndjson',
      'examples/library.mjs',
      'schemas/cai.config.schema.json',
      // The manual: the README's links and the hints' pages (docs/limits.md) resolve in an installed package too.
      'docs/README.md',
      'docs/limits.md',
      'docs/cli.md',
    ];
    for (const file of needed) expect(packed).toContain(file);
    expect(packed.filter((file) => /^(src|test|bench|scripts)\//.test(file))).toEqual([]);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) \d{4} cai contributors\n/,
    );
  });

  it('names the two commands, the repository, and has no install-time script (prepare stays in the repository)', () => {
    expect(packedManifest.bin).toEqual({ cai: 'bin/cai.js', 'cai-toolkit': 'bin/cai.js' });
    expect(packedManifest).toMatchObject({
      license: 'MIT',
      repository: { type: 'git', url: 'git+https://github.com/cai-toolkit/cai.git' },
      homepage: 'https://github.com/cai-toolkit/cai#readme',
      bugs: { url: 'https://github.com/cai-toolkit/cai/issues' },
    });
    const scripts = Object.keys(packedManifest.scripts as Record<string, string>);
    for (const lifecycle of ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'])
      expect(scripts).not.toContain(lifecycle);
    const repository = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(repository.scripts.prepare).toBe('node scripts/build.mjs --prepare');
    // The copy packed is left as it was: postpack put the original back.
    expect(JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'))).toEqual(
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')),
    );
    expect(existsSync(join(clone, '.package.json.orig'))).toBe(false);
  });
});

describe("docs/install.md's commands, from a tarball, in an empty project", () => {
  it('install it without a warning, and npx cai-toolkit runs it', () => {
    expect(installBlock('tarball')[0]).toBe(`npm install --save-dev ./cai-toolkit-${manifest.version}.tgz`);
    expect(tarballRun.code, tarballRun.stderr).toBe(0);
    expect(tarballRun.stderr).not.toMatch(/npm (warn|WARN)/);
    expect(tarballRun.stdout).toContain(version);
    expect(tarballRun.stdout).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n/);
    // No TypeScript in the consumer: the tarball is installed as built, its devDependencies are not.
    expect(existsSync(join(project, 'node_modules', 'typescript'))).toBe(false);
  });

  it('npx --no-install cai-toolkit and npx --no-install cai print the versions of the tool and of the spec', async () => {
    for (const bin of ['cai-toolkit', 'cai']) {
      const result = await exec('npx', ['--no-install', bin, '--version'], project);
      expect(result.stdout, result.stderr).toBe(version);
      expect(result.code).toBe(0);
    }
  });

  it('the library imports by the package name, and its shipped example runs', async () => {
    const run = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('cai-toolkit'); console.log(typeof m.sign, typeof m.runConformance)",
      ],
      project,
    );
    expect(run).toEqual({ code: 0, stdout: 'function function\n', stderr: '' });
    const example = await exec(
      process.execPath,
      [join(project, 'node_modules', 'cai-toolkit', 'examples', 'library.mjs')],
      project,
    );
    expect(example.stdout).toMatch(/^verify: ok\nvalid: true\n/);
    expect(example.code).toBe(0);
  });

  it('the completion for npx cai-toolkit, from the installed package, completes its commands, flags and faults', async () => {
    const script = await exec('npx', ['--no-install', 'cai-toolkit', 'completion', 'bash'], project);
    expect(script.code, script.stderr).toBe(0);
    writeFileSync(join(project, 'cai.bash'), script.stdout);
    const complete = (...words: string[]) => {
      const driver = `source cai.bash; COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); fn=$(complete -p "$1" | sed -E 's/.*-F ([^ ]+).*/\\1/'); "$fn"; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const run = spawnSync('bash', ['-c', driver, 'driver', ...words], { cwd: project, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      return run.stdout.split('\n').filter((line) => line !== '');
    };
    expect(complete('npx', 'cai-toolkit', 'mo')).toEqual(['mock']);
    expect(complete('npx', '--no-install', 'cai-toolkit', 'mock', 'platform', '--break', 'no-d')).toEqual([
      'no-dedupe',
    ]);
    expect(complete('npx', 'cai-t')).toEqual(['cai-toolkit']);
    expect(complete('cai-toolkit', 'conformance', 'r')).toEqual(['run']);
  });

  it("a failing run's repro script gives the check's verdict from any folder, with no cai on the PATH and no CAI_* variables", async () => {
    const run = await exec(
      'npx',
      [
        '--no-install',
        'cai-toolkit',
        'conformance',
        'run',
        '--interface',
        'B',
        '--mock',
        '--break',
        'no-dedupe',
        '--only',
        'dedupe',
        '--repro-dir',
        'repro',
      ],
      project,
    );
    expect(run.code, run.stderr).toBe(1);
    const scripts = readdirSync(join(project, 'repro')).filter((name) => name.endsWith('.sh'));
    expect(scripts).toContain('B-DEDUP-001.sh');
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAI_')));
    const repro = spawnSync('sh', [join(project, 'repro', 'B-DEDUP-001.sh')], {
      cwd: elsewhere,
      encoding: 'utf8',
      env: { ...env, PATH: '/usr/bin:/bin' },
    });
    expect(repro.stderr).not.toContain('not found');
    expect(repro.status).toBe(1);

    // --rerun-failed from the installed package, in another folder: exactly the checks the report says did not pass.
    const report = await exec(
      'npx',
      [
        '--no-install',
        'cai-toolkit',
        'conformance',
        'run',
        '--interface',
        'B',
        '--mock',
        '--break',
        'no-dedupe',
        '--only',
        'dedupe',
        '--json',
      ],
      project,
    );
    expect(report.code, report.stderr).toBe(1);
    const rerunDir = mkdtempSync(join(tmpdir(), 'cai-install-rerun-'));
    writeFileSync(join(rerunDir, 'report.json'), report.stdout);
    const failedIds = (JSON.parse(report.stdout) as { checks: { id: string; verdict: string }[] }).checks
      .filter((check) => check.verdict !== 'passed')
      .map((check) => check.id);
    const rerun = await exec(
      join(project, 'node_modules', '.bin', 'cai-toolkit'),
      ['conformance', 'run', '--mock', '--break', 'no-dedupe', '--rerun-failed', 'report.json', '--json'],
      rerunDir,
    );
    expect(rerun.code, rerun.stderr).toBe(1);
    expect((JSON.parse(rerun.stdout) as { checks: { id: string }[] }).checks.map((check) => check.id).sort()).toEqual(
      failedIds.sort(),
    );
    rmSync(rerunDir, { recursive: true, force: true });
  });
});

describe("docs/install.md's commands, from the registry once published", () => {
  it('install it in a project and for the machine, each runs, and nothing reaches the package that owns `cai`', () => {
    const lines = installBlock('registry');
    expect(lines).toContain('npm install --save-dev cai-toolkit');
    expect(registryRun.code, registryRun.stderr).toBe(0);
    expect(registryRun.stderr).not.toMatch(/npm (warn|WARN)/);
    expect(registryRun.stdout.split('\n').filter((line) => `${line}\n` === version)).toHaveLength(
      lines.filter((line) => line.endsWith('--version')).length,
    );
    expect(existsSync(join(registryProject, 'node_modules', 'cai-toolkit', 'bin', 'cai.js'))).toBe(true);
    expect(existsSync(join(globalPrefix, 'bin', 'cai'))).toBe(true);
    expect(existsSync(join(globalPrefix, 'bin', 'cai-toolkit'))).toBe(true);
  });

  it('runs globally from any folder, with its shipped fixture', async () => {
    const cai = join(globalPrefix, 'bin', 'cai');
    expect(readdirSync(elsewhere)).toEqual([]);
    // `verify --example` reads fixtures/signature-example.json from the install, not from the working directory.
    const example = await exec(cai, ['verify', '--example'], elsewhere);
    expect(example.stdout).toContain('reproduced: the computed signature equals the published one');
    expect(example.code).toBe(0);
  });
});

describe("the inspector's page from the tarball", () => {
  it('serves its script, inlined in the bundle (src/inspector/browser/inspector.js), with the copy function in its place', async () => {
    const cai = join(globalPrefix, 'bin', 'cai');
    const child = spawn(cai, ['mock', 'platform', '--provider', 'acme', '--ui'], {
      cwd: elsewhere,
      env: { ...process.env, NO_COLOR: '1', CAI_SECRET: 'whsec_install_ui' },
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
      const page = await (await fetch(ui)).text();
      expect(page).toContain('function visible(text)');
      expect(page).toContain('function copyText(button, pre, selectedLabel) {');
      expect(page).toContain('data-visible="');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe("no README line runs another package's `cai`", () => {
  it('every `npx cai …` of the README, docs/install.md and docs/ci.md also shows `npx cai-toolkit`', () => {
    for (const page of ['README.md', INSTALL_PAGE, 'docs/ci.md']) {
      const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
      const risky = lines.filter(
        (line) => /npx (?:-\S+ )*cai(?!-toolkit)\b/.test(line) && !line.includes('npx cai-toolkit'),
      );
      expect(risky, page).toEqual([]);
    }
  });
});
