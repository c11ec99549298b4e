/**
 * What `cai conformance run` does with its report, whichever role ran: the files asked for (`--junit`, `--html`,
 * `--summary` or `$GITHUB_STEP_SUMMARY`; their paths checked before the run), then the report on stdout (the table,
 * or `--json`), then the warnings on stderr, then any file that could not be written. A run that stops before any check still writes every file, from a report that carries its error, with
 * the same reporters (src/conformance/reporters).
 */
import type { SuiteReport } from '../../conformance/types.js';
import type { InterfaceId } from '../../spec/constants.js';
import { CaiError, errorMessage } from '../../errors.js';
import type { CommandContext } from '../common/runner.js';
import { generator, writeOrFail } from '../common/report-files.js';

export interface ReportFlags {
  junit?: string;
  html?: string;
  summary?: string;
  failOn: 'must' | 'warnings';
  /** A must check not judged fails the run (exit 1). */
  failOnNotJudged?: boolean;
  verbose?: boolean;
  /**
   * `--format`: the report on stdout. Default: the table on a terminal (where it lists no checks unless --verbose) or
   * with --verbose (every check), else the compact form a log reads best: a line per failure.
   */
  format?: 'compact' | 'table';
}

/** The files the flags ask for: what each is called and its reporter; the summary is appended to. */
const REPORT_FILES = [
  { flag: 'junit', what: 'JUnit report', reporter: 'junit' },
  { flag: 'html', what: 'HTML report', reporter: 'html' },
  { flag: 'summary', what: 'job summary', reporter: 'markdown' },
] as const;

/**
 * The files of a run, each written whole from the same view (redacted; `ok` judged by --fail-on): every file that can
 * be written is written; those that cannot are returned (their usage errors).
 */
export async function writeEachFile(
  view: import('../../conformance/reporters/index.js').ReportView,
  flags: ReportFlags,
  context: CommandContext,
): Promise<unknown[]> {
  const { output, io } = context;
  const { REPORTERS } = await import('../../conformance/reporters/index.js');
  const options = flags.html !== undefined ? { generator: await generator() } : {};
  const failures: unknown[] = [];
  for (const { flag, what, reporter } of REPORT_FILES) {
    const path = flags[flag];
    const append = flag === 'summary';
    if (path !== undefined)
      await writeOrFail(path, await REPORTERS[reporter](view, options), what, context, append).then(
        () => output.info(`${what} ${append ? 'appended' : 'written'} to ${path}`),
        (error: unknown) => failures.push(error),
      );
  }
  const fromEnv = flags.summary === undefined ? io.env.GITHUB_STEP_SUMMARY : undefined;
  if (fromEnv === undefined || fromEnv === '') return failures;
  // The environment's file must not fail a run: a summary that cannot be appended there is a warning.
  try {
    await writeOrFail(fromEnv, await REPORTERS.markdown(view, {}), 'job summary', context, true);
    output.info(`job summary appended to $GITHUB_STEP_SUMMARY (${fromEnv})`);
  } catch (error) {
    output.warn(`${errorMessage(error)} ($GITHUB_STEP_SUMMARY); the run's result stands`);
  }
  return failures;
}

/**
 * Before the run: each file asked for can be written and the repro directory is one cai can write into, so that a
 * bad path is a usage error at once rather than a run's results lost at its end.
 */
export async function checkRunFiles(
  flags: Pick<ReportFlags, 'junit' | 'html' | 'summary'> & { reproDir?: string },
  context: CommandContext,
): Promise<void> {
  const { checkWritable } = await import('../common/report-files.js');
  for (const { flag, what } of REPORT_FILES) {
    const path = flags[flag];
    if (path !== undefined) await checkWritable(path, what, context);
  }
  if (flags.reproDir !== undefined) await (await import('./repro-dir.js')).prepareReproDir(flags.reproDir, context);
}

/**
 * A file that could not be written after the run (the disk full, its directory removed meanwhile): the result has
 * been printed whole, each failure is an `error:` line, and the exit code is the verdict's when the run failed,
 * else 2 (a file asked for is missing).
 */
