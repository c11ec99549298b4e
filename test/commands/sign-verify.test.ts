import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sign } from '../../src/signing/sign.js';

const secret = 'whsec_command_tests_secret';
const oldSecret = 'whsec_command_tests_old';
const t = 1_768_469_400;
const body = '{"event":"job.closed","event_id":"evt_cmd","outcome":"no_answer"}';
let dir: string;
let bodyFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cai-cmd-'));
  bodyFile = join(dir, 'event.json');
  writeFileSync(bodyFile, body);
  writeFileSync(join(dir, 'secret.txt'), `${secret}\n`);
});

describe('cai sign', () => {
  it('prints the two headers, signing exactly the given bytes', async () => {
    const result = await runCli(['sign', '--body', bodyFile, '--timestamp', String(t)], {
      env: { CAI_SECRET: secret },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`X-CAI-Timestamp: ${t}\nX-CAI-Signature: ${sign(secret, t, body)}\n`);
    expect(result.stderr).toBe('');
  });

  it('reads stdin and a secret file (one trailing newline removed)', async () => {
    const result = await runCli(
      ['sign', '--secret-file', join(dir, 'secret.txt'), '--timestamp', String(t), '--json'],
      { stdin: body },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ timestamp: t, signature: sign(secret, t, body) });
  });

  it('signs with the first of several secrets, in command-line order across forms', async () => {
    const result = await runCli(
      [
        'sign',
        '--secret-file',
        join(dir, 'secret.txt'),
        '--secret-env',
        'OLD',
        '--timestamp',
        String(t),
        '--body',
        bodyFile,
        '--json',
      ],
      {
        env: { OLD: oldSecret },
      },
    );
    expect(JSON.parse(result.stdout).signature).toBe(sign(secret, t, body));
    const reversed = await runCli(
      [
        'sign',
        '--secret-env',
        'OLD',
        '--secret-file',
        join(dir, 'secret.txt'),
        '--timestamp',
        String(t),
        '--body',
        bodyFile,
        '--json',
      ],
      {
        env: { OLD: oldSecret },
      },
    );
    expect(JSON.parse(reversed.stdout).signature).toBe(sign(oldSecret, t, body));
  });

  it('refuses a secret file that is not UTF-8 rather than sign with another key; a UTF-8 one signs with its bytes', async () => {
    // ff fe and fe ff would both decode to U+FFFD U+FFFD: two different files, one key, and neither the file's.
    for (const bytes of [
      [0xff, 0xfe],
      [0xfe, 0xff],
      [0x77, 0x68, 0xc3],
    ]) {
      const path = join(dir, `binary-${bytes.join('-')}.secret`);
      writeFileSync(path, Buffer.from(bytes));
      const result = await runCli(['sign', '--secret-file', path, '--body', bodyFile, '--timestamp', String(t)]);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: secret file ${path} (from --secret-file ${path}) holds bytes that are not UTF-8; a secret is text, as in a variable, so it is not used\nhint: write the secret as the other party has it; a binary key goes in as text (hex or base64) on both sides\n`,
      });
    }
    const utf8 = join(dir, 'utf8.secret');
    writeFileSync(utf8, 'whsec_é✓\n');
    const signed = await runCli([
      'sign',
      '--secret-file',
      utf8,
      '--body',
      bodyFile,
      '--timestamp',
      String(t),
      '--json',
    ]);
    expect(JSON.parse(signed.stdout).signature).toBe(sign(Buffer.from('whsec_é✓', 'utf8'), t, body));
  });

  it('notes a trailing newline and a non-JSON body on stderr, and still signs them as given', async () => {
    const result = await runCli(['sign', '--timestamp', String(t)], {
      env: { CAI_SECRET: secret },
      stdin: 'not json\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(sign(secret, t, 'not json\n'));
    expect(result.stderr).toBe(
      'note: the body ends with a newline; it is signed with it, so the request must send it too\nnote: the body is not valid JSON; it is signed exactly as given\n',
    );
  });

  it('refuses an empty stdin (a failed command before the pipe), and signs an empty file with a note', async () => {
    const piped = await runCli(['sign', '--timestamp', String(t)], { env: { CAI_SECRET: secret }, stdin: '' });
    expect(piped.code).toBe(2);
    expect(piped.stdout).toBe('');
    expect(piped.stderr).toBe(
      'error: stdin is empty: there is no body to sign\nhint: pipe the body in, or pass --body FILE (an empty file signs the empty body)\n',
    );
    const emptyFile = join(dir, 'empty.json');
    writeFileSync(emptyFile, '');
    const file = await runCli(['sign', '--timestamp', String(t), '--body', emptyFile], {
      env: { CAI_SECRET: secret },
    });
    expect(file.code).toBe(0);
    expect(file.stdout).toContain(sign(secret, t, ''));
    expect(file.stderr).toBe(
      'note: the body is empty (0 bytes): a document of the interface is a JSON object (§2); signed as given\n',
    );
  });

  it('warns that --secret leaks, and never prints the secret', async () => {
    const result = await runCli(['sign', '--secret', secret, '--body', bodyFile]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: --secret puts the secret in your shell history');
    expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('builds a curl command that sends the signed file', async () => {
    const result = await runCli(
      [
        'sign',
        '--body',
        bodyFile,
        '--timestamp',
        String(t),
        '--format',
        'curl',
        '--interface',
        'B',
        '--provider',
        'acme',
        '--url',
        'https://platform.test/cai/events',
      ],
      { env: { CAI_SECRET: secret } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('curl -sS -i -X POST https://platform.test/cai/events');
    expect(result.stdout).toContain(`-H 'X-CAI-Provider: acme'`);
    expect(result.stdout).toContain(`-H 'X-CAI-Signature: ${sign(secret, t, body)}'`);
    expect(result.stdout).toContain(`--data-binary @${bodyFile}`);
  });

  it('refuses curl output without the identity header', async () => {
    const result = await runCli(
      ['sign', '--body', bodyFile, '--format', 'curl', '--interface', 'A', '--url', 'https://p.test/contact-jobs'],
      { env: { CAI_SECRET: secret } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: --source is required with --format curl\nhint: pass --source ID: interface A sends X-CAI-Source (§4.1)\n',
    );
  });

  it('is a usage error without any secret', async () => {
    const result = await runCli(['sign', '--body', bodyFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: no secret given and CAI_SECRET is not set\nhint: pass --secret-env NAME, --secret-file PATH or --secret VALUE, or set CAI_SECRET\n',
    );
  });

  it('reports an empty secret environment variable', async () => {
    const result = await runCli(['sign', '--body', bodyFile, '--secret-env', 'EMPTY'], { env: { EMPTY: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('error: environment variable EMPTY (from --secret-env EMPTY) is empty');
  });
});

describe('cai verify', () => {
  const signature = sign(secret, t, body);

  it('accepts a valid signature (exit 0)', async () => {
    const result = await runCli(
      ['verify', '--body', bodyFile, '--timestamp', String(t), '--signature', signature, '--now', String(t + 10)],
      { env: { CAI_SECRET: secret } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('valid: the signature matches; timestamp 10 s old, within ±300 s\n');
  });

  it('says which rotation secret matched, by position', async () => {
    const result = await runCli(
      [
        'verify',
        '--secret-env',
        'NEW',
        '--secret-env',
        'OLD',
        '--body',
        bodyFile,
        '--timestamp',
        String(t),
        '--signature',
        sign(oldSecret, t, body),
        '--now',
        String(t),
        '--json',
      ],
      { env: { NEW: secret, OLD: oldSecret } },
    );
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.valid).toBe(true);
    expect(doc.matchedSecret).toEqual({ position: 2, source: '--secret-env OLD' });
  });

  it('explains a mismatch (exit 1) with the likely cause', async () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const result = await runCli(['verify', '--timestamp', String(t), '--signature', signature, '--now', String(t)], {
      env: { CAI_SECRET: secret },
      stdin: pretty,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('invalid (signature_mismatch)');
    expect(result.stdout).toContain('likely cause: the sender signed the minified form of the JSON');
  });

  it("recognises the other direction's secret", async () => {
    const result = await runCli(
      [
        'verify',
        '--body',
        bodyFile,
        '--timestamp',
        String(t),
        '--signature',
        sign(oldSecret, t, body),
        '--now',
        String(t),
        '--other-secret-env',
        'OTHER',
        '--json',
      ],
      { env: { CAI_SECRET: secret, OTHER: oldSecret } },
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).diagnoses.map((d: { code: string }) => d.code)).toContain(
      'other_direction_secret',
    );
  });

  it('takes headers and exact body bytes from a captured raw request', async () => {
    const raw = `POST /cai/events HTTP/1.1\r\nHost: platform.test\r\nContent-Type: application/json\r\nX-CAI-Provider: acme\r\nX-CAI-Timestamp: ${t}\r\nX-CAI-Signature: ${signature}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}\n`;
    const file = join(dir, 'captured.http');
    writeFileSync(file, raw);
    const result = await runCli(['verify', '--request', file, '--now', String(t)], { env: { CAI_SECRET: secret } });
    expect(result.code).toBe(0);
    // One line break after the body is how a file ends (older `--dry-run > file` captures too): no note.
    expect(result.stderr).toBe('');
    writeFileSync(file, `${raw}x\n`);
    const extra = await runCli(['verify', '--request', file, '--now', String(t)], { env: { CAI_SECRET: secret } });
    expect(extra.code).toBe(0);
    expect(extra.stderr).toBe(
      'note: the capture has 3 byte(s) after the 65 declared by Content-Length; they were left out\n',
    );
  });

  it.each([
    [
      '99999999999999999999999',
      'note: Content-Length says 99999999999999999999999 bytes but the capture holds 65; the capture may be cut short',
    ],
    ['0001000', 'note: Content-Length says 1000 bytes but the capture holds 65; the capture may be cut short'],
    [
      '-1',
      'note: Content-Length is not a number of bytes (RFC 9110 §8.6: digits only); the body is every byte after the headers',
    ],
  ])('a captured Content-Length of %s is noted as written, never as another number', async (length, note) => {
    const raw = `POST /cai/events HTTP/1.1\r\nX-CAI-Provider: acme\r\nX-CAI-Timestamp: ${t}\r\nX-CAI-Signature: ${signature}\r\nContent-Length: ${length}\r\n\r\n${body}`;
    const file = join(dir, 'content-length.http');
    writeFileSync(file, raw);
    const result = await runCli(['verify', '--request', file, '--now', String(t)], { env: { CAI_SECRET: secret } });
    expect(result.stderr).toBe(`${note}\n`);
    expect(result.code).toBe(0);
  });

  it('reports a stale timestamp with how far outside the window', async () => {
    const result = await runCli(
      ['verify', '--body', bodyFile, '--timestamp', String(t), '--signature', signature, '--now', String(t + 500)],
      { env: { CAI_SECRET: secret } },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'invalid (timestamp_too_old): the timestamp is 500 s old, outside the 300 s window',
    );
    expect(result.stdout).toContain('200 s outside the ±300 s window');
  });

  it('reproduces the shipped worked example', async () => {
    const result = await runCli(['verify', '--example']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('reproduced: the computed signature equals the published one');
  });

  it('fails on an example whose signature does not reproduce', async () => {
    const file = join(dir, 'bad-example.json');
    writeFileSync(
      file,
      JSON.stringify({ secret: 's3cr3t-example', timestamp: t, body: '{}', signature: `sha256=${'0'.repeat(64)}` }),
    );
    const result = await runCli(['verify', '--example', file, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).reproduced).toBe(false);
  });
});
