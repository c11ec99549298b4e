import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BIN, ROOT } from './cli.js';

/** A `cai mock …` process started from the built binary, with its stdout lines and stderr collected. */
export interface MockProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
  /** Waits until some stdout line satisfies `test`. */
  waitForLine(test: (line: string) => boolean): Promise<string>;
}

/** Every mock process still running; `stopAllMockProcesses` ends them even when a test failed half-way. */
const started = new Set<ChildProcessWithoutNullStreams>();

export function stopAllMockProcesses(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
}

export async function startMockProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<MockProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env } });
  started.add(child);
  child.on('close', () => started.delete(child));
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    waiters.forEach((wake) => wake());
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => {
    waiters.forEach((wake) => wake());
    resolve(code);
  }));
  let done = false;
  void exited.then(() => (done = true));
  const waitForLine = (test: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find(test);
        if (found !== undefined) {
          waiters.delete(check);
          resolve(found);
        } else if (done) {
          waiters.delete(check);
          reject(new Error(`the mock exited before printing the expected line; stderr:\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  const first = await waitForLine(() => true);
  // The start-up notes go to stderr around the same time; wait for the last of them.
  while (!stderr.includes('ready') && !done) await new Promise((resolve) => setTimeout(resolve, 5));
  const url = first.startsWith('{') ? (JSON.parse(first) as { url: string }).url : first;
  return { child, url, lines, stderr: () => stderr, exited, waitForLine };
}
