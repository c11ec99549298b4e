import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import type { Io } from '../../src/io.js';
import { sampleEvent } from '../../src/spec/sample.js';
import { ROOT } from '../helpers/cli.js';

describe('cai validate, interrupted', () => {
  it('stops reading on Ctrl-C, reports what it validated, and does not pass (exit 1)', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const listeners = new Set<(signal: NodeJS.Signals) => void>();
    const io: Io = {
      stdin,
      stdout,
      stderr,
      env: { NO_COLOR: '1' },
      cwd: ROOT,
      onInterrupt(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      now: () => Date.now(),
    };
    const finished = run(['--json', 'validate', '--ndjson'], io);
    // stdin stays open: the first line is validated and its result written, then Ctrl-C.
    stdin.write(JSON.stringify(sampleEvent('job.closed')) + '\n');
    await once(stdout, 'data');
    expect(listeners.size).toBe(1);
    listeners.forEach((listener) => listener('SIGINT'));
    const code = await finished;
    expect(code).toBe(1);
    const report = JSON.parse(out) as { valid: boolean; interrupted: boolean; documents: { source: string; valid: boolean }[] };
    expect(report).toMatchObject({ valid: false, interrupted: true, documents: [{ source: '<stdin>:1', valid: true }] });
    expect(err).toBe('warning: interrupted: reporting what was validated so far\nnote: stopped at <stdin>:1\n');
  });
});
