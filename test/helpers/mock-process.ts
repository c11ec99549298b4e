import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/**
 * Starts `cai ARGS`; with `prefix`, through it: `['bash', '-c', 'ulimit -S -f 8 && exec "$0" "$@"']` runs the
 * mock under that limit (the node command and its arguments follow the prefix).
 */
export async function startMockProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  prefix: string[] = [],
): Promise<MockProcess> {
  const command = [...prefix, process.execPath, BIN, ...args];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
  });
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
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      waiters.forEach((wake) => wake());
      resolve(code);
    }),
  );
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

/** A reference receiver started from the built library (dist/) in a process of its own, to measure or to limit. */
export interface LibraryMock {
  child: ChildProcessWithoutNullStreams;
  url: string;
  port: number;
  reloaded: number;
  /** Resident memory now and at its peak, in bytes (Linux /proc; undefined elsewhere). */
  memory(): { rss: number; peak: number } | undefined;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

const LIBRARY_MOCK = `
const [kind, json] = process.argv.slice(1);
const library = await import(${JSON.stringify(`${ROOT}dist/index.js`)});
const options = JSON.parse(json);
const mock = kind === 'provider' ? await library.startMockProvider(options) : await library.startMockPlatform({ keepRecords: false, ...options });
process.stdout.write(JSON.stringify({ url: mock.url, port: mock.port, reloaded: mock.reloaded ?? 0 }) + '\\n');
process.on('SIGTERM', () => mock.close().then(() => process.exit(0)));
`;

/**
 * Starts `startMockPlatform(options)` (or the provider) in a child process; `fileSizeBlocks` caps the size of
 * any file it writes (`ulimit -f`, 1 KiB blocks: a disk that is full past that size).
 */
export async function startLibraryMock(
  kind: 'platform' | 'provider',
  options: object,
  limits: { fileSizeBlocks?: number } = {},
): Promise<LibraryMock> {
  const node = [process.execPath, '--input-type=module', '-e', LIBRARY_MOCK, kind, JSON.stringify(options)];
  const child =
    limits.fileSizeBlocks === undefined
      ? spawn(node[0] as string, node.slice(1), { cwd: ROOT })
      : spawn('bash', ['-c', `ulimit -f ${limits.fileSizeBlocks} && exec "$0" "$@"`, ...node], { cwd: ROOT });
  started.add(child);
  child.on('close', () => started.delete(child));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    void exited.then((code) => reject(new Error(`the library mock exited (${code}) before listening:\n${stderr}`)));
  });
  const started_ = JSON.parse(first) as { url: string; port: number; reloaded: number };
  return {
    child,
    ...started_,
    memory() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kib = (name: string) => Number(new RegExp(`^${name}:\\s+([0-9]+) kB`, 'm').exec(status)?.[1]) * 1024;
        return { rss: kib('VmRSS'), peak: kib('VmHWM') };
      } catch {
        return undefined;
      }
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