function exitCodeOf(ok: boolean, failures: readonly unknown[], context: CommandContext): number {
  failures.forEach((failure, index) =>
    context.output.error(
      errorMessage(failure),
      index === failures.length - 1 ? 'the result above stands; check the directory and its free space' : undefined,
    ),
  );
  return !ok ? 1 : failures.length > 0 ? 2 : 0;
}

/** Writes the files, prints the report, and returns the exit code: 0 when it passes, 1 otherwise (2: a file unwritten). */
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
  const failures = await writeEachFile(view, flags, context);
  // In GitHub Actions, each failure annotates the run's page and the pull request (with --json too: on stderr).
  if (context.io.env.GITHUB_ACTIONS === 'true') {
    const { renderAnnotations } = await import('../../conformance/reporters/github.js');
    for (const line of renderAnnotations(view)) output.annotation(line);
  }
  if (output.json) {
    output.printJson(view);
    if (unverified !== undefined) output.warn(unverified);
    return exitCodeOf(view.ok, failures, context);
  }
  const quiet = output.quiet;
  const format = flags.format ?? (output.stdoutIsTTY || flags.verbose === true ? 'table' : 'compact');
  const text = await REPORTERS[format](view, {
    table: {
      ...(output.width !== undefined ? { width: output.width } : {}),
      palette: output.color,
      verbose: flags.verbose === true,
      quiet,
      table: (head, rows, columns) => output.table(head, rows, columns),
    },
    compact: { quiet, palette: output.color },
  });
  for (const line of text.split('\n')) output.result(line);
  // The seed replays the stateful phase; a run stopped by its diagnosis before any check has none to replay.
  if (view.seed !== undefined && view.diagnosis === undefined) {
    output.resultWrapped(`stateful phase: seed ${view.seed} (the same seed draws the same conversations)`);
  }
  if (format === 'compact' && view.checks.some((check) => check.verdict === 'failed' || check.verdict === 'warning')) {
    output.note('each failure in detail (request, answer, reproduction): --format table, or --html FILE');
  }
  for (const notice of view.waivers) output.warn(notice.message);
  if (unverified !== undefined) output.warn(unverified);
  const refused = preflightWarning(view);
  if (refused !== undefined) output.warn(refused);
  if (view.stopped) output.warn(stoppedLine(view.stopped));
  const saved =
    view.role === 'sender'
      ? 'what the sender sent, for the failing checks'
      : 'bodies and repro scripts of the failing requests';
  if (view.reproDir) output.info(`${saved}: ${view.reproDir}`);
  return exitCodeOf(view.ok, failures, context);
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
  const view = viewOf(report, flags.failOn, secrets, { failOnNotJudged: flags.failOnNotJudged === true });
  // The run's own error stays the one reported: a report file that cannot be written only warns here.
  const [failure] = await writeEachFile(view, flags, context).catch((error: unknown) => [error]);
  if (failure !== undefined) context.output.warn(errorMessage(failure));
}

/** What an interrupted run's report holds, said once in the warning when Ctrl-C comes, not again under the report. */
export const INTERRUPTED_REPORT = 'the checks not run are reported as skipped, those cut short as not judged';

/**
 * A role's run, stopped by Ctrl-C through `signal` (`interrupted` says so, once: src/main.ts calls the listener again
 * when the run has not stopped a few seconds later), then its report; a run stopped before any check still writes
 * its files (reportStop).
 */
export async function runAndReport(
  run: StoppedRun,
  flags: ReportFlags,
  context: CommandContext,
  secrets: readonly string[],
  role: { interrupted(): void; execute(signal: AbortSignal): Promise<SuiteReport>; done?(): void },
): Promise<number> {
  const abort = new AbortController();
  const stopListening = context.io.onInterrupt(() => {
    if (abort.signal.aborted) return;
    role.interrupted();
    abort.abort();
  });
  let report: SuiteReport;
  try {
    report = await role.execute(abort.signal);
  } catch (error) {
    await reportStop(error, run, flags, context, secrets);
    throw error;
  } finally {
    role.done?.();
    stopListening();
  }
  return renderReport(report, flags, context, secrets);
}
