/**
 * `cai load export` carries no secret and writes nothing it was not asked to: credentials in a URL are stripped
 * with a warning and written to no file; what comes from the user is escaped for YAML and for Artillery's `{{ }}`
 * templating (which would otherwise send `{{$processEnvironment.CAI_SECRET}}` to the target); and `--force`
 * replaces a symlink planted at an output file rather than writing through it. An empty `--out`, a folder that
 * cannot be made or a file in its place is a usage error (exit 2), at once.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnBounded } from '../helpers/bounded-spawn.js';
import { spawnCli } from '../helpers/cli.js';

const SECRET = 'whsec_export_hardening_secret';
const PASSWORD = 'hunter2-url-password';
const dir = mkdtempSync(join(tmpdir(), 'cai-export-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exportTo = (out: string, ...args: string[]) =>
  spawnCli(['load', 'export', '--engine', 'artillery', '--out', out, ...args], { env: { CAI_SECRET: SECRET } });
const filesOf = (out: string) =>
  readdirSync(out).map((name) => ({ name, text: readFileSync(join(out, name), 'utf8') }));

describe('cai load export: credentials in a URL', () => {
  it('are stripped with a warning, and written to no file (yml, processor, README, package.json)', async () => {
    const out = join(dir, 'credentials');
    const result = await exportTo(
      out,
      '--to',
      `https://load-user:${PASSWORD}@platform.example/cai/events`,
      '--provider',
      'acme',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(
      'warning: --to holds credentials (user:password@): they are left out of the project, which sends no credential but the signature\n',
    );
    expect(result.stdout).not.toContain(PASSWORD);
    const files = filesOf(out);
    expect(files.map((file) => file.name).sort()).toEqual([
      'README.md',
      'cai-load.yml',
      'cai-processor.cjs',
      'package.json',
    ]);
    for (const file of files) {
      expect(file.text, file.name).not.toContain(PASSWORD);
      expect(file.text, file.name).not.toContain('load-user');
      expect(file.text, file.name).not.toContain(SECRET);
    }
    expect(parse(files.find((file) => file.name === 'cai-load.yml')?.text ?? '').config.target).toBe(
      'https://platform.example',
    );
  });

  it('in the callback URL of Interface A too', async () => {
    const out = join(dir, 'callback-credentials');
    const result = await exportTo(
      out,
      '--interface',
      'A',
      '--to',
      'https://provider.example/cai',
      '--source',
      'platform',
      '--callback-url',
      `https://cb:${PASSWORD}@platform.example/events`,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'warning: --callback-url holds credentials (user:password@): they are left out of the project',
    );
    for (const file of filesOf(out)) expect(file.text, file.name).not.toContain(PASSWORD);
    expect(readFileSync(join(out, 'cai-processor.cjs'), 'utf8')).toContain('https://platform.example/events');
  });
});

describe("cai load export: Artillery's templating", () => {
  it('sends no {{ }} of the user to Artillery: the URL is percent-encoded, and it parses back to the same address', async () => {
    const out = join(dir, 'templating');
    const to =
      'http://127.0.0.1:9/cai/{{$processEnvironment.CAI_SECRET}}/events?key={{$processEnvironment.CAI_SECRET}}';
    const result = await exportTo(out, '--to', to, '--provider', 'acme');
    expect(result.code, result.stderr).toBe(0);
    const yaml = readFileSync(join(out, 'cai-load.yml'), 'utf8');
    expect(yaml).not.toContain('{{');
    const script = parse(yaml) as { config: { target: string }; scenarios: { flow: { post: { url: string } }[] }[] };
    const url = script.scenarios[0]?.flow[0]?.post.url ?? '';
    expect(url).toBe(
      '/cai/%7B%7B$processEnvironment.CAI_SECRET%7D%7D/events?key=%7B%7B$processEnvironment.CAI_SECRET%7D%7D',
    );
    expect(decodeURIComponent(new URL(url, script.config.target).href)).toBe(to);
    for (const file of filesOf(out)) expect(file.text, file.name).not.toContain('{{$processEnvironment');
  });

  it('refuses a header value or a host Artillery would template, naming the option (exit 2)', async () => {
    const provider = await exportTo(
      join(dir, 'provider'),
      '--to',
      'http://127.0.0.1:9/events',
      '--provider',
      '{{$processEnvironment.CAI_SECRET}}',
    );
    expect(provider.code).toBe(2);
    expect(provider.stderr).toBe(
      "error: --provider holds '{{', which Artillery would read as a template (its value would be sent instead)\nhint: pass the provider code as the receiver knows it, without '{{'\n",
    );
    const host = await exportTo(
      join(dir, 'host'),
      '--to',
      'http://a{{$processEnvironment.CAI_SECRET}}.example/events',
      '--provider',
      'acme',
    );
    expect(host.code).toBe(2);
    expect(host.stderr).toMatch(/^error: --to holds '\{\{' in its host, which Artillery would read as a template/);
    expect(existsSync(join(dir, 'provider'))).toBe(false);
  });

  it('writes YAML that parses to what was asked, whatever the characters (quotes, #, a YAML line break)', async () => {
    const out = join(dir, 'yaml');
    const to = "http://127.0.0.1:9/cai/ev'ents\":x y?z='1'&w=\u2028&v=a: b #c: d";
    const result = await exportTo(out, '--to', to, '--provider', 'acme');
    expect(result.code, result.stderr).toBe(0);
    const script = parse(readFileSync(join(out, 'cai-load.yml'), 'utf8')) as {
      config: { target: string; processor: string };
      scenarios: { flow: { post: { url: string } }[] }[];
    };
    expect(script.config.processor).toBe('./cai-processor.cjs');
    const url = script.scenarios[0]?.flow[0]?.post.url ?? '';
    // The fragment never goes on the wire: it is left out.
    const asked = new URL(to);
    asked.hash = '';
    expect(new URL(url, script.config.target).href).toBe(asked.href);
  });
});

describe('cai load export --force and symlinks', () => {
  it("replaces a link planted at an output file: the link's target stays untouched", async () => {
    const out = join(dir, 'linked');
    mkdirSync(out);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, join(out, 'cai-load.yml'));
    symlinkSync(join(dir, 'nowhere', 'dangling'), join(out, 'README.md'));
    const refused = await exportTo(out, '--to', 'http://127.0.0.1:9/events', '--provider', 'acme');
    expect(refused.code).toBe(2);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    const forced = await exportTo(out, '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    for (const name of ['cai-load.yml', 'README.md']) expect(lstatSync(join(out, name)).isFile(), name).toBe(true);
    expect(readFileSync(join(out, 'cai-load.yml'), 'utf8')).toContain('config:');
    expect(readdirSync(out).sort()).toEqual(['README.md', 'cai-load.yml', 'cai-processor.cjs', 'package.json']);
  });
});

describe('cai load export: the folder it writes to', () => {
  const args = ['--to', 'http://127.0.0.1:9/events', '--provider', 'acme'];

  it('an empty --out is refused as such, and nothing is written to the working directory', async () => {
    const cwd = join(dir, 'empty-out');
    mkdirSync(cwd);
    const result = await spawnCli(['load', 'export', '--engine', 'artillery', '--out', '', ...args], {
      cwd,
      env: { CAI_SECRET: SECRET },
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --out is empty\nhint: pass the folder to write the project to, e.g. --out load-test\n',
    });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('a folder that cannot be made (/proc/x, where Node’s recursive mkdir never settles) is refused at once', async () => {
    const result = await spawnBounded(
      ['load', 'export', '--engine', 'artillery', '--out', '/proc/cai-export', ...args],
      {
        boundMs: 30_000,
        env: { CAI_SECRET: SECRET },
      },
    );
    expect(result.killed, 'load export --out /proc/cai-export did not end').toBe(false);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: cannot create /proc/cai-export: its directory is not writable\nhint: pass a folder cai can write into (it is made if missing)\n',
    );
  });

  it('a file where the folder should be is named as such', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const result = await exportTo(file, ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot create ${file}: it exists and is not a directory\nhint: pass a folder cai can write into (it is made if missing)\n`,
    );
  });
});
