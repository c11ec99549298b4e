/**
 * A pipe given as a file (a named FIFO, `<(cmd)`), through the built binary (docs/limits.md, "Files and stdin"): read
 * when a writer comes, even late; when none comes, Ctrl-C ends cai as it ends a wait on a silent stdin (a blocking
 * open or read used to hold a thread, so that cai ignored SIGINT and SIGTERM and never exited); a pipe read before
 * any await (a secret file, a catalog, the config) is refused after PIPE_SILENCE_MS of silence. An empty path is named as such, not taken for
 * the current directory. A device that never runs dry (/dev/urandom) is read in turns of the event loop, so a signal
 * still ends cai. A command still running at its bound is killed and fails the test: no timing is asserted.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PIPE_SILENCE_MS } from '../../src/bounds.js';
import { spawnBounded } from '../helpers/bounded-spawn.js';
import { BIN, spawnCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-pipe-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_pipe_input_0123456789' };
const DOCUMENT =
  '{"event":"job.closed","event_id":"evt-pipe-1","lead_id":"lead-1","outcome":"no_answer","attempts":1,"occurred_at":"2026-11-30T10:00:00Z"}';

let fifos = 0;
function fifo(): string {
  const path = join(dir, `pipe-${(fifos += 1)}`);
  execFileSync('mkfifo', [path]);
  return path;
}

/**
 * Resolves once a reader has the FIFO open: a writer's non-blocking open fails (ENXIO) until then. The writer closes
 * at once without writing, which a reader that has read nothing yet takes for no writer yet.
 */
async function whenOpened(path: string): Promise<void> {
  for (;;) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Writes `text` into the FIFO from another process once cai has opened it (or before: the writer waits for it). */
function writeLater(path: string, text: string) {
  writeFileSync(join(dir, 'writer.cjs'), "require('fs').writeFileSync(process.argv[2], process.argv[3]);");
  const writer = spawn(process.execPath, [join(dir, 'writer.cjs'), path, text], { stdio: 'ignore' });
  return new Promise<void>((resolve) => writer.on('close', () => resolve()));
}

/** The bytes a process has read so far (Linux: /proc/PID/io), 0 before it can be seen. */
function bytesRead(pid: number): number {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Runs cai with stdout on /dev/null, whose writes never wait (a pipe's would give the event loop a turn), sends
 * `signal` once it has read 64 MiB (it is then deep in its loop over the input), and kills it 30 s later if it is
 * still running.
 */
function signalWhileReading(argv: string[], signal: NodeJS.Signals) {
  return new Promise<{ code: number | null; killed: boolean; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      env: { PATH: process.env.PATH, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const watch = setInterval(() => {
      if (bytesRead(child.pid as number) < 64 * 1024 * 1024) return;
      clearInterval(watch);
      child.kill(signal);
      guard = setTimeout(() => ((killed = true), child.kill('SIGKILL')), 30_000);
    }, 50);
    let guard: NodeJS.Timeout | undefined = setTimeout(() => ((killed = true), child.kill('SIGKILL')), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(watch);
      clearTimeout(guard);
      resolve({ code, killed, stderr });
    });
  });
}

describe('a pipe given as a file', () => {
  it('is read once its writer comes, for a document, a body and a log', async () => {
    const document = fifo();
    const [validated] = await Promise.all([spawnCli(['validate', document]), writeLater(document, DOCUMENT)]);
    expect(validated.stdout).toContain(`${document}: valid event job.closed`);
    expect(validated.code).toBe(0);
    const body = fifo();
    const [signed] = await Promise.all([spawnCli(['sign', '--body', body], { env }), writeLater(body, DOCUMENT)]);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(/^X-CAI-Timestamp: \d+\nX-CAI-Signature: sha256=[0-9a-f]{64}\n$/);
  });

  it('that stays silent: Ctrl-C ends the command with 130, whatever read it', async () => {
    for (const [argv, path] of [['validate'], ['validate', '--ndjson'], ['sign', '--body'], ['report', '--log']].map(
      (words) => {
        const path = fifo();
        return [[...words, path], path] as [string[], string];
      },
    )) {
      const result = await spawnBounded(argv, {
        boundMs: 60_000,
        env,
        // SIGINT once the command is reading the pipe.
        onStart: (child) => void whenOpened(path).then(() => child.kill('SIGINT')),
      });
      expect(result.killed, `cai ${argv.join(' ')} did not end after SIGINT`).toBe(false);
      expect(result.code, `${argv.join(' ')}\n${result.stderr}`).toBe(130);
    }
  });

  it('a device that never runs dry (/dev/urandom): SIGINT and SIGTERM end validate --ndjson', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const result = await signalWhileReading(['validate', '--ndjson', '/dev/urandom'], signal);
      expect(result.killed, `validate --ndjson /dev/urandom did not end after ${signal}`).toBe(false);
      expect(result.stderr).toContain('warning: interrupted: reporting what was validated so far\n');
      // SIGTERM: a command that stops by itself keeps its own code (src/main.ts), here an unfinished validation's 1.
      expect(result.code, result.stderr).toBe(signal === 'SIGINT' ? 130 : 1);
    }
  });

  it('read before any await (a secret file): refused once silent for PIPE_SILENCE_MS, with an error and a hint', async () => {
    const secret = fifo();
    const result = await spawnBounded(['sign', '--secret-file', secret, '--body', '-'], {
      boundMs: PIPE_SILENCE_MS + 30_000,
    });
    expect(result.killed).toBe(false);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: secret file ${secret} (from --secret-file ${secret}) is a pipe that sent nothing for ${PIPE_SILENCE_MS / 1000} s; reading stopped there\nhint: start the program that writes to it first, or give a regular file\n`,
    );
  });

  it('a catalog or the config, read before the command listens for Ctrl-C: refused once silent for PIPE_SILENCE_MS', async () => {
    const cases = [
      { what: 'catalog', words: (path: string) => ['validate', '--catalog', path, '-'] },
      {
        what: 'catalog',
        words: (path: string) => ['mock', 'platform', '--provider', 'acme', '--port', '0', '--catalog', path],
      },
      { what: 'config', words: (path: string) => ['--config', path, 'config', 'show'] },
    ];
    const results = await Promise.all(
      cases.map(({ what, words }) => {
        const path = fifo();
        return spawnBounded(words(path), { boundMs: PIPE_SILENCE_MS + 30_000, env }).then((result) => ({
          ...result,
          what,
          path,
        }));
      }),
    );
    for (const result of results) {
      expect(result.killed).toBe(false);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: ${result.what} file ${result.path} is a pipe that sent nothing for ${PIPE_SILENCE_MS / 1000} s; reading stopped there\nhint: start the program that writes to it first, or give a regular file\n`,
      );
    }
  });

  it('an empty path is named as such, never read as the current directory', async () => {
    expect(await spawnCli(['validate', ''])).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: the document file's path is empty\nhint: give a file path, or - to read from stdin\n",
    });
    expect((await spawnCli(['sign', '--body', ''], { env })).stderr).toBe(
      "error: the body file's path is empty\nhint: give a file path, or - to read from stdin\n",
    );
    expect((await spawnCli(['report', '--log', ''])).stderr).toBe(
      "error: the log file's path is empty\nhint: give a file path, or - to read from stdin\n",
    );
    expect((await spawnCli(['sign', '--secret-file', '', '--body', '-'], { stdin: '{}' })).stderr).toBe(
      "error: the secret file's path is empty (from --secret-file )\nhint: give the path of the file that holds the secret\n",
    );
  });
});
