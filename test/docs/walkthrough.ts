/**
 * Runs the walk-through of a Markdown page as a user would type it, and compares what came back with what the
 * page shows.
 *
 * The page marks its walk-through blocks with an HTML comment before the fence (`example` instead of
 * `walkthrough` in docs/, same rules):
 *   <!-- walkthrough -->              `$ ` lines are commands typed in the first terminal, in order; the lines
 *                                     after a command are (an excerpt of) what it prints.
 *   <!-- walkthrough: terminal 2 -->  the same, in a second terminal: its last command keeps running (a mock),
 *                                     so it is started in the background. A new command there first stops the
 *                                     one running (the Ctrl-C the page asks for). A block of terminal 2 with no
 *                                     command shows lines that terminal prints later (requests as they arrive).
 *
 * Expected lines: `…` alone skips any number of lines; `…` inside a line stands for any text. Lines are compared
 * after normalising what changes from run to run (times of day, durations, ports, the clock offset).
 * A command whose exit status the page does not show (`$ echo $?` right after it) must exit 0; one that keeps
 * running in terminal 2 is stopped with Ctrl-C, and must exit 130 then. Ctrl-C is what a terminal sends: SIGINT to
 * the command's whole process group (`npx cai-toolkit …` is npm and the cai it starts).
 *
 * Ports: a command of terminal 2 that says `--port N` listens on a free port instead (`--port 0`); the port it
 * prints in its first line replaces `127.0.0.1:N` in every later command.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks } from './markdown.js';

export interface Step {
  terminal: 1 | 2;
  /** The command as the page shows it (continuations joined); undefined for a terminal-2 output block. */
  command?: string;
  expected: string[];
  /** Line of the page, for messages. */
  line: number;
  /** The page shows this command's status with `$ echo $?` right after it. */
  statusShown: boolean;
  /** The last command of a terminal-2 block: it keeps running while the walk-through goes on. */
  background: boolean;
}

/** `walkthrough` in the README, `example` in docs/: the same rules. */
const MARKERS: Record<string, 1 | 2 | undefined> = {
  walkthrough: 1,
  'walkthrough: terminal 2': 2,
  example: 1,
  'example: terminal 2': 2,
};

export function walkthroughSteps(markdown: string): Step[] {
  const steps: Step[] = [];
  for (const block of codeBlocks(markdown)) {
    const kind = MARKERS[block.marker ?? ''];
    if (kind === undefined) continue;
    let current: Step | undefined;
    let continued = false;
    block.lines.forEach((text, index) => {
      const line = block.line + index;
      // A command continues on the next line after a trailing `\`; output lines are taken as they are.
      if (continued && current?.command !== undefined) {
        current.command += ` ${text.replace(/\\\s*$/, '').trim()}`;
        continued = /\\\s*$/.test(text);
        return;
      }
      const prompt = /^\$ (.*)$/.exec(text);
      if (prompt) {
        const command = prompt[1] as string;
        continued = /\\\s*$/.test(command);
        current = {
          terminal: kind,
          command: command.replace(/\\\s*$/, '').trim(),
          expected: [],
          line,
          statusShown: false,
          background: false,
        };
        steps.push(current);
        return;
      }
      if (!current) {
        current = { terminal: kind, expected: [], line, statusShown: false, background: false };
        steps.push(current);
      }
      if (text.trim() !== '' || current.expected.length > 0) current.expected.push(text.replace(/\s+$/, ''));
    });
    const last = current;
    if (kind === 2 && last?.command !== undefined) last.background = true;
  }
  steps.forEach((step, index) => {
    const next = steps[index + 1];
    if (next?.command === 'echo $?') step.statusShown = true;
  });
  for (const step of steps) while (step.expected.at(-1) === '') step.expected.pop();
  return steps;
}

