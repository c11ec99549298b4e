/**
 * `cai validate` given nothing on stdin: a usage or input error (exit 2, `empty_input`), as `cai sign` says of an empty
 * pipe, not an invalid document (exit 1). An empty file named is a document, and invalid; an empty NDJSON stream is
 * zero documents (docs/records.md).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('cai validate, nothing on stdin', () => {
  it.each([
    ['empty', '', 'error: stdin is empty: there is no document to validate'],
    ['white space only', ' \n\t\r\n', 'error: stdin holds only white space: there is no document to validate'],
  ])('%s: exit 2, empty_input, nothing on stdout', async (_name, stdin, line) => {
    const result = await runCli(['validate'], { stdin });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${line}\nhint: pipe a document in (cai sample job | cai validate), or pass a file\n`);
  });

  it('--json: the error document, code empty_input, exitCode 2', async () => {
    const result = await runCli(['--json', 'validate', 'job'], { stdin: '' });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'empty_input', exitCode: 2 } });
  });

  it('an empty file given by name is still an invalid document (exit 1, not_json)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cai-validate-empty-')), 'empty.json');
    writeFileSync(path, '');
    const result = await runCli(['--json', 'validate', path]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).documents[0].errors[0].code).toBe('not_json');
  });

  it('--ndjson: an empty stream is zero documents, exit 0, and a note says it has no lines', async () => {
    const result = await runCli(['validate', '--ndjson'], { stdin: '' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('0 documents: 0 valid, 0 invalid (0 errors, 0 warnings)\n');
    expect(result.stderr).toContain('note: <stdin> has no lines');
  });
});
