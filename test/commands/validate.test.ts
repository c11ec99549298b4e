import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { runCli } from '../helpers/cli.js';
import { sampleEvent, sampleJob } from '../../src/spec/sample.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

const goodJob = JSON.stringify(sampleJob());
const goodEvent = JSON.stringify(sampleEvent('job.closed'));
const badEvent = JSON.stringify({ ...sampleEvent('conversation.message'), from_number_e164: '0612' });

describe('cai validate', () => {
  it('validates one file, says what it detected, and counts', async () => {
    const path = file('job.json', goodJob);
    const result = await runCli(['validate', path]);
    expect(result).toEqual({
      code: 0,
      stdout: `${path}: valid contact job (detected by shape)\n1 document: 1 valid, 0 invalid (0 errors, 0 warnings)\n`,
      stderr: '',
    });
  });

  it('warns of a name given twice: in a file read whole, and in NDJSON lines with --strict only', async () => {
    const twice = `${goodEvent.slice(0, -1)},"event_id":"other"}`;
    const warning = 'warning: event_id: given 2 times in one object: JSON.parse keeps the last value';
    const whole = await runCli(['validate', file('twice.json', twice)]);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain(warning);
    const lines = file('twice.ndjson', `${twice}\n`);
    expect((await runCli(['validate', '--ndjson', lines])).stdout).not.toContain(warning);
    expect((await runCli(['validate', '--ndjson', '--strict', lines])).stdout).toContain(warning);
  });

  it('prints each problem as path: message (expected …, got …) and exits 1', async () => {
    const path = file('bad.json', badEvent);
    const result = await runCli(['validate', 'event', path]);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `${path}: invalid event conversation.message`,
      '  from_number_e164: not an E.164 telephone number (expected "+" and 2 to 15 digits, the first 1-9, e.g. "+447700900123", got "0612")',
      '1 document: 0 valid, 1 invalid (1 error, 0 warnings)',
      '',
    ]);
  });

  it('reads several files and stdin, in order', async () => {
    const a = file('a.json', goodJob);
    const result = await runCli(['--json', 'validate', a, '-'], { stdin: badEvent });
    const report = JSON.parse(result.stdout) as { valid: boolean; documents: { source: string; valid: boolean }[] };
    expect(result.code).toBe(1);
    expect(report.valid).toBe(false);
    expect(report.documents.map((d) => [d.source, d.valid])).toEqual([
      [a, true],
      ['<stdin>', false],
    ]);
  });

  it('prints the --json shape the issue specifies', async () => {
    const result = await runCli(['--json', 'validate', 'event', '-'], { stdin: badEvent });
    expect(JSON.parse(result.stdout)).toEqual({
      valid: false,
      documents: [
        {
          source: '<stdin>',
          kind: 'event',
          eventType: 'conversation.message',
          valid: false,
          errors: [
            {
              path: 'from_number_e164',
              code: 'format',
              message: 'not an E.164 telephone number',
              expected: expect.any(String),
              received: '"0612"',
            },
          ],
          warnings: [],
        },
      ],
      summary: { documents: 1, valid: 0, invalid: 1, errors: 1, warnings: 0 },
    });
  });

  it('streams NDJSON with the line number in every message, skipping blank lines, CRLF or not', async () => {
    const lines = [goodEvent, '', badEvent, '{"event": tru}', goodJob].join('\r\n') + '\r\n';
    const path = file('events.ndjson', lines);
    const result = await runCli(['validate', path]);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `${path}:3: invalid event conversation.message (detected by shape)`,
      '  from_number_e164: not an E.164 telephone number (expected "+" and 2 to 15 digits, the first 1-9, e.g. "+447700900123", got "0612")',
      `${path}:4: invalid document`,
      '  (document): not JSON: found a letter where a value was expected at line 1, column 11',
      '4 documents: 2 valid, 2 invalid (2 errors, 0 warnings)',
      '',
    ]);
  });

  it('reads NDJSON from stdin with --ndjson and reports every line in --json', async () => {
    const result = await runCli(['--json', 'validate', '--ndjson'], {
      stdin: `${goodEvent}\n${goodEvent}\n${badEvent}`,
    });
    const report = JSON.parse(result.stdout) as { documents: { source: string; valid: boolean }[] };
    expect(report.documents.map((d) => [d.source, d.valid])).toEqual([
      ['<stdin>:1', true],
      ['<stdin>:2', true],
      ['<stdin>:3', false],
    ]);
  });

  it('judges invalid UTF-8 per line', async () => {
    const path = file(
      'utf8.ndjson',
      Buffer.concat([Buffer.from(`${goodEvent}\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]),
    );
    const result = await runCli(['--json', 'validate', '--ndjson', path]);
    const report = JSON.parse(result.stdout) as { documents: { source: string; errors: { code: string }[] }[] };
    expect(report.documents.map((d) => [d.source.slice(path.length), d.errors.map((e) => e.code)])).toEqual([
      [':1', []],
      [':2', ['not_utf8']],
    ]);
  });

  it('judges a line over the 4 MiB cap without keeping it, and stops reading that input there (src/bounds.ts)', async () => {
    const huge = JSON.stringify({ ...sampleEvent('conversation.message'), text: 'x'.repeat(5 * 1024 * 1024) });
    const path = file('huge.ndjson', `${goodEvent}\n${huge}\n${goodEvent}\n`);
    const result = await runCli(['--json', 'validate', '--ndjson', path]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { documents: { source: string; errors: { code: string }[] }[] };
    expect(report.documents.map((d) => [d.source.slice(path.length), d.errors.map((e) => e.code)])).toEqual([
      [':1', []],
      [':2', ['too_large']],
    ]);
    expect(result.stderr).toBe(
      `warning: ${path}:2 is over the 4 MiB cap for one line; the rest of ${path} was not read\n`,
    );
  });

  it('refuses an event over 256 KB (§8)', async () => {
    const path = file(
      'big.json',
      JSON.stringify({ ...sampleEvent('conversation.message'), text: 'x'.repeat(262_144) }),
    );
    const result = await runCli(['validate', path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('(document): body is 262');
  });

  it('lists unknown fields as warnings with --strict, still valid', async () => {
    const path = file('extra.json', JSON.stringify({ ...sampleEvent('job.closed'), mood: 'happy' }));
    const result = await runCli(['validate', '--strict', path]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  warning: mood: not a field of spec v1.0 (accepted: §9.2 receivers ignore unknown fields)\n',
    );
  });

  it('checks branch codes against --catalog', async () => {
    const catalog = file('catalog.json', JSON.stringify([{ branch_code: 'BR-001', name: 'Centre' }]));
    const path = file('other-branch.json', JSON.stringify(sampleJob({ branchCode: 'BR-7' })));
    const result = await runCli(['validate', '--catalog', catalog, path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '  branch_code: not in the branch catalog (§2.2: issued per deployment) (expected one of: BR-001, got "BR-7")',
    );
  });

  it.each([
    [
      ['validate', 'missing.json'],
      'error: document file missing.json does not exist',
      'hint: check the path, or pass - to read from stdin',
    ],
    [
      ['validate', '--catalog', 'nope.json', '-'],
      'error: catalog file nope.json does not exist',
      'hint: check the path, or pass - to read from stdin',
    ],
    [['validate', '-', '-'], 'error: stdin (-) can be read only once', 'hint: pass - at most once'],
    [
      ['validate', 'evnt', '-'],
      'error: evnt is neither a kind of document nor a file',
      'hint: the first word is one of auto, job, event, ack, duplicate-ack, or a file',
    ],
  ])('exits 2 with error and hint for unreadable input: %j', async (argv, error, hint) => {
    const result = await runCli(argv, { stdin: goodJob });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${error}\n${hint}\n` });
  });

  it('refuses a catalog that is not a list of branches', async () => {
    const catalog = file('bad-catalog.json', JSON.stringify({ BR1: 'x' }));
    const result = await runCli(['validate', '--catalog', catalog, '-'], { stdin: goodJob });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: the catalog .* is not a list of branches\n/);
  });
});