/** What changes from run to run, the same way in the page and in the output. */
export function normalise(line: string): string {
  return line
    .replace(/\b\d{2}:\d{2}:\d{2}\.\d{3}\b/g, '<time>')
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:<port>')
    .replace(/clock offset [+-]?\d+ s/g, 'clock offset <offset>')
    .replace(/\b\d+(\.\d+)? (ms|s|min)\b/g, '<duration>');
}

/** Does `pattern` (a page line, `…` = any text) match `line`? Both normalised. */
export function lineMatches(pattern: string, line: string): boolean {
  const parts = normalise(pattern)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(normalise(line));
}

/**
 * The expected lines, in order, within the actual ones: consecutive lines must follow each other, `…` lets any
 * number of lines pass. Returns the first expected line not found, or undefined.
 */
export function missingLine(expected: readonly string[], actual: readonly string[]): string | undefined {
  let from = 0;
  let gap = true; // the first expected line may be anywhere
  for (const want of expected) {
    if (want.trim() === '…') {
      gap = true;
      continue;
    }
    let found = -1;
    for (let at = from; at < actual.length; at += 1) {
      if (lineMatches(want, actual[at] as string)) {
        found = at;
        break;
      }
      if (!gap) break;
    }
    if (found < 0) return want;
    from = found + 1;
    gap = false;
  }
  return undefined;
}

export interface StepResult {
  step: Step;
  status?: number;
  stdout: string;
  stderr: string;
}

