/**
 * The end of `cai load`: its exit code (a redirect is exit 3, as in every command that sends; then a failed
 * threshold, 1), the HTML page, and the result printed whole before any `error:` line. And, before the run, the
 * check that the page can be written at all, so that a run is never lost to a bad path.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CommandContext } from '../common/runner.js';
import { CaiError, ExitCode, errnoCode, errorMessage, usageError } from '../../errors.js';
import type { LoadReport } from '../../load/report.js';

const HTML_HINT = 'pass an --html FILE in a directory that exists and is writable';

/** Usage error (exit 2) before any request unless `path` names a file cai can create or overwrite. */
export async function checkHtmlPath(path: string, { io }: CommandContext): Promise<void> {
  const full = isAbsolute(path) ? path : resolve(io.cwd, path);
  const refuse = (why: string) =>
    usageError('unwritable_file', `cannot write the HTML report to ${path}: ${why}`, HTML_HINT);
  const file = await stat(full).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw refuse(errorMessage(error));
  });
  if (file?.isDirectory()) throw refuse('it is a directory');
  const directory = await stat(dirname(full)).catch(() => undefined);
  if (directory === undefined) throw refuse('its directory does not exist');
  if (!directory.isDirectory()) throw refuse(`${dirname(path)} is not a directory`);
  await access(file ? full : dirname(full), constants.W_OK).catch(() => {
    throw refuse('permission denied');
  });
}

/** Writes the page, prints the result, then the error that sets the exit code, if any; returns the exit code. */
export async function finishLoad(
  report: LoadReport,
  html: string | undefined,
  context: CommandContext,
): Promise<number> {
  const { output } = context;
  report.exitCode = report.ok ? ExitCode.ok : ExitCode.negative;
  const redirects = report.redirects;
  if (redirects) {
    // Exit 3, as a redirecting target is in every command that sends (docs/cli.md), whatever the thresholds say.
    report.error = {
      code: 'target_redirects',
      message: `the target redirects: ${redirects.count} of ${report.requests.answered} answers were a 3xx, the first ${redirects.status} to ${redirects.location ?? '(no Location header)'}; redirects are not followed`,
      hint: 'pass the final URL as --to: a signed POST is never redirected',
      exitCode: ExitCode.delivery,
    };
    report.exitCode = ExitCode.delivery;
    report.ok = false;
  }
  if (html !== undefined) {
    const { writeLoadHtml } = await import('./html-report.js');
    await writeLoadHtml(report, html, context).catch((error: unknown) => {
      if (!(error instanceof CaiError)) throw error;
      // After a redirect (exit 3) the page is a warning; else its error sets the exit code.
      if (report.error) return output.warn(error.message);
      report.error = { code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode };
      report.exitCode = error.exitCode;
      report.ok = false;
    });
  }
  const { renderLoadReport } = await import('./summary.js');
  await renderLoadReport(report, output);
  if (report.error && !output.json) output.error(report.error.message, report.error.hint);
  return report.exitCode;
}
