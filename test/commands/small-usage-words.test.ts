/**
 * What a few commands say at the edges: an empty --lead-id or --branch-code is a usage error (it was sent, and
 * the platform answered 400, halfway through a flow); a bad config points to where its shape is described
 * (docs/operations.md, not the README), and names the rule an environment's name breaks (__proto__ too); a
 * sample without event_id says "no event_id"; a status in neither §7's table nor HTTP's classes is not called a 4xx.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const env = { CAI_SECRET: 'whsec_small_usage_words_0123456789ab' };
const dir = mkdtempSync(join(tmpdir(), 'cai-small-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trigger --lead-id and --branch-code', () => {
  it.each([
    ['appointment-booked', '--lead-id <id>', 'a lead_id such as lead_4f1c2a'],
    ['job', '--lead-id <id>', 'a lead_id such as lead_4f1c2a'],
    ['appointment-booked', '--branch-code <code>', 'a branch_code from the deployment catalog, such as BR-001'],
    ['job', '--branch-code <code>', 'a branch_code from the deployment catalog, such as BR-001'],
  ])('%s %s: an empty one is a usage error, nothing sent', async (flow, option, what) => {
    const server = await startScriptedServer([{ status: 202, body: { ok: true } }]);
    const flag = option.split(' ')[0] as string;
    try {
      const result = await runCli(
        ['trigger', flow, '--to', `${server.url}/events`, '--provider', 'acme', '--source', 'p', flag, ''],
        { env: { ...env, CAI_CALLBACK_SECRET: env.CAI_SECRET } },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: option '${option}' argument '' is invalid. expected ${what}, not an empty string.\nhint: run 'cai trigger --help' for its options and examples\n`,
      );
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('an invalid config file', () => {
  it("points to docs/operations.md's 'cai config' section for the shape", async () => {
    writeFileSync(join(dir, 'cai.config.json'), '{"version": 1, "environments": {"test": {"events_url": "no"}}}');
    const result = await runCli(['sign', '--interface', 'B'], { cwd: dir, env, stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[1]).toBe(
      "hint: see docs/operations.md, section 'cai config', for the shape, or run 'cai config init' in an empty directory for a starting file",
    );
  });

  it.each([
    [
      '{"version":1,"environments":{"test":{},"__proto__":{"provider_code":"acme"}}}',
      'environments.__proto__: __proto__ cannot name an environment; rename it',
    ],
    ['{"version":1,"environments":{"a b":{}}}', 'environments.a b: environment names are letters, digits, _ . -'],
    [
      '{"version":1,"default_env":"constructor","environments":{"a":{},"b":{}}}',
      'default_env: default_env names an environment that the file does not define',
    ],
  ])('%s is refused, not read without the environment', async (text, problem) => {
    const cwd = mkdtempSync(join(dir, 'env-'));
    const file = join(cwd, 'cai.config.json');
    writeFileSync(file, text);
    const result = await runCli(['config', 'show'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`error: ${file} is invalid: ${problem}`);
  });
});

describe('send-event', () => {
  const send = async (status: number, extra: string[]) => {
    const server = await startScriptedServer([{ status, body: { ok: false } }]);
    try {
      return await runCli(['send-event', '--to', `${server.url}/events`, '--provider', 'acme', '--sample', ...extra], {
        env,
      });
    } finally {
      await server.close();
    }
  };

  it('--unset event_id: "no event_id", never "event_id undefined"', async () => {
    const result = await send(202, ['--unset', 'event_id', '--no-validate']);
    expect(result.stderr).toContain('sending a generated conversation.message event, no event_id\n');
    expect(`${result.stdout}${result.stderr}`).not.toContain('undefined');
  });

  it('a 999 is not called a 4xx; a 418 still is', async () => {
    const odd = await send(999, []);
    expect(odd.code).toBe(1);
    expect(odd.stdout).toContain(
      "✘ rejected: 999 (999 is in neither §7's table nor HTTP's classes: taken as a rejection, not retried)\n",
    );
    const teapot = await send(418, []);
    expect(teapot.stdout).toContain("✘ rejected: 418 I'm a Teapot (a 4xx is not retried, §7)");
  });
});
