/**
 * What `cai conformance run` does with its report, whichever role ran: the files asked for (`--junit`, `--html`,
 * `--summary` or `$GITHUB_STEP_SUMMARY`), then the report on stdout (the table, or `--json`), then the warnings on
 * stderr. A run that stops before any check still writes every file, from a report that carries its error, with
 * the same reporters (src/conformance/reporters).
 */
import type { SuiteReport } from '../../conformance/types.js';
import type { InterfaceId } from '../../spec/constants.js';
import { CaiError, errorMessage } from '../../errors.js';
import type { CommandContext } from '../common/runner.js';
import { generator, writeOrFail } from '../common/report-files.js';
import { wrap } from '../../output/layout.js';

export interface ReportFlags {
  junit?: string;
  html?: string;
  summary?: string;
  failOn: 'must' | 'warnings';
  /** A must check not judged fails the run (exit 1). */
  failOnNotJudged?: boolean;
  verbose?: boolean;
  /** `--format`: the report on stdout; default `table` on a terminal (or with --verbose), `compact` otherwise. */
  format?: ReportFormat;
}

export type ReportFormat = 'compact' | 'table';

/**
 * The layout of the report on stdout: the one asked for, else the table on a terminal (where it lists no checks
 * unless --verbose) or with --verbose (every check), else the compact form a log reads best: a line per failure.
 */
export function reportFormat(flags: Pick<ReportFlags, 'format' | 'verbose'>, terminal: boolean): ReportFormat {
  return flags.format ?? (terminal || flags.verbose === true ? 'table' : 'compact');
}

/** The files of a run: each written whole, from the same view (redacted; `ok` judged by --fail-on). */
export async function writeReportFiles(
  view: import('../../conformance/reporters/index.js').ReportView,
  flags: ReportFlags,
  context: CommandContext,
): Promise<void> {
  const { output, io } = context;
  const { REPORTERS } = await import('../../conformance/reporters/index.js');
  if (flags.junit !== undefined) {
    await writeOrFail(flags.junit, await REPORTERS.junit(view, {}), 'JUnit report', context);
    output.info(`JUnit report written to ${flags.junit}`);
  }
  if (flags.html !== undefined) {
    await writeOrFail(flags.html, await REPORTERS.html(view, { generator: await generator() }), 'HTML report', context);
    output.info(`HTML report written to ${flags.html}`);
  }
  const fromEnv = flags.summary === undefined ? io.env.GITHUB_STEP_SUMMARY : undefined;
  const summaryFile = flags.summary ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  if (summaryFile === undefined) return;
  const markdown = await REPORTERS.markdown(view, {});
  if (flags.summary !== undefined) {
    await writeOrFail(summaryFile, markdown, 'job summary', context, true);
    output.info(`job summary appended to ${summaryFile}`);
    return;
  }
  // The environment's file must not fail a run: a summary that cannot be appended there is a warning.
  try {
    await writeOrFail(summaryFile, markdown, 'job summary', context, true);
    output.info(`job summary appended to $GITHUB_STEP_SUMMARY (${summaryFile})`);
  } catch (error) {
    output.warn(`${errorMessage(error)} ($GITHUB_STEP_SUMMARY); the run's result stands`);
  }
}

/** Writes the files, prints the report, and returns the exit code: 0 when it passes, 1 otherwise. */
export async function renderReport(
  report: SuiteReport,
  flags: ReportFlags,
  context: CommandContext,
  secrets: readonly string[],
): Promise<number> {
  const { output } = context;
  const { REPORTERS, viewOf, preflightWarning, stoppedLine, unverifiedLine } = await import(
    '../../conformance/reporters/index.js'
  );
  const view = viewOf(report, flags.failOn, secrets, { failOnNotJudged: flags.failOnNotJudged === true });
  const unverified = unverifiedLine(view);
  await writeReportFiles(view, flags, context);
  if (output.json) {
    output.printJson(view);
    if (unverified !== undefined) output.warn(unverified);
    return view.ok ? 0 : 1;
  }
  const quiet = output.quiet;
  const format = reportFormat(flags, output.stdoutIsTTY);
  const text = await REPORTERS[format](view, {
    table: {
      ...(output.width !== undefined ? { width: output.width } : {}),
      palette: output.color,
      verbose: flags.verbose === true,
      quiet,
      table: (head, rows, columns) => output.table(head, rows, columns),
    },
    compact: { quiet },
  });
  for (const line of text.split('\n')) output.result(line);
  if (view.seed !== undefined) {
    const line = `stateful phase: seed ${view.seed} (the same seed draws the same conversations)`;
    for (const piece of output.width !== undefined ? wrap(line, output.width) : [line]) output.result(piece);
  }
  if (format === 'compact' && view.checks.some((check) => check.verdict === 'failed' || check.verdict === 'warning')) {
    output.note('each failure in detail (request, answer, reproduction): --format table, or --html FILE');
  }
  for (const notice of view.waivers) output.warn(notice.message);
  if (unverified !== undefined) output.warn(unverified);
  const refused = preflightWarning(view);
  if (refused !== undefined) output.warn(refused);
  if (view.stopped) output.warn(stoppedLine(view.stopped));
  if (view.reproDir)
    output.info(
      view.role === 'sender'
        ? `what the sender sent, for the failing checks: ${view.reproDir}`
        : `bodies and repro scripts of the failing requests: ${view.reproDir}`,
    );
  return view.ok ? 0 : 1;
}

export interface StoppedRun {
  interface: InterfaceId;
  role: 'receiver' | 'sender';
  startedAt: Date;
  target?: string;
  mock: boolean;
}

/** The report of a run that judged no check: stopped before any (with its error), or with nothing to run again. */
export async function reportOfNoCheck(
  run: StoppedRun,
  end: Pick<SuiteReport, 'ok' | 'durationMs' | 'error'>,
): Promise<SuiteReport> {
  const { runVersion } = await import('../../conformance/catalogue.js');
  return {
    ok: end.ok,
    version: runVersion(),
    target: run.target ?? '',
    interface: run.interface,
    mock: run.mock,
    startedAt: run.startedAt.toISOString(),
    durationMs: end.durationMs,
    clock: { offsetSeconds: null, dateHeader: null },
    summary: { passed: 0, failed: 0, skipped: 0, warnings: 0, waived: 0, notJudged: 0, total: 0 },
    checks: [],
    waivers: [],
    ...(end.error ? { error: end.error } : {}),
    ...(run.role === 'sender' ? { role: 'sender' as const } : {}),
  };
}

/**
 * A run stopped before any check (the target unreachable or plainly not the endpoint, a silent sender): every file
 * asked for still says what happened, so a CI page shows the reason. The error itself is then reported as usual.
 */
export async function reportStop(
  error: unknown,
  run: StoppedRun,
  flags: ReportFlags,
  context: CommandContext,
  secrets: readonly string[],
): Promise<void> {
  if (!(error instanceof CaiError) || error.kind !== 'delivery') return;
  const { viewOf } = await import('../../conformance/reporters/index.js');
  const report = await reportOfNoCheck(run, {
    ok: false,
    durationMs: Date.now() - run.startedAt.getTime(),
    error: { code: error.code, message: error.message, hint: error.hint },
  });
  // The run's own error stays the one reported: a report file that cannot be written only warns here.
  await writeReportFiles(
    viewOf(report, flags.failOn, secrets, { failOnNotJudged: flags.failOnNotJudged === true }),
    flags,
    context,
  ).catch((failure: unknown) => context.output.warn(errorMessage(failure)));
}
