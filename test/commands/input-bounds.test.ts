/**
 * Every input has a cap (src/bounds.ts): for each kind, the flag that reads it given a file one byte over the cap
 * (sparse, so nothing is written) gets one `error:` and one `hint:` and exit 2, without the file being read; an
 * endless stdin stops within the cap.
 */
import { closeSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCap, INPUT_CAPS, type InputKind } from '../../src/bounds.js';
import { readFileCapped, readStreamCapped } from '../../src/input.js';
import { CaiError } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cai-bounds-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sparse file of `size` bytes: as large as needed, and nothing written to disk. */
function sparse(name: string, size: number): string {
  const path = join(dir, name);
  closeSync(openSync(path, 'w'));
  truncateSync(path, size);
  return path;
}

const SECRET = { CAI_SECRET: 'whsec_bounds_test_secret' };

/** Each kind read through its flag: argv for a file `path` over the cap, and how the error names it. */
const BY_FLAG: { kind: InputKind; argv: (path: string) => string[]; subject: (path: string) => string }[] = [
  { kind: 'body', argv: (p) => ['sign', '--body', p], subject: (p) => `body file ${p}` },
  {
    kind: 'body',
    argv: (p) => ['send-event', '--to', 'http://127.0.0.1:9/e', '--provider', 'acme', '--body', p],
    subject: (p) => `body file ${p}`,
  },
  {
    kind: 'body',
    argv: (p) => ['verify', '--signature', 'sha256=00', '--timestamp', '1', '--body', p],
    subject: (p) => `body file ${p}`,
  },
  { kind: 'request', argv: (p) => ['verify', '--request', p], subject: (p) => `request file ${p}` },
  {
    kind: 'request',
    argv: (p) => ['replay', '--request', p, '--to', 'http://127.0.0.1:9/'],
    subject: (p) => `request file ${p}`,
  },
  { kind: 'document', argv: (p) => ['validate', p], subject: (p) => `document file ${p}` },
  {
    kind: 'batch',
    argv: (p) => ['send-event', '--to', 'http://127.0.0.1:9/e', '--provider', 'acme', '--ndjson', p],
    subject: (p) => `NDJSON file ${p}`,
  },
  { kind: 'catalog', argv: (p) => ['validate', '--catalog', p, '-'], subject: (p) => `catalog file ${p}` },
  {
    kind: 'config',
    argv: (p) => ['--config', p, 'send-event', '--sample', '--dry-run'],
    subject: (p) => `config file ${p}`,
  },
  { kind: 'example', argv: (p) => ['sign', '--example', p], subject: (p) => `signature example file ${p}` },
  {
    kind: 'pem',
    argv: (p) => ['doctor', '--target', 'https://127.0.0.1:9/', '--ca', p],
    subject: (p) => `CA certificate file ${p}`,
  },
  {
    kind: 'secret',
    argv: (p) => ['sign', '--secret-file', p, '--body', '-'],
    subject: (p) => `secret file ${p} (from --secret-file ${p})`,
  },
  {
    kind: 'waivers',
    argv: (p) => ['conformance', 'run', '--interface', 'B', '--mock', '--waivers', p],
    subject: (p) => `waivers file ${p}`,
  },
];

describe('a file one byte over its cap is refused unread: error, hint, exit 2', () => {
  it.each(BY_FLAG.map((row) => [row.kind, row.argv('FILE').join(' '), row] as const))(
    '%s: cai %s',
    async (kind, _shown, row) => {
      const cap = INPUT_CAPS[kind];
      const path = sparse(`${kind}-over`, cap.bytes + 1);
      const result = await runCli(row.argv(path), { env: SECRET, stdin: '{}' });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${row.subject(path)} is ${cap.bytes + 1} bytes, over the ${formatCap(cap.bytes)} cap; not read\nhint: ${cap.hint} (caps: docs/limits.md)\n`,
      });
    },
  );

  it('the results file of --resume', async () => {
    const batch = join(dir, 'one.ndjson');
    writeFileSync(batch, '{"event":"job.closed","event_id":"e1"}\n');
    const path = sparse('resume-over', INPUT_CAPS.resume.bytes + 1);
    const result = await runCli(
      [
        'send-event',
        '--to',
        'http://127.0.0.1:9/e',
        '--provider',
        'acme',
        '--ndjson',
        batch,
        '--no-validate',
        '--resume',
        path,
      ],
      { env: SECRET },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: resume file ${path} is ${INPUT_CAPS.resume.bytes + 1} bytes, over the 256 MiB cap; not read\nhint: ${INPUT_CAPS.resume.hint} (caps: docs/limits.md)\n`,
    );
  });

  it('a file at its cap is read whole', () => {
    const path = sparse('secret-at', INPUT_CAPS.secret.bytes);
    expect(readFileCapped(path, 'secret').length).toBe(INPUT_CAPS.secret.bytes);
  });
});

