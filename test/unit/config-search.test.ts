import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { configSearch, describeConfigSearch, locateConfig } from '../../src/config/locate.js';
import { loadProfile } from '../../src/config/load.js';
import { CaiError } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';
import { sign } from '../../src/signing/sign.js';
import { useWords } from '../../src/errors.js';
import { SHARED_HINTS } from '../../src/commands/common/hints.js';

// The messages in the CLI's words (its flags), as the commands print them.
beforeAll(() => useWords(SHARED_HINTS));

const profile = (provider: string) =>
  JSON.stringify({ version: 1, environments: { test: { provider_code: provider } } });

/**
 * outer/cai.config.json       a profile above the repository: never used from inside it
 * outer/repo/.git             the repository root (a directory, or a file in a worktree)
 * outer/repo/a/b/c            where the commands run
 */
function tree(git: 'dir' | 'file' = 'dir') {
  const outer = mkdtempSync(join(tmpdir(), 'cai-config-search-'));
  const repo = join(outer, 'repo');
  const deep = join(repo, 'a', 'b', 'c');
  mkdirSync(deep, { recursive: true });
  if (git === 'dir') mkdirSync(join(repo, '.git'));
  else writeFileSync(join(repo, '.git'), 'gitdir: /elsewhere/.git/worktrees/repo\n');
  writeFileSync(join(outer, 'cai.config.json'), profile('outside'));
  return { outer, repo, deep };
}

describe('the config file is the nearest cai.config.json up to the repository root', () => {
  it('is found in the working directory, else in the nearest parent', () => {
    const { repo, deep } = tree();
    writeFileSync(join(repo, 'cai.config.json'), profile('repo'));
    expect(locateConfig(undefined, {}, deep)).toEqual({ path: join(repo, 'cai.config.json'), origin: 'parent' });
    writeFileSync(join(repo, 'a', 'cai.config.json'), profile('a'));
    expect(locateConfig(undefined, {}, deep)).toEqual({ path: join(repo, 'a', 'cai.config.json'), origin: 'parent' });
    writeFileSync(join(deep, 'cai.config.json'), profile('deep'));
    expect(locateConfig(undefined, {}, deep)).toEqual({ path: join(deep, 'cai.config.json'), origin: 'cwd' });
    expect(loadProfile({}, {}, join(repo, 'a', 'b')).chosen?.settings.provider_code).toBe('a');
  });

  it('never reads a profile above the repository root, whether .git is a directory or a worktree file', () => {
    for (const git of ['dir', 'file'] as const) {
      const { outer, repo, deep } = tree(git);
      expect(configSearch(deep)).toEqual({ top: repo, repository: true });
      expect(locateConfig(undefined, {}, deep)).toBeUndefined();
      expect(locateConfig(undefined, {}, repo)).toBeUndefined();
      // Outside the repository, the same file is the nearest one.
      expect(locateConfig(undefined, {}, outer)).toEqual({ path: join(outer, 'cai.config.json'), origin: 'cwd' });
    }
  });

  it('outside any repository, looks up to the filesystem root', () => {
    const outer = mkdtempSync(join(tmpdir(), 'cai-config-search-'));
    const deep = join(outer, 'x', 'y');
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(outer, 'cai.config.json'), profile('top'));
    expect(locateConfig(undefined, {}, deep)).toEqual({ path: join(outer, 'cai.config.json'), origin: 'parent' });
  });

  it('--config and CAI_CONFIG still win over the search', () => {
    const { outer, repo, deep } = tree();
    writeFileSync(join(repo, 'cai.config.json'), profile('repo'));
    expect(locateConfig(undefined, { CAI_CONFIG: join(outer, 'cai.config.json') }, deep)).toEqual({
      path: join(outer, 'cai.config.json'),
      origin: 'env',
    });
    expect(locateConfig('../../../../cai.config.json', { CAI_CONFIG: 'nope.json' }, deep)).toEqual({
      path: join(outer, 'cai.config.json'),
      origin: 'flag',
    });
  });

  it('a directory named cai.config.json is not a profile: the search goes on', () => {
    const { repo, deep } = tree();
    mkdirSync(join(deep, 'cai.config.json'));
    writeFileSync(join(repo, 'cai.config.json'), profile('repo'));
    expect(locateConfig(undefined, {}, deep)?.path).toBe(join(repo, 'cai.config.json'));
  });

  it('says where it looked when --env names an environment and there is no profile', () => {
    const { repo, deep } = tree();
    let error: unknown;
    try {
      loadProfile({ env: 'test' }, {}, deep);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaiError);
    expect((error as CaiError).message).toBe(
      `--env names environment test but there is no cai.config.json in ${deep} or its parents up to ${repo} (the repository root)`,
    );
    expect(describeConfigSearch(repo)).toBe(repo);
  });
});

describe('cai config show from a subdirectory', () => {
  it('shows the profile of the repository, and where it was found', async () => {
    const { repo, deep } = tree();
    writeFileSync(join(repo, 'cai.config.json'), profile('acme'));
    const result = await runCli(['config', 'show', '--json'], { cwd: deep });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      config: { path: join(repo, 'cai.config.json'), origin: 'parent' },
      chosen: 'test',
    });
    const text = await runCli(['config', 'show'], { cwd: deep });
    expect(text.stdout.split('\n')[0]).toBe(
      `config file: ${join(repo, 'cai.config.json')} (found above the working directory)`,
    );
  });

  it('is a usage error naming the directories searched when the only profile is above the repository', async () => {
    const { repo, deep } = tree();
    expect(await runCli(['config', 'show'], { cwd: deep })).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: no cai.config.json in ${deep} or its parents up to ${repo} (the repository root)\nhint: create one with 'cai config init', or name one with --config FILE or CAI_CONFIG\n`,
    });
  });

  it('a command takes its defaults from the profile found above the working directory', async () => {
    const { repo, deep } = tree();
    writeFileSync(
      join(repo, 'cai.config.json'),
      JSON.stringify({
        version: 1,
        environments: { test: { provider_code: 'acme', secrets: { events: { env: 'EVENTS_SECRET' } } } },
      }),
    );
    const body = '{"event":"job.closed","event_id":"e-1"}';
    writeFileSync(join(deep, 'body.json'), body);
    const result = await runCli(
      ['sign', '--interface', 'B', '--body', 'body.json', '--timestamp', '1767225600', '--json'],
      { cwd: deep, env: { EVENTS_SECRET: 's3cret' } },
    );
    expect(result.code).toBe(0);
    // Signed with the events secret the profile names (§5.1), so the profile was applied.
    expect(JSON.parse(result.stdout)).toEqual({
      timestamp: 1767225600,
      signature: sign('s3cret', 1767225600, Buffer.from(body)),
    });
  });
});
