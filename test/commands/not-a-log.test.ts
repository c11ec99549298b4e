import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, spawnCli } from '../helpers/cli.js';

/** A file that is not what a command expects is a usage error (exit 2) with a hint, never an empty success (issue #12). */

const dir = mkdtempSync(join(tmpdir(), 'cai-not-a-log-'));
const file = (name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content);
  return name;
};
// The first bytes of an ELF executable, as a binary file given by mistake begins.
const binary = file(
  'cai.bin',
  Buffer.concat([
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]),
    Buffer.alloc(200, 0x00),
    Buffer.from('\n\x01\x02\n'),
  ]),
);
const text = file('notes.txt', 'Meeting notes\n\n- ship the report\n- "v": 1 is the record version\n');
const json = file('job.json', JSON.stringify({ lead_id: 'L1', event_id: 'e-1' }, null, 2));
const empty = file('empty.ndjson', '');
const HINT =
  'hint: cai report reads the NDJSON logs of cai mock platform|provider --log FILE: one JSON object a line, with "v": 1, "interface" ("A" or "B"), "received_at" and "verdict"\n';

describe('cai report --log on a file that is not a log', () => {
  it('a binary file: exit 2, named as binary, nothing on stdout', async () => {
    expect(await spawnCli(['report', '--log', binary], { cwd: dir })).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${binary} is not an NDJSON log: it holds binary data\n${HINT}`,
    });
  });

  it('text with no record: exit 2, with the lines read and why the first is not a record', async () => {
    expect(await runCli(['report', '--log', text], { cwd: dir })).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${text} holds no log record: 3 lines read, none a record (line 1: not valid JSON)\n${HINT}`,
    });
    expect((await runCli(['report', '--log', json], { cwd: dir })).stderr).toBe(
      `error: ${json} holds no log record: 4 lines read, none a record (line 1: not valid JSON)\n${HINT}`,
    );
  });

  it('on stdin, or beside a real log: still exit 2, naming the file at fault', async () => {
    const stdin = await runCli(['report', '--log', '-', '--json'], { cwd: dir, stdin: '{"hello": "world"}\n' });
    expect(stdin.code).toBe(2);
    expect(JSON.parse(stdin.stdout).error).toMatchObject({
      code: 'not_a_log',
      message: '(stdin) holds no log record: 1 line read, none a record (line 1: no "v" (expected "v": 1))',
    });
    const mixed = await runCli(['report', '--log', `${ROOT}fixtures/logs/platform.ndjson`, '--log', text], {
      cwd: dir,
    });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr.split('\n')[0]).toBe(
      `error: ${text} holds no log record: 3 lines read, none a record (line 1: not valid JSON)`,
    );
  });

  it('an empty log (a mock that has received nothing yet) is a note and the zero report, exit 0', async () => {
    const result = await runCli(['report', '--log', empty], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`note: ${empty} holds no records yet: a mock writes one line per request it accepts\n`);
    expect(result.stdout.split('\n')[0]).toBe(`${empty}: 0 records, 0 used (live space; start of log – end of log)`);
  });

  it('a log with some malformed lines among its records is still reported (one torn line must not lose it)', async () => {
    const result = await runCli(['report', '--log', `${ROOT}fixtures/logs/malformed.ndjson`], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: ');
  });
});

describe('other commands given the wrong file', () => {
  it('cai mock platform --log on a file that is not a mock log refuses to append to it', async () => {
    const target = file('README.md', '# My project\n\nNot a log.\n');
    const result = await runCli(
      ['mock', 'platform', '--provider', 'acme', '--secret-env', 'MOCK_SECRET', '--log', target],
      { cwd: dir, env: { MOCK_SECRET: 'whsec_x' } },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${join(dir, target)} is not a mock log: 2 lines, none a record; cai will not append to it\nhint: pass --log a new file (it is created), or a log a cai mock wrote\n`,
    });
    expect(readFileSync(join(dir, target), 'utf8')).toBe('# My project\n\nNot a log.\n');
  });

  it('an error about a file that is not JSON says where and what, never its bytes', async () => {
    const result = await runCli(['validate', '--catalog', binary, json], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: the catalog ${binary} is not JSON: found a control character (U+007F) where a value was expected at line 1, column 1`,
    );
  });
});
