/**
 * Live progress of `cai conformance run` on stderr, only when stderr is a terminal (and neither --json nor
 * --quiet): one status line redrawn as checks finish (how many, the counts by verdict, the last check), cleared
 * before the summary. A terminal that cannot redraw (TERM=dumb, no width) gets one line per finished check instead.
 * Where stderr is no terminal (a pipe, a CI log), a run that finishes no check for WAIT_LINE_MS says what it is
 * still waiting for, at most one line every WAIT_LINE_MS: a CI log that stops moving looks like a hung job.
 */
import { VERDICT_SYMBOL as VERDICT_SYMBOLS } from '../../conformance/reporters/text.js';
import { formatDuration } from '../../duration.js';
import { verdictPaint } from '../../conformance/reporters/table.js';
import { CHECK_VERDICTS, type CheckResult, type CheckVerdict } from '../../conformance/types.js';
import type { Check } from '../../conformance/check.js';
import { WAIT_LINE_MS } from '../../output/wait-notice.js';
import { ProgressLine, type Terminal } from '../../output/progress.js';
import { truncate } from '../../output/layout.js';

export interface ConformanceProgress {
  onStart?: (check: Check) => void;
  onFinish?: (result: CheckResult) => void;
  /** Prints a line on stderr above the status line (which is redrawn at the next check). */
  say(print: () => void): void;
  /** Clears the status line (before the summary is printed). */
  stop(): void;
}

/** What the run waits for beyond its own requests: the provider's events of each job, for so long (Interface A). */
type ProgressWaits = { callbackWaitMs?: number };

export function conformanceProgress(terminal: Terminal, total: number, waits: ProgressWaits = {}): ConformanceProgress {
  const { output } = terminal;
  if (output.quiet) return { say: (print) => print(), stop() {} };
  if (!output.stderrIsTTY || output.json) return waitLines(terminal, total, waits);
  const paint = verdictPaint(output.errColor);
  const counts = Object.fromEntries(CHECK_VERDICTS.map((verdict) => [verdict, 0])) as Record<CheckVerdict, number>;
  let done = 0;
  const line = new ProgressLine(terminal);
  const width = String(total).length;
  line.update(`running ${total} checks…`);
  return {
    onFinish: (result) => {
      done += 1;
      counts[result.verdict] += 1;
      const at = `${String(done).padStart(width)}/${total}`;
      if (!line.live) {
        // No width to redraw a line in: one line per finished check, cut to the width assumed (80).
        const time =
          result.verdict === 'skipped' || result.verdict === 'not-judged'
            ? ''
            : output.errColor.dim(` ${result.durationMs} ms`);
        const text = `${paint[result.verdict](VERDICT_SYMBOLS[result.verdict])} ${at} ${result.id} ${result.title}${time}`;
        return output.info(truncate(text, output.errWidth ?? 80));
      }
      const tally = CHECK_VERDICTS.filter((verdict) => counts[verdict] > 0)
        .map((verdict) => paint[verdict](`${VERDICT_SYMBOLS[verdict]} ${counts[verdict]}`))
        .join(' ');
      line.update(`${at} checks  ${tally}  ${output.errColor.dim(`${result.id} ${result.title}`)}`);
    },
    // Clearing a line never drawn (no width to redraw it in) does nothing.
    say: (print) => {
      line.clear();
      print();
    },
    stop: () => line.clear(),
  };
}

/**
 * Without a line to redraw: nothing while checks finish, and a line when none has for WAIT_LINE_MS, naming the
 * checks still running and what the callback ones wait for: `still running 3 of 24 checks (21 done): A-CB-001,
 * A-CB-005, A-DEDUP-007; the provider's events of each job are awaited for up to 30 s (--callback-wait)`.
 */
function waitLines({ output }: Terminal, total: number, waits: ProgressWaits): ConformanceProgress {
  const running = new Map<string, Check>();
  let done = 0;
  // The last finished check or line said; looked at every second, so a line comes WAIT_LINE_MS after it.
  let lastActivity = Date.now();
  const timer = setInterval(
    () => {
      if (running.size === 0 || Date.now() - lastActivity < WAIT_LINE_MS) return;
      const ids = [...running.keys()];
      const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
      const callbacks = [...running.values()].some((check) => check.tags.includes('callback'));
      const awaited =
        callbacks && waits.callbackWaitMs !== undefined
          ? `; the provider's events of each job are awaited for up to ${formatDuration(waits.callbackWaitMs)} (--callback-wait)`
          : '';
      output.info(`still running ${running.size} of ${total} checks (${done} done): ${shown}${awaited}`);
      lastActivity = Date.now();
    },
    Math.min(WAIT_LINE_MS, 1000),
  );
  timer.unref();
  return {
    onStart: (check) => {
      running.set(check.id, check);
    },
    onFinish: (result) => {
      running.delete(result.id);
      done += 1;
      lastActivity = Date.now();
    },
    say: (print) => print(),
    stop: () => clearInterval(timer),
  };
}
