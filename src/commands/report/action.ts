/**
 * `cai report`, its action: the mocks' logs read, the operation report built and shown (table, JSON, CSV, HTML). Loaded when the
 * command runs, not at every start-up.
 */
import { resolve } from 'node:path';
import type { CommandContext } from '../common/runner.js';
import type { TimeBound } from '../common/options.js';
import { INPUT_CAPS } from '../../bounds.js';
import { usageError } from '../../errors.js';
import { safeText } from '../../output/safe-text.js';

export interface ReportOptions {
  log?: string[];
  since?: TimeBound;
  until?: TimeBound;
  provider?: string;
  space: 'live' | 'test' | 'all';
  format: 'table' | 'json' | 'csv';
  html?: string;
}

/** What a record looks like, for the error when a file given as a log holds none (src/report/log.ts reads them). */
const LOG_RECORD_HINT =
  'cai report reads the NDJSON logs of cai mock platform|provider --log FILE: one JSON object a line, with "v": 1, "interface" ("A" or "B"), "received_at" and "verdict"';

/** Malformed lines listed one by one on stderr before the rest are summarised. */
const MALFORMED_SHOWN = 10;

export async function runReport(options: ReportOptions, context: CommandContext): Promise<number> {
  const { io, output } = context;
  const logs = options.log ?? [];
  if (logs.length === 0)
    throw usageError('missing_option', 'no log to report on', 'pass --log FILE (repeatable; - reads stdin)');
  if (logs.filter((log) => log === '-').length > 1)
    throw usageError(
      'bad_option',
      '--log - is given more than once',
      'stdin can be read once; pass the other logs as files',
    );
  const now = io.now();
  const since = resolveBound(options.since, now);
  const until = resolveBound(options.until, now);
  if (since !== undefined && until !== undefined && since >= until) {
    throw usageError(
      'bad_option',
      `--since (${new Date(since).toISOString()}) is not before --until (${new Date(until).toISOString()})`,
      'swap them, or widen the window',
    );
  }
  const { reportFromLogs, LogReadError, LogLineTooLongError, NotALogError } = await import('../../report/read.js');
  const { emptyPath, unreadable } = await import('../../input.js');
  const { access } = await import('node:fs/promises');
  // Every file is checked before the first is read: a typo in the second must not cost a long read of the first.
  for (const file of logs) {
    if (file === '-') continue;
    if (file === '') throw emptyPath('log');
    await access(resolve(io.cwd, file)).catch((error: unknown) => {
      throw unreadable(file, 'log', error);
    });
  }
  const inputs = logs.map((file) =>
    file === '-' ? { name: '(stdin)', stream: io.stdin } : { name: file, path: resolve(io.cwd, file) },
  );
  let report;
  try {
    report = await reportFromLogs(inputs, { since, until, provider: options.provider, space: options.space });
  } catch (error) {
    if (error instanceof LogReadError) throw unreadable(error.file, 'log', error.cause);
    if (error instanceof NotALogError) throw usageError('not_a_log', error.message, LOG_RECORD_HINT, error);
    if (error instanceof LogLineTooLongError)
      throw usageError('input_too_large', error.message, `${INPUT_CAPS.logLine.hint} (caps: docs/limits.md)`, error);
    throw error;
  }
  report.logs = logs;
  reportMalformed(report.malformed, output);
  // An empty log is legitimate (a mock that has received nothing yet): say so, and report the zeros.
  if (report.lines === 0)
    output.note(
      `${logs.length > 1 ? 'the logs hold' : `${logs[0]} holds`} no records yet: a mock writes one line per request it accepts`,
    );
  if (options.html !== undefined) {
    const [{ writeReportPage }, { renderOperationHtml }] = await Promise.all([
      import('../common/report-files.js'),
      import('./html-report.js'),
    ]);
    await writeReportPage(options.html, (generator) => renderOperationHtml(report, { generator }), context);
  }

  const format = output.json ? 'json' : options.format;
  if (format === 'json') {
    output.printJson(report);
    return 0;
  }
  if (format === 'csv') {
    const { toCsv } = await import('../../report/render.js');
    output.resultRaw(toCsv(report));
    return 0;
  }
  const { skippedRecords, tableViews, windowText } = await import('../../report/render.js');
  output.resultWrapped(
    `${safeText(logs.join(', '))}: ${report.lines} records, ${report.records.used} used (${report.filter.space} space${report.filter.provider ? `, provider ${report.filter.provider}` : ''}; ${windowText(report.filter)})`,
  );
  const skipped = skippedRecords(report);
  if (skipped !== undefined) output.resultWrapped(`skipped: ${skipped}`);
  for (const view of tableViews(report)) {
    output.result('');
    output.resultWrapped(output.color.bold(view.title));
    // Branch codes and outcome names come from the logs: escaped cell by cell.
    output.result(
      await output.table(
        view.head.map(safeText),
        view.rows.map((row) => row.map(safeText)),
      ),
    );
  }
  return 0;
}

function resolveBound(bound: TimeBound | undefined, now: number): number | undefined {
  if (bound === undefined) return undefined;
  return 'at' in bound ? bound.at : now - bound.agoMs;
}

function reportMalformed(
  malformed: readonly { file: string; line: number; reason: string }[],
  output: CommandContext['output'],
): void {
  for (const item of malformed.slice(0, MALFORMED_SHOWN))
    output.warn(`${item.file} line ${item.line} skipped: ${item.reason}`);
  if (malformed.length > MALFORMED_SHOWN)
    output.warn(`${malformed.length - MALFORMED_SHOWN} more malformed lines skipped (--json lists them all)`);
}
