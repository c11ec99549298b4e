/**
 * A file a command writes is never one it reads, nor another it writes, nor the log a running mock appends to: the
 * command line is a usage error (exit 2) before anything is read, sent or written, and the file is left as it was.
 * Files are compared as the system sees them: a link or another spelling of the path is the same file. The one pair
 * that names one file by design, a batch's `--resume` and `--output`, still runs.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-same-file-'));
afterAll(() => {
  stopAllMockProcesses();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function refused(argv: string[], kept: string, message: RegExp): Promise<void> {
  const before = readFileSync(kept, 'utf8');
  const result = await runCli(argv, { env: { CAI_SECRET: 'whsec_same_file' } });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(/^hint: give --\S+ a file of its own$/m);
  expect(result.stdout).toBe('');
  expect(readFileSync(kept, 'utf8')).toBe(before);
}

describe('an output that is an input, or another output', () => {
  it('report --log X --html X: the log is kept', async () => {
    const log = file('ev.ndjson', '{"v":1}\n');
    await refused(['report', '--log', log, '--html', log], log, /^error: --html and --log name the same file/m);
  });

  it('the same file through a link, or spelt with ./ and ..', async () => {
    const log = file('linked.ndjson', '{"v":1}\n');
    const link = join(dir, 'link.ndjson');
    symlinkSync(log, link);
    await refused(['report', '--log', log, '--html', link], log, /destroy what --log reads/);
    await refused(
      ['report', '--log', log, '--html', join(dir, '..', dir.split('/').pop() ?? '', 'linked.ndjson')],
      log,
      /--html and --log/,
    );
  });

  it('send-event --ndjson X --output X: the batch is kept, nothing sent', async () => {
    const batch = file('batch.ndjson', '{"event":"conversation.message"}\n');
    await refused(
      ['send-event', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--ndjson', batch, '--output', batch],
      batch,
      /^error: --output and --ndjson name the same file/m,
    );
  });

  it('conformance run: --waivers W --html W, and --junit R --html R', async () => {
    const waivers = file('waivers.json', '[]');
    await refused(
      ['conformance', 'run', '--mock', '--waivers', waivers, '--html', waivers],
      waivers,
      /--html and --waivers/,
    );
    const report = file('report.xml', '<kept/>');
    await refused(
      ['conformance', 'run', '--mock', '--junit', report, '--html', report],
      report,
      /^error: --html and --junit name the same file .*replace one file with the other/m,
    );
  });

  it('a log a running mock appends to is written by no other command', async () => {
    const log = join(dir, 'running.ndjson');
    const mock = await startMockProcess(['mock', 'platform', '--provider', 'acme', '--port', '0', '--log', log], {
      CAI_SECRET: 'whsec_same_file',
    });
    try {
      const other = file('other.ndjson', '');
      await refused(
        ['report', '--log', other, '--html', log],
        log,
        /^error: --html names .*running\.ndjson, the log a running mock appends to \(pid \d+\)/m,
      );
    } finally {
      mock.child.kill('SIGTERM');
      await mock.exited;
    }
  });
});

describe('the pair that names one file by design', () => {
  it('send-event --resume R --output R runs (a batch resumed and its results written again)', async () => {
    const batch = file('resume-batch.ndjson', '');
    const results = file('results.ndjson', '');
    const result = await runCli(
      [
        'send-event',
        '--to',
        'http://127.0.0.1:9/events',
        '--provider',
        'acme',
        '--ndjson',
        batch,
        '--resume',
        results,
        '--output',
        results,
      ],
      { env: { CAI_SECRET: 'whsec_same_file' } },
    );
    expect(result.stderr).not.toMatch(/same file/);
  });
});