/** The bash script that runs the steps; outputs go to DIR/out.N, DIR/err.N, statuses to DIR/rc.N. */
export function walkthroughScript(steps: readonly Step[], dir: string): string {
  const lines = [
    'set -u',
    // Job control: each command of terminal 2 runs in a process group of its own, as in a terminal of its own.
    'set -m',
    // Stop whatever still runs in terminal 2 when the script ends, however it ends.
    `trap 'for p in $(jobs -p); do kill -INT -- "-$p" 2>/dev/null; done; wait' EXIT`,
    'bg=',
  ];
  const ports = new Set<string>();
  const substitute = (command: string) => {
    let text = command;
    for (const port of ports) text = text.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:\${P_${port}}`);
    return text;
  };
  steps.forEach((step, index) => {
    if (step.command === undefined) return;
    const out = join(dir, `out.${index}`);
    const err = join(dir, `err.${index}`);
    const rc = join(dir, `rc.${index}`);
    if (step.background) {
      const port = /--port (\d+)/.exec(step.command)?.[1];
      const command = substitute(step.command).replace(/--port \d+/, '--port 0');
      lines.push(
        // The Ctrl-C before a new command in terminal 2.
        'if [ -n "$bg" ]; then kill -INT -- "-$bg"; wait "$bg"; echo $? > "$bg_rc"; bg=; fi',
        `${command} > '${out}' 2> '${err}' &`,
        `bg=$!; bg_rc='${rc}'`,
        // Ready when it has printed its first line (its URL).
        `for i in $(seq 1 300); do [ -s '${out}' ] && break; sleep 0.05; done`,
      );
      if (port) {
        lines.push(`P_${port}=$(sed -n '1s#^.*127\\.0\\.0\\.1:\\([0-9]*\\).*$#\\1#p' '${out}')`);
        ports.add(port);
      }
      return;
    }
    lines.push(
      `{ ${substitute(step.command)}\n} > '${out}' 2> '${err}'`,
      `__rc=$?; echo "$__rc" > '${rc}'; (exit "$__rc")`,
    );
  });
  lines.push('if [ -n "$bg" ]; then kill -INT -- "-$bg"; wait "$bg"; echo $? > "$bg_rc"; fi', 'exit 0');
  return `${lines.join('\n')}\n`;
}

export interface RunOptions {
  /** Directory with a `cai` executable, put first on PATH; none for a page that runs `npx cai-toolkit`. */
  binDir?: string;
  /** More environment variables (npm's cache, say). */
  env?: NodeJS.ProcessEnv;
  /** Working directory of the walk-through. */
  cwd: string;
  /** Where the outputs are kept. */
  outDir: string;
  timeoutMs: number;
}

export async function runWalkthrough(steps: readonly Step[], options: RunOptions): Promise<StepResult[]> {
  mkdirSync(options.outDir, { recursive: true });
  const script = join(options.outDir, 'walkthrough.sh');
  writeFileSync(script, walkthroughScript(steps, options.outDir));
  const path = process.env.PATH ?? '/usr/bin:/bin';
  const env: NodeJS.ProcessEnv = {
    PATH: options.binDir === undefined ? path : `${options.binDir}:${path}`,
    HOME: options.cwd,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
    ...options.env,
  };
  const child = spawn('bash', [script], { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let scriptErr = '';
  child.stderr.on('data', (chunk: Buffer) => (scriptErr += chunk.toString('utf8')));
  child.stdout.resume();
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup('SIGKILL');
  }, options.timeoutMs);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (timedOut)
      throw new Error(
        `the walk-through was stopped after ${options.timeoutMs / 1000} s, ${running(steps, options.outDir)}`,
      );
    if (code !== 0) throw new Error(`the walk-through script ended with ${code}${scriptErr ? `:\n${scriptErr}` : ''}`);
  } finally {
    clearTimeout(timer);
    killGroup('SIGKILL');
  }
  const read = (name: string) => {
    try {
      return readFileSync(join(options.outDir, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  return steps.map((step, index) => {
    const rc = read(`rc.${index}`);
    return {
      step,
      status: rc === undefined ? undefined : Number(rc.trim()),
      stdout: read(`out.${index}`) ?? '',
      stderr: read(`err.${index}`) ?? '',
    };
  });
}

/** Which step a stopped walk-through was in: the last one started (its output file exists) that wrote no status. */
function running(steps: readonly Step[], outDir: string): string {
  const started = steps.flatMap((step, index) =>
    step.command !== undefined && !step.background && existsSync(join(outDir, `out.${index}`)) ? [index] : [],
  );
  const last = started.at(-1);
  if (last === undefined) return 'before its first command';
  const step = steps[last] as Step;
  const ended = existsSync(join(outDir, `rc.${last}`));
  return `${ended ? 'after' : 'in'} line ${step.line}: \`${step.command}\``;
}

/** Every way the run departs from the page, as messages naming the page line. */
export function compare(results: readonly StepResult[], page: string): string[] {
  const problems: string[] = [];
  let terminal2: StepResult | undefined;
  for (const result of results) {
    const { step } = result;
    const where = `${page}:${step.line}`;
    if (step.background) terminal2 = result;
    // A terminal-2 block without a command shows what the running command printed later.
    const source = step.command === undefined ? terminal2 : result;
    if (!source) {
      problems.push(`${where}: output shown for terminal 2 before any command runs there`);
      continue;
    }
    // CRLF (the CSV of `cai report`) compares as LF.
    const actual =
      `${source.stdout}${source.stdout.endsWith('\n') || source.stdout === '' ? '' : '\n'}${source.stderr}`.split(
        /\r?\n/,
      );
    const missing = missingLine(step.expected, actual);
    if (missing !== undefined) {
      problems.push(
        `${where}: \`${step.command ?? '(terminal 2)'}\` did not print\n    ${missing}\n  it printed:\n${actual.map((line) => `    ${line}`).join('\n')}`,
      );
    }
    if (step.command === undefined) continue;
    // A command of terminal 2 keeps running until the walk-through stops it with Ctrl-C: 130, as every command.
    const expected = step.background ? 130 : 0;
    if (result.status === undefined) problems.push(`${where}: \`${step.command}\` did not run to the end`);
    else if (!step.statusShown && result.status !== expected)
      problems.push(
        `${where}: \`${step.command}\` exited ${result.status}; the page shows no status, so ${expected} is expected\n${result.stderr}`,
      );
  }
  return problems;
}
