/**
 * Copy commands: a request kept by the inspector, sent again by the `cai replay` and `curl` lines it offers, run
 * for real in bash against a real mock (with `cai` on PATH being the built binary); neither line holds a secret.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { InspectorStore } from '../../../src/inspector/store.js';
import {
  copyCommands,
  copyCommandsFor,
  secretFlagOf,
  type CommandTargets,
} from '../../../src/commands/mock/copy-commands.js';
import { startInspectorServer, type RunningInspector } from '../../../src/inspector/server.js';
import { BIN } from '../../helpers/cli.js';
import { LIVE_SECRET, event, post } from '../../helpers/mock-client.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-inspector-commands-'));
const binDir = join(dir, 'bin');
spawnSync('mkdir', ['-p', binDir]);
writeFileSync(join(binDir, 'cai'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
chmodSync(join(binDir, 'cai'), 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function setUp(): Promise<{
  mock: RunningMockPlatform;
  store: InspectorStore;
  inspector: RunningInspector;
  targets: CommandTargets;
}> {
  const store = new InspectorStore();
  const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], observe: store.observe });
  closing.push(() => mock.close());
  const commands = {
    postUrl: mock.url,
    identity: 'provider' as const,
    secretFlags: { live: '--secret-env EVENTS_SECRET' },
  };
  const inspector = await startInspectorServer({
    kind: 'platform',
    store,
    signing: { identity: 'provider', credentials: [{ code: 'acme', space: 'live', secrets: [LIVE_SECRET] }] },
    mockUrl: mock.url,
    postUrl: mock.url,
    copyCommands: copyCommandsFor(commands),
    secrets: [LIVE_SECRET],
  });
  closing.push(() => inspector.close());
  return { mock, store, inspector, targets: { ...commands, inspectorUrl: inspector.url } };
}

/** Runs a command line in bash, asynchronously: the mock and the inspector answer it from this process. */
function bash(command: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // stdin not a socket (bash would read ~/.bashrc), and a home of its own.
    const child = spawn('bash', ['-c', command], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: `${binDir}:${process.env.PATH}`, HOME: dir, EVENTS_SECRET: LIVE_SECRET, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('secretFlagOf: how a copied command names the secret', () => {
  it('keeps an environment variable or a file, and never repeats an inline secret', () => {
    expect(secretFlagOf('--secret-env EVENTS_SECRET')).toBe('--secret-env EVENTS_SECRET');
    expect(secretFlagOf('--test-secret-env ACME_TEST')).toBe('--secret-env ACME_TEST');
    expect(secretFlagOf('--secret-file /tmp/my secret')).toBe("--secret-file '/tmp/my secret'");
    expect(secretFlagOf('CAI_SECRET')).toBe('--secret-env CAI_SECRET');
    expect(secretFlagOf('--secret #1')).toBe('--secret-env CAI_SECRET');
    expect(secretFlagOf(undefined)).toBe('--secret-env CAI_SECRET');
  });
});

describe('copyCommands, run in bash', () => {
  it('re-sends a refused request with a fresh, correct signature: curl and cai replay both get 202', async () => {
    const { mock, store, targets } = await setUp();
    // A body with a quote, a newline and non-ASCII text, signed with the wrong secret: refused.
    const document = event({ text: "It's Clínica Sol:\nsee you at 10:30" });
    expect((await post(mock.url, document, { secret: 'the-wrong-secret' })).status).toBe(401);
    const refused = store.request(1);
    if (!refused) throw new Error('not kept');
    const commands = copyCommands(refused, targets);
    expect(commands.curl).toContain('cai sign --secret-env EVENTS_SECRET --timestamp "$ts"');
    expect(commands.replay).toBe(
      `curl -sS -o cai-request-1.http ${targets.inspectorUrl}api/requests/1/request.http && cai replay --request cai-request-1.http --to ${mock.url} --secret-env EVENTS_SECRET`,
    );
    for (const command of [commands.curl, commands.replay]) expect(command).not.toContain(LIVE_SECRET);

    const curl = await bash(commands.curl as string);
    expect(curl.stdout).toMatch(/^HTTP\/1\.1 202 Accepted/);
    expect(curl.stdout).toContain('{"ok":true}');
    const replay = await bash(commands.replay as string);
    expect(replay.stderr).toBe('');
    expect(replay.stdout).toContain('accepted as a duplicate (202 Accepted)');
    // What the mock received from the curl line is the same body, byte for byte.
    expect(store.request(2)?.body?.equals(refused.body as Buffer)).toBe(true);
    expect(store.request(2)?.entry.verdict).toBe('accepted');
  });

  it('fetches a body that cannot go inline (not UTF-8) into a file first', async () => {
    const { mock, store, targets } = await setUp();
    await post(mock.url, undefined, { raw: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) });
    const commands = copyCommands(store.request(1)!, targets);
    expect(commands.curl).toMatch(/^curl -sS -o cai-body-1 .*api\/requests\/1\/body && ts=\$\(date \+%s\) && curl /);
    expect(commands.curl).toContain('cai sign --secret-env EVENTS_SECRET --body cai-body-1');
    const result = await bash(commands.curl as string);
    expect(result.stdout).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(result.stdout).toContain('"error":"invalid_json"');
    expect(store.request(2)?.body?.equals(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toBe(true);
  });

  it('offers nothing to send again when the body was never read or was cut, and says why', async () => {
    const store = new InspectorStore({ maxBodyBytes: 16 });
    const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], observe: store.observe });
    closing.push(() => mock.close());
    const targets = {
      postUrl: mock.url,
      identity: 'provider' as const,
      secretFlags: { live: '--secret-env X' },
      inspectorUrl: 'http://127.0.0.1:1/',
    };
    await post(mock.url, event(), { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    await post(mock.url, event());
    expect(copyCommands(store.request(1)!, targets)).toEqual({
      notes: ['the body was not read (the headers alone decided the answer): there is no request to send again'],
    });
    expect(copyCommands(store.request(2)!, targets).notes[0]).toMatch(/^only the first 16 bytes of the body were kept/);
  });
});