describe('a secret from a variable or a value has the cap of a secret file', () => {
  const over = 'x'.repeat(INPUT_CAPS.secret.bytes + 1);
  const hint = 'hint: a secret is one line: check that this is the secret you meant (caps: docs/limits.md)\n';

  it.each([
    ['CAI_SECRET', ['sign', '--body', '-'], { CAI_SECRET: over }, 'environment variable CAI_SECRET'],
    [
      '--secret-env',
      ['sign', '--secret-env', 'BIG', '--body', '-'],
      { BIG: over },
      'environment variable BIG (from --secret-env BIG)',
    ],
    ['--secret', ['sign', '--secret', over, '--body', '-'], {}, '--secret #1'],
  ] as const)('%s over it: error, hint, exit 2', async (_name, argv, env, subject) => {
    const result = await runCli([...argv], { env, stdin: '{}' });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${subject} is over the 64 KiB cap for a secret; not used\n${hint}`,
    });
  });

  it('one at the cap, counted in UTF-8 bytes, is used', async () => {
    const result = await runCli(['sign', '--body', '-'], {
      env: { CAI_SECRET: 'é'.repeat(INPUT_CAPS.secret.bytes / 2) },
      stdin: '{}',
    });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('a line over its cap stops the reading of a stream', () => {
  it('report --log: error, exit 2', async () => {
    const path = join(dir, 'long-line.ndjson');
    writeFileSync(path, `${'x'.repeat(INPUT_CAPS.logLine.bytes + 1)}\n`);
    const result = await runCli(['report', '--log', path]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${path} line 1 is over the 4 MiB cap for one log line; reading stopped there\nhint: ${INPUT_CAPS.logLine.hint} (caps: docs/limits.md)\n`,
    });
  });
});

/** An endless stdin: counts what was pulled from it. */
function endless(): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  const chunk = Buffer.alloc(64 * 1024);
  const stream = new Readable({
    read() {
      pulled += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

describe('an endless stdin stops within the cap', () => {
  it.each([
    ['sign --body -', ['sign', '--body', '-'], 'body', 'the body on stdin'],
    ['validate -', ['validate', '-'], 'document', 'the document on stdin'],
    [
      'send-event --ndjson -',
      ['send-event', '--to', 'http://127.0.0.1:9/e', '--provider', 'acme', '--ndjson', '-'],
      'batch',
      'the NDJSON on stdin',
    ],
  ] as const)('%s', async (_name, argv, kind, subject) => {
    const input = endless();
    const result = await runCli([...argv], { env: SECRET, stdin: input.stream as unknown as Buffer });
    const cap = INPUT_CAPS[kind];
    expect(result.stderr).toBe(
      `error: ${subject} is over the ${formatCap(cap.bytes)} cap; reading stopped there\nhint: ${cap.hint} (caps: docs/limits.md)\n`,
    );
    expect(result.code).toBe(2);
    // At most the cap, one chunk over it, and what the stream had buffered ahead (its highWaterMark).
    expect(input.pulled()).toBeLessThanOrEqual(cap.bytes + 4 * 64 * 1024);
  });

  it('validate --ndjson - stops at the first line over the cap', async () => {
    const input = endless();
    const result = await runCli(['validate', '--ndjson', '-'], { stdin: input.stream as unknown as Buffer });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'warning: <stdin>:1 is over the 4 MiB cap for one line; the rest of <stdin> was not read\n',
    );
    expect(input.pulled()).toBeLessThanOrEqual(INPUT_CAPS.ndjsonLine.bytes + 4 * 64 * 1024);
  });

  it('readStreamCapped names what it read', async () => {
    const input = endless();
    const error = await readStreamCapped(input.stream, 'secret', 'the secret on stdin').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CaiError);
    expect((error as CaiError).code).toBe('input_too_large');
  });
});
