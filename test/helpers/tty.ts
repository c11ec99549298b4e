/**
 * Running the CLI in-process as if on a terminal: fake streams that say they are TTYs of a given width, and what a
 * terminal would show of their output (colour codes removed, a line redrawn with `\r` shown as its last state).
 */
import { run } from '../../src/main.js';
import { stripAnsi, visibleWidth } from '../../src/output/layout.js';
import { fakeIo, type CliResult, type FakeIo } from './cli.js';

export interface TtyOptions {
  columns: number;
  /** Which streams are terminals (default both). */
  stdout?: boolean;
  stderr?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function ttyIo(options: TtyOptions): FakeIo {
  const io = fakeIo({ env: options.env, cwd: options.cwd });
  for (const [stream, on] of [
    [io.stdout, options.stdout ?? true],
    [io.stderr, options.stderr ?? true],
  ] as const) {
    if (!on) continue;
    Object.assign(stream, { isTTY: true, columns: options.columns });
  }
  return io;
}

export async function runTty(argv: string[], options: TtyOptions): Promise<CliResult> {
  const io = ttyIo(options);
  const code = await run(argv, io);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: io.out(), stderr: io.err() };
}

/** The lines a terminal shows: colour codes gone, a line redrawn in place (`\r`, erase to the end) as it was last drawn. */
export function screenLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => stripAnsi(line.split('\r').pop() ?? ''));
}

/** The widest thing ever drawn on one line, redraws included. */
export function widestLine(text: string): number {
  return Math.max(
    0,
    ...text
      .split('\n')
      .flatMap((line) => line.split('\r'))
      .map((segment) => visibleWidth(segment)),
  );
}
