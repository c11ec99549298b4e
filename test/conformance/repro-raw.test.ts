/**
 * Two reproductions that once lied, run for real: B-AUTH-009 (a millisecond timestamp, correctly signed) against a
 * receiver that wrongly accepts it is sent as a raw request signed over the milliseconds (`cai sign` refuses such a
 * timestamp), and exits 1; against a correct receiver it exits 0. BS-SIG-001 (the provider's events signed with the
 * wrong secret) runs the check again (exit 1, then 0 once the provider is fixed), and the command it writes beside it
 * to judge the saved event again is one `cai verify` takes (never exit 2 for an unknown option).
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockPlatform } from '../../src/mock/platform.js';
import { startMockProvider } from '../../src/mock/provider.js';
import { BIN } from '../helpers/cli.js';

const SECRET = 'whsec_repro_raw_0123456789';
const CALLBACK_SECRET = 'whsec_repro_raw_callbacks_0123';
const root = mkdtempSync(join(tmpdir(), 'cai-repro-raw-'));
const scratch = join(root, 'tmp');
mkdirSync(scratch);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = {
  PATH: process.env.PATH,
  NO_COLOR: '1',
  TMPDIR: scratch,
  CAI_SECRET: SECRET,
  CAI_CALLBACK_SECRET: CALLBACK_SECRET,
};

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const HOSTILE_ANSWER =
  '{"ok":true,"x":"\u001b[2J\r\u009b31m\u202eRTL\u2028"}\n  ::error::INJECTED\nsay ##[error]LEGACY';

/** A receiver of events that checks the HMAC over the timestamp as sent (§5.2) but no window at all: a ms timestamp passes. */
async function windowlessReceiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const timestamp = String(request.headers['x-cai-timestamp'] ?? '');
      const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.`).update(Buffer.concat(chunks)).digest('hex')}`;
      const ok = request.headers['x-cai-signature'] === expected && request.headers['x-cai-provider'] === 'acme';
      response.writeHead(ok ? 202 : 401, { 'content-type': 'application/json' });
      // A hostile answer too, which the script must print escaped: a raw ESC sequence (clear the screen), a lone CR,
      // U+009B (CSI to some terminals), a bidi override, a line separator, and lines a GitHub Actions runner would
      // run as workflow commands.
      response.end(ok ? HOSTILE_ANSWER : JSON.stringify({ ok: false, error: 'invalid_signature' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events` };
}

const closeServer = (server: Server) => new Promise((resolve) => server.close(resolve));

async function onPort<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

interface Checked {
  id: string;
  verdict: string;
  repro?: { command: string; script: string };
}

describe('reproductions that send what a helper command would refuse', () => {
  it('B-AUTH-009 against a receiver that accepts a millisecond timestamp: a raw request, exit 1; against a correct one, exit 0', async () => {
    const { server, url } = await windowlessReceiver();
    const port = Number(new URL(url).port);
    let check: Checked | undefined;
    try {
      const result = await run(process.execPath, [
        BIN,
        '--json',
        'conformance',
        'run',
        '--interface',
        'B',
        '--target',
        url,
        '--provider',
        'acme',
        '--secret-env',
        'CAI_SECRET',
        '--only',
        'B-AUTH-009',
        '--repro-dir',
        join(root, 'auth-009'),
      ]);
      check = (JSON.parse(result.stdout) as { checks: Checked[] }).checks.find((entry) => entry.id === 'B-AUTH-009');
      expect(check?.verdict, result.stderr).toBe('failed');
      const script = readFileSync(check?.repro?.script as string, 'utf8');
      // Signed over the milliseconds as sent, not by `cai sign --timestamp <ms>` (which refuses it).
      expect(script).toContain('ts_sent=$(( ts * 1000 + 123 ))');
      expect(script).not.toMatch(/ sign .*--timestamp \$ts_sent/);
      const shown = await run('sh', [check?.repro?.script as string]);
      expect(shown.code, `${shown.stdout}\n${shown.stderr}`).toBe(1);
      expect(shown.stdout).toMatch(/^HTTP\/1\.1 202 /);
      expect(shown.stdout).toContain(
        '{"ok":true,"x":"\\x1b[2J\\r\\u009b31m\\u202eRTL\\u2028"}\n  \\x3a:error::INJECTED\nsay #\\x23[error]LEGACY\n',
      );
      expect(shown.stdout.replace(/\r\n/g, '\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u202e]/);
      expect(shown.stdout).not.toMatch(/^\s*::|##\[/m);
    } finally {
      await closeServer(server);
    }
    const correct = await onPort(() =>
      startMockPlatform({ providerCode: 'acme', secrets: [SECRET], keepRecords: false, port }),
    );
    try {
      const fixed = await run('sh', [check?.repro?.script as string]);
      expect(fixed.code, `${fixed.stdout}\n${fixed.stderr}`).toBe(0);
      expect(fixed.stdout).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      await correct.close();
    }
  });

  it('BS-SIG-001 (events signed with the wrong secret): the check again, exit 1 then 0; its verify line is one cai verify takes', async () => {
    const start = (faults: 'callback-wrong-secret'[], port = 0) =>
      startMockProvider({
        providerCode: 'acme',
        sourceId: 'platform',
        secrets: [SECRET],
        callbackSecrets: [CALLBACK_SECRET],
        faults,
        keepRecords: false,
        speed: 1000,
        retry: { initialDelayMs: 50 },
        port,
      });
    const broken = await start(['callback-wrong-secret']);
    const port = Number(new URL(broken.url).port);
    let check: Checked | undefined;
    try {
      const result = await run(process.execPath, [
        BIN,
        '--json',
        'conformance',
        'run',
        '--interface',
        'A',
        '--target',
        broken.url,
        '--source',
        'platform',
        '--provider',
        'acme',
        '--branch-code',
        'BR-001',
        '--secret-env',
        'CAI_SECRET',
        '--callback-secret-env',
        'CAI_CALLBACK_SECRET',
        '--callback-wait',
        '10s',
        '--observe',
        '500ms',
        '--only',
        'BS-SIG-001',
        '--repro-dir',
        join(root, 'sig-001'),
      ]);
      check = (JSON.parse(result.stdout) as { checks: Checked[] }).checks.find((entry) => entry.id === 'BS-SIG-001');
      expect(check?.verdict, result.stderr).toBe('failed');
      expect(check?.repro?.command).toMatch(
        / conformance run --interface A .*--callback-secret-env CAI_CALLBACK_SECRET .*--only BS-SIG-001$/,
      );
      const script = readFileSync(check?.repro?.script as string, 'utf8');
      const verify = /judged again by: (.+ verify .+)\.$/m.exec(script)?.[1];
      expect(verify).toMatch(/ verify --secret-env CAI_CALLBACK_SECRET --request \S+\.http --now \d+$/);
      const rejudged = await run('sh', ['-c', verify as string]);
      expect(rejudged.code, rejudged.stderr).toBe(1);
      const shown = await run('sh', [check?.repro?.script as string]);
      expect(shown.code, `${shown.stdout}\n${shown.stderr}`).toBe(1);
    } finally {
      await broken.close();
    }
    const correct = await onPort(() => start([], port));
    try {
      const fixed = await run('sh', [check?.repro?.script as string]);
      expect(fixed.code, `${fixed.stdout}\n${fixed.stderr}`).toBe(0);
    } finally {
      await correct.close();
    }
  }, 90_000);
});
