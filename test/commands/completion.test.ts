import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { flowNames } from '../../src/send/flows.js';
import { runCli } from '../helpers/cli.js';
import { buildProgram } from '../../src/program.js';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../../src/mock/faults.js';
import { EVENT_TYPES } from '../../src/spec/constants.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-completion-'));
const scripts: Record<string, string> = {};

/** A command's visible flags as commander holds them, global ones and help included (hidden ones are not offered). */
function flagsOf(command: Command): string[] {
  const flags = (c: Command) =>
    c.options
      .filter((option) => !option.hidden)
      .flatMap((option) => [option.short, option.long].filter((flag): flag is string => flag !== undefined));
  const own = [...flags(command), '-h', '--help'];
  for (let parent = command.parent; parent; parent = parent.parent) own.push(...flags(parent));
  return [...new Set(own)].sort();
}

function shellExists(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

/**
 * Runs the bash completion function as bash would for `words` (the last is the word being completed) and returns
 * COMPREPLY. COMP_WORDS is given word by word, as bash splits them (`--break=` is `--break` then `=`).
 */
function completeBash(...words: string[]): string[] {
  const driver = `
source "$1"; shift
COMP_WORDS=("$@")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}
function_name=$(complete -p cai | sed -E 's/.*-F ([^ ]+).*/\\1/')
"$function_name"
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const run = spawnSync('bash', ['-c', driver, 'driver', join(dir, 'cai.bash'), ...words], {
    cwd: dir,
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter((line) => line !== '');
}

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await runCli(['completion', shell]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    scripts[shell] = result.stdout;
    writeFileSync(join(dir, `cai.${shell}`), result.stdout);
  }
  writeFileSync(join(dir, 'events.ndjson'), '');
});

describe('cai completion bash', () => {
  it('is valid bash and registers a completion function for cai', () => {
    const check = spawnSync('bash', ['-n', join(dir, 'cai.bash')], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(scripts.bash).toMatch(/^complete -F _cai cai cai-toolkit$/m);
    expect(scripts.bash).toMatch(/^complete -F _cai_npx -o default npx$/m);
  });

  it('completes commands, subcommands and flags', () => {
    expect(completeBash('cai', 'mo')).toEqual(['mock']);
    expect(completeBash('cai', 'mock', 'p')).toEqual(['platform', 'provider']);
    expect(completeBash('cai', 'mock', 'platform', '--br')).toEqual(['--break']);
    expect(completeBash('cai', 'co')).toEqual(['conformance', 'config', 'completion']);
    expect(completeBash('cai', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes --break with the fault names of the mock it is given to', () => {
    expect(completeBash('cai', 'mock', 'platform', '--break', '')).toEqual(Object.keys(PLATFORM_FAULTS));
    expect(completeBash('cai', '--json', 'mock', 'provider', '--port', '0', '--break', '')).toEqual(
      Object.keys(PROVIDER_FAULTS),
    );
    expect(completeBash('cai', 'mock', 'platform', '--break', 'no-d')).toEqual(['no-dedupe']);
    expect(completeBash('cai', 'mock', 'platform', '--break', '=', '')).toEqual(Object.keys(PLATFORM_FAULTS));
    expect(completeBash('cai', 'mock', 'platform', '--break', '=')).toEqual(Object.keys(PLATFORM_FAULTS));
  });

  it('completes event types, interfaces, formats and files where a flag or argument takes them', () => {
    expect(completeBash('cai', 'sample', 'event', '')).toEqual([...EVENT_TYPES]);
    expect(completeBash('cai', 'send-event', '--sample', 'app')).toEqual(
      EVENT_TYPES.filter((type) => type.startsWith('app')),
    );
    // --sample's value is optional: a word after it that starts with - is the next flag.
    expect(completeBash('cai', 'send-event', '--sample', '--t')).toEqual(['--to', '--timeout', '--tls']);
    expect(completeBash('cai', 'send-event', '--sample', 'job.closed', '--t')).toEqual(['--to', '--timeout', '--tls']);
    expect(completeBash('cai', 'conformance', 'run', '--interface', '')).toEqual(['A', 'B']);
    expect(completeBash('cai', 'report', '--format', '')).toEqual(['table', 'json', 'csv']);
    expect(completeBash('cai', 'report', '--log', 'ev')).toEqual(['events.ndjson']);
    // A value with no known set (a URL) gets nothing rather than the command's flags.
    expect(completeBash('cai', 'send-event', '--to', '')).toEqual([]);
  });

  it('completes the flows of cai trigger', () => {
    expect(completeBash('cai', 'trigger', '')).toEqual(flowNames());
    expect(completeBash('cai', 'trigger', 'job-closed-no')).toEqual([
      'job-closed-no-answer',
      'job-closed-not-interested',
    ]);
    expect(completeBash('cai', 'tri')).toEqual(['trigger']);
  });

  it('lists exactly the flags commander accepts, for every command (the script is read from the program)', async () => {
    const program = await buildProgram({
      io: { stdout: process.stdout, stderr: process.stderr } as never,
      exitCode: 0,
    });
    const leaves: [string[], Command][] = [];
    const walk = (command: Command, path: string[]) => {
      if (command.commands.length === 0) leaves.push([path, command]);
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(program, []);
    expect(leaves.length).toBeGreaterThan(15);
    for (const [path, command] of leaves) {
      expect(completeBash('cai', ...path, '-').sort(), path.join(' ')).toEqual(flagsOf(command));
    }
  });
});

describe('the same completions for cai-toolkit and npx cai-toolkit', () => {
  /** Runs the function bound to the first word (cai, cai-toolkit or npx), as bash would. */
  function completeAs(...words: string[]): string[] {
    const driver = `
source "$1"; shift
COMP_WORDS=("$@")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
fn=$(complete -p "$1" | sed -E 's/.*-F ([^ ]+).*/\\1/')
"$fn"
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const run = spawnSync('bash', ['-c', driver, 'driver', join(dir, 'cai.bash'), ...words], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    return run.stdout.split('\n').filter((line) => line !== '');
  }

  it('bash: cai-toolkit as cai; after npx cai-toolkit (and npx flags) as cai; the package name after npx', () => {
    expect(completeAs('cai-toolkit', 'mock', 'p')).toEqual(['platform', 'provider']);
    expect(completeAs('npx', 'cai-toolkit', 'mo')).toEqual(['mock']);
    expect(completeAs('npx', '--yes', 'cai-toolkit@0.2.0', 'mock', 'platform', '--break', 'no-d')).toEqual([
      'no-dedupe',
    ]);
    expect(completeAs('npx', 'cai-t')).toEqual(['cai-toolkit']);
    // Another command run by npx is not cai's: none of cai's words are offered for it.
    expect(completeAs('npx', 'eslint', 'mo')).toEqual([]);
  });

  it.skipIf(!shellExists('fish'))('fish: cai-toolkit wraps cai; npx cai-toolkit completes as cai', () => {
    const fish = (line: string) =>
      spawnSync('fish', ['-c', `source ${join(dir, 'cai.fish')}; complete -C ${JSON.stringify(line)}`], {
        encoding: 'utf8',
      })
        .stdout.split('\n')
        .filter((entry) => entry !== '')
        .map((entry) => entry.split('\t')[0]);
    expect(fish('cai-toolkit mock p')).toEqual(['platform', 'provider']);
    expect(fish('npx cai-toolkit mo')).toEqual(['mock']);
    expect(fish('npx --yes cai-toolkit mock platform --break no-d')).toEqual(['no-dedupe']);
  });

  it.skipIf(!shellExists('zsh'))('zsh: npx cai-toolkit hands the words after it to _cai, as cai would see them', () => {
    // compsys is not loaded here: _cai is replaced by a probe that prints the words and the cursor it is given.
    const probe = `compdef() { :; }; source ${join(dir, 'cai.zsh')}; _cai() { print -r -- "$CURRENT:\${(j:,:)words}"; }
words=(npx --yes cai-toolkit mock pl); CURRENT=5; _cai_npx`;
    expect(spawnSync('zsh', ['-c', probe], { encoding: 'utf8' })).toMatchObject({
      status: 0,
      stdout: '3:cai,mock,pl\n',
    });
  });
});

