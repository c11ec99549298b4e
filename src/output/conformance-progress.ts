/**
 * Live progress of `cai conformance run` on stderr, only when stderr is a terminal (and neither --json nor
 * --quiet): one status line redrawn as checks finish (how many, the counts by verdict, the last check), cleared
 * before the summary. A terminal that reports no width gets one line per finished check instead.
 */
import { VERDICT_SYMBOL as VERDICT_SYMBOLS } from '../conformance/reporters/text.js';
import { verdictPaint } from '../conformance/reporters/table.js';
import type { CheckResult } from '../conformance/types.js';
import { ProgressLine, type Terminal } from './progress.js';
import { truncate } from './layout.js';

export interface ConformanceProgress {
  onFinish?: (result: CheckResult) => void;
  /** Prints a line on stderr above the status line (which is redrawn at the next check). */
  say(print: () => void): void;
  /** Clears the status line (before the summary is printed). */
  stop(): void;
}

export function conformanceProgress(terminal: Terminal, total: number): ConformanceProgress {
  const { output } = terminal;
  if (!output.stderrIsTTY || output.json || output.quiet) return { say: (print) => print(), stop() {} };
  const paint = verdictPaint(output.errColor);
  const counts: Record<CheckResult['verdict'], number> = { passed: 0, failed: 0, warning: 0, waived: 0, 'not-judged': 0, skipped: 0 };
  let done = 0;
  const line = new ProgressLine(terminal);
  const width = String(total).length;
  if (!line.live) {
    // No width to redraw a line in: one line per finished check, cut to the width assumed (80).
    return {
      onFinish: (result) => {
        done += 1;
        const time = result.verdict === 'skipped' || result.verdict === 'not-judged' ? '' : output.errColor.dim(` ${result.durationMs} ms`);
        const text = `${paint[result.verdict](VERDICT_SYMBOLS[result.verdict])} ${String(done).padStart(width)}/${total} ${result.id} ${result.title}${time}`;
        output.info(truncate(text, output.errWidth ?? 80));
      },
      say: (print) => print(),
      stop() {},
    };
  }
  line.update(`running ${total} checks…`);
  return {
    onFinish: (result) => {
      done += 1;
      counts[result.verdict] += 1;
      const tally = (['passed', 'failed', 'warning', 'waived', 'not-judged', 'skipped'] as const)
        .filter((verdict) => counts[verdict] > 0)
        .map((verdict) => paint[verdict](`${VERDICT_SYMBOLS[verdict]} ${counts[verdict]}`))
        .join(' ');
      line.update(`${String(done).padStart(width)}/${total} checks  ${tally}  ${output.errColor.dim(`${result.id} ${result.title}`)}`);
    },
    say: (print) => {
      line.clear();
      print();
    },
    stop: () => line.clear(),
  };
}
