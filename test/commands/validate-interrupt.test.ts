import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { sampleEvent } from '../../src/spec/sample.js';
import { fakeIo } from '../helpers/cli.js';

describe('cai validate, interrupted', () => {
  it('stops reading on Ctrl-C, reports what it validated, and exits 130', async () => {
    const stdin = new PassThrough();
    const io = fakeIo({ stdin });
    const finished = run(['--json', 'validate', '--ndjson'], io);
    // stdin stays open: the first line is validated and its result written, then Ctrl-C.
    stdin.write(JSON.stringify(sampleEvent('job.closed')) + '\n');
    await once(io.stdout, 'data');
    // cai's own listener (src/main.ts) and validate's.
    expect(io.interruptListeners()).toBe(2);
    io.interrupt();
    const code = await finished;
    expect(code).toBe(130);
    const report = JSON.parse(io.out()) as {
      valid: boolean;
      interrupted: boolean;
      documents: { source: string; valid: boolean }[];
    };
    expect(report).toMatchObject({
      valid: false,
      interrupted: true,
      documents: [{ source: '<stdin>:1', valid: true }],
    });
    expect(io.err()).toBe('warning: interrupted: reporting what was validated so far\nnote: stopped at <stdin>:1\n');
  });
});
