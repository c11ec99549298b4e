/**
 * The CI workflows the pages show (every ```yaml block of README.md and docs/*.md) and the action's own steps: no
 * `${{ … }}` inside a `run:` script, where the runner would paste a value into shell code; values reach scripts
 * through `env:`. docs/ci.md leads with the forms that run today (the action from a checkout, the bundle committed
 * beside the workflow) and its bundle workflow's steps run as printed against the reference platform.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { codeBlocks, type CodeBlock } from './markdown.js';

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const CI = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'cai-workflows-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A block as YAML: a fragment (steps indented as in a job) is dedented first. */
function yamlOf(block: CodeBlock): unknown {
  const indent = Math.min(
    ...block.lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0),
  );
  return parse(block.lines.map((line) => line.slice(indent)).join('\n'));
}

/** Every `run:` script in a parsed workflow, action or fragment, with the step's name. */
export function runScripts(node: unknown, name = ''): { name: string; run: string }[] {
  if (Array.isArray(node)) return node.flatMap((item) => runScripts(item, name));
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const here = typeof record.name === 'string' ? record.name : name;
  const own = typeof record.run === 'string' ? [{ name: here, run: record.run }] : [];
  return [
    ...own,
    ...Object.entries(record)
      .filter(([key]) => key !== 'run')
      .flatMap(([, value]) => runScripts(value, here)),
  ];
}

function workflowBlocks(page: string): CodeBlock[] {
  return codeBlocks(readFileSync(join(ROOT, page), 'utf8')).filter(
    (block) => block.lang === 'yaml' || block.lang === 'yml',
  );
}

describe('no ${{ }} inside a run: script', () => {
  it.each(PAGES)('%s', (page) => {
    const found: string[] = [];
    for (const block of workflowBlocks(page)) {
      for (const script of runScripts(yamlOf(block)))
        if (script.run.includes('${{'))
          found.push(`${page}:${block.line} ${script.name}: ${script.run.trim().split('\n')[0] ?? ''}`);
    }
    expect(found).toEqual([]);
  });

  it('action.yml', () => {
    const scripts = runScripts(parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((script) => script.run.includes('${{')).map((script) => script.name)).toEqual([]);
  });

  it('the check finds one (it can fail)', () => {
    const block: CodeBlock = {
      lang: 'yaml',
      line: 1,
      lines: ['      - name: smoke', '        run: |', '          cai send-event --to "${{ vars.URL }}"'],
    };
    expect(
      runScripts(yamlOf(block))
        .filter((script) => script.run.includes('${{'))
        .map((script) => script.name),
    ).toEqual(['smoke']);
  });
});

describe('docs/ci.md leads with what runs today', () => {
  const marked = (marker: string) => {
    const block = codeBlocks(CI).find((candidate) => candidate.marker === `workflow: ${marker}`);
    if (!block) throw new Error(`docs/ci.md has no <!-- workflow: ${marker} --> block`);
    return block;
  };

  it('the action from a checkout of cai first, the bundle beside the workflow next, the published form after both, labelled', () => {
    const checkout = marked('action from a checkout');
    const bundle = marked('bundle beside the workflow');
    const published = marked('published action');
    expect(checkout.line).toBeLessThan(bundle.line);
    expect(bundle.line).toBeLessThan(published.line);
    expect(CI.indexOf('uses: ./')).toBeLessThan(CI.indexOf('uses: cai-toolkit/cai@'));
    expect(CI.slice(0, CI.indexOf('uses: cai-toolkit/cai@'))).toMatch(/\n## Once cai-toolkit is published\n/);
    expect(published.lines.join('\n')).toMatch(/once the repository and its release tag are public/);
  });

  it('the action is used from the folder the workflow checked it out into', () => {
    const workflow = yamlOf(marked('action from a checkout')) as {
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
    };
    const steps = Object.values(workflow.jobs)[0]?.steps ?? [];
    const local = steps.findIndex((step) => step.uses?.startsWith('./'));
    expect(local).toBeGreaterThan(0);
    const path = (steps[local]?.uses as string).slice(2);
    const checkout = steps
      .slice(0, local)
      .find((step) => step.uses?.startsWith('actions/checkout@') && step.with?.path === path);
    expect(checkout?.with).toMatchObject({ repository: expect.any(String), path });
    expect(steps[local]?.with).toMatchObject({ interface: 'B' });
  });

  it("the bundle workflow's steps run as printed: its run: script, with the step's env, against the reference platform", async () => {
    const workflow = yamlOf(marked('bundle beside the workflow')) as {
      jobs: Record<
        string,
        { steps: { name?: string; run?: string; env?: Record<string, string>; with?: { path?: string } }[] }
      >;
    };
    const steps = Object.values(workflow.jobs)[0]?.steps ?? [];
    const gate = steps.find((step) => step.run !== undefined);
    const file = /node (\S+\.mjs) /.exec(gate?.run ?? '')?.[1];
    expect(file).toBeDefined();
    // The repository as the docs say to set it up: the bundle committed at the path the workflow names.
    const workspace = join(work, 'repo');
    mkdirSync(join(workspace, file as string, '..'), { recursive: true });
    const built = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts', 'bundle.mjs'), '--out', join(workspace, file as string, '..')],
      { encoding: 'utf8' },
    );
    expect(built.status, built.stderr).toBe(0);
    expect(existsSync(join(workspace, file as string))).toBe(true);

    const secret = 'whsec_workflow_0123456789';
    const mock = spawn(process.execPath, [BIN, 'mock', 'platform', '--provider', 'acme', '--port', '0'], {
      env: { ...process.env, NO_COLOR: '1', CAI_SECRET: secret },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        mock.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          const line = /^(http:\/\/\S+)\n/.exec(out);
          if (line) resolve(line[1] as string);
        });
        mock.on('close', () => reject(new Error('the mock exited')));
      });
      const values: Record<string, string> = {
        'vars.CAI_EVENTS_URL': url,
        'vars.CAI_PROVIDER': 'acme',
        'secrets.CAI_EVENTS_SECRET': secret,
      };
      const expand = (value: string) =>
        value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_match, expression: string) => {
          if (!(expression in values)) throw new Error(`unknown expression ${expression}`);
          return values[expression] as string;
        });
      const env = {
        PATH: process.env.PATH,
        HOME: workspace,
        NO_COLOR: '1',
        ...Object.fromEntries(Object.entries(gate?.env ?? {}).map(([name, value]) => [name, expand(value)])),
      };
      const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', gate?.run ?? ''], {
          cwd: workspace,
          env,
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n/);
      const upload = steps.find((step) => step.with?.path !== undefined)?.with?.path ?? '';
      for (const path of upload.split('\n').filter((line) => line.trim() !== '')) {
        if (path.endsWith('/')) continue; // the repro folder: only failing checks write it
        expect(existsSync(join(workspace, path)), path).toBe(true);
      }
    } finally {
      mock.kill('SIGINT');
      await new Promise((resolve) => (mock.exitCode !== null ? resolve(undefined) : mock.on('close', resolve)));
    }
  });
});
