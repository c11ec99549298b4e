import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { EVENT_TYPES } from '../../src/spec/constants.js';

describe('records through the built binary', () => {
  it.each([['job'], ['ack'], ['duplicate-ack'], ...EVENT_TYPES.map((type) => ['event', type])])(
    'every `cai sample %s` validates with `cai validate --strict`, with no warnings',
    async (...words) => {
      const sample = await spawnCli(['sample', ...words, '--count', '20']);
      expect(sample.code).toBe(0);
      expect(sample.stderr).toBe('');
      const kind = words[0] as string;
      const validate = await spawnCli(['validate', kind, '--ndjson', '--strict'], { stdin: sample.stdout });
      expect(validate).toEqual({
        code: 0,
        stdout: '20 documents: 20 valid, 0 invalid (0 errors, 0 warnings)\n',
        stderr: '',
      });
    },
  );

  it('not JSON: invalid with the line and column, exit 1', async () => {
    const result = await spawnCli(['validate'], { stdin: '{\n  "event": "job.closed",\n  "event_id": "a",\n}\n' });
    expect(result).toEqual({
      code: 1,
      stdout:
        '<stdin>: invalid document\n  (document): not JSON: expected a property name in double quotes but found "}" at line 4, column 1\n1 document: 0 valid, 1 invalid (1 error, 0 warnings)\n',
      stderr: '',
    });
  });

  it('unreadable input: exit 2 with error and hint', async () => {
    const result = await spawnCli(['validate', 'no/such/file.json']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: document file no/such/file.json does not exist\nhint: check the path, or pass - to read from stdin\n',
    });
  });

  it('--json errors are one JSON document', async () => {
    const result = await spawnCli(['--json', 'validate', 'no/such/file.json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'unreadable_file', exitCode: 2 } });
  });

  it('cai schema --format openapi prints a document', async () => {
    const result = await spawnCli(['schema', '--format', 'openapi']);
    expect(result.code).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout) as object)).toEqual([
      'openapi',
      'info',
      'jsonSchemaDialect',
      'tags',
      'paths',
      'components',
    ]);
  });
});