describe('cai completion zsh and fish', () => {
  it('zsh: autoloadable as _cai, registers itself when evaluated, and holds the fault names per mock', () => {
    expect(scripts.zsh?.split('\n')[0]).toBe('#compdef cai cai-toolkit npx');
    expect(scripts.zsh).toContain('compdef _cai cai cai-toolkit');
    expect(scripts.zsh).toContain('compdef _cai_npx npx');
    expect(scripts.zsh).toContain(`'mock platform|--break') reply=(${Object.keys(PLATFORM_FAULTS).join(' ')}) ;;`);
    expect(scripts.zsh).toContain(`'sample event') reply=(${EVENT_TYPES.join(' ')}) ;;`);
  });

  it('fish: one complete line per flag, with the values it takes', () => {
    expect(scripts.fish).toMatch(/^complete -c cai -f$/m);
    expect(scripts.fish).toContain(
      `complete -c cai -n "__cai_is 'mock provider'" -l break -r -a '${Object.keys(PROVIDER_FAULTS).join(' ')}'`,
    );
    expect(scripts.fish).toContain(
      `complete -c cai -n "__cai_after 'send-event' --sample" -a '${EVENT_TYPES.join(' ')}'`,
    );
    expect(scripts.fish).toContain(`complete -c cai -n "__cai_is 'mock'" -a platform -d `);
  });

  it.skipIf(!shellExists('zsh'))('zsh -n accepts the script', () => {
    expect(spawnSync('zsh', ['-n', join(dir, 'cai.zsh')], { encoding: 'utf8' })).toMatchObject({
      status: 0,
      stderr: '',
    });
  });

  it.skipIf(!shellExists('fish'))('fish -n accepts the script', () => {
    expect(spawnSync('fish', ['-n', join(dir, 'cai.fish')], { encoding: 'utf8' })).toMatchObject({
      status: 0,
      stderr: '',
    });
  });
});

describe('cai completion: usage', () => {
  it('names the shells when none or another is given', async () => {
    expect(await runCli(['completion'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: missing required argument 'shell'\nhint: run 'cai completion --help' for its options and examples\n",
    });
    expect((await runCli(['completion', 'tcsh'])).stderr).toContain('Allowed choices are bash, zsh, fish.');
  });

  it('--json wraps the script in one document', async () => {
    const result = await runCli(['completion', 'fish', '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ shell: 'fish', script: scripts.fish });
  });
});
