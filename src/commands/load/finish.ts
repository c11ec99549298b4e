/**
 * The end of `cai load`: its exit code (a redirect is exit 3, as in every command that sends; then a failed
 * threshold, 1), the HTML page, and the result printed whole before any `error:` line. And, before the run, the
 * check that the page can be written at all, so that a run is never lost to a bad path.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CommandContext } from '../common/runner.js';
import { CaiError, ExitCode, errnoCode, errorMessage, hintOf, usageError } from '../../errors.js';
import type { LoadReport } from '../../load/report.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { identityFlagOf } from '../common/options.js';
import { emptyOutputPath } from '../common/report-files.js';

const HTML_HINT = 'pass an --html FILE in a directory that exists and is writable';

/** Usage error (exit 2) before any request unless `path` names a file cai can create or overwrite. */
export async function checkHtmlPath(path: string, { io }: CommandContext): Promise<void> {
  if (path === '') throw emptyOutputPath('HTML report');
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

/**
 * A run in which not one request was accepted measured nothing but refusals: the URL, the secret or the identity is
 * wrong, and a threshold on latency alone (or none) would pass it. Answers that say the address is no endpoint
 * (404, 405, 501 only) are exit 3, as in every command that sends; no answer at all (a TLS or protocol failure on
 * every request) is exit 3; refusals (401, 400…) are exit 1. Undefined when any request was accepted, or when a run
 * cut short got no answer at all (its requests were stopped, not refused: the interruption fails it, in finishLoad).
 */
function noneAccepted(report: LoadReport): LoadReport['error'] | undefined {
  const { sent, answered } = report.requests;
  const counts = Object.entries(report.statuses).map(([status, count]) => [Number(status), count] as const);
  if (sent === 0 || (report.interrupted && answered === 0) || counts.some(([status]) => status >= 200 && status < 300))
    return undefined;
  const spec = interfaceSpec(report.interface);
  const seen = counts.map(([status, count]) => `${status} ×${count}`).join(', ');
  if (answered > 0 && counts.every(([status]) => status === 404 || status === 405 || status === 501))
    return {
      code: 'not_an_endpoint',
      message: `${report.target} is not ${spec.endpointKind}: not one of the ${sent} requests was accepted (${seen})`,
      hint: hintOf('not_an_endpoint', { interface: report.interface }),
      exitCode: ExitCode.delivery,
    };
  if (answered === 0) {
    const causes = Object.entries(report.failures)
      .map(([cause, count]) => `${cause} ×${count}`)
      .join(', ');
    return {
      code: 'nothing_answered',
      message: `not one of the ${sent} requests was answered (${causes || 'no answer'})`,
      hint: 'check the --to URL (http or https, the port) and that the receiver is running',
      exitCode: ExitCode.delivery,
    };
  }
  const reasons = report.rejections
    .slice(0, 3)
    .map((rejection) => `${rejection.status} ${rejection.reason} ×${rejection.count}`)
    .join(', ');
  return {
    code: 'none_accepted',
    message: `not one of the ${sent} requests was accepted: ${reasons || seen}`,
    hint: `check the secret and ${identityFlagOf(spec)}: the receiver's answer to one request in full: cai ${spec.document === 'event' ? 'send-event' : 'send-job'} --sample`,
    exitCode: ExitCode.negative,
  };
}

/** Writes the page, prints the result, then the error that sets the exit code, if any; returns the exit code. */
export async function finishLoad(
  report: LoadReport,
  html: string | undefined,
  context: CommandContext,
): Promise<number> {
  const { output } = context;
  // A run cut short (Ctrl-C, SIGTERM) has not shown what it was asked to: its thresholds are judged on what was sent
  // and shown, but it does not pass, as a k6 run aborted by a signal does not and an interrupted conformance run
  // does not (docs/cli.md).
  if (report.interrupted) report.ok = false;
  report.exitCode = report.ok ? ExitCode.ok : ExitCode.negative;
  /** The error that sets the exit code, whatever the thresholds say. */
  const fail = (error: NonNullable<LoadReport['error']>) => {
    report.error = error;
    report.exitCode = error.exitCode;
    report.ok = false;
  };
  const redirects = report.redirects;
  // Exit 3, as a redirecting target is in every command that sends (docs/cli.md).
  if (redirects)
    fail({
      code: 'target_redirects',
      message: `the target redirects: ${redirects.count} of ${report.requests.answered} answers were a 3xx, the first ${redirects.status} to ${redirects.location ?? '(no Location header)'}; redirects are not followed`,
      hint: 'pass the final URL as --to: a signed POST is never redirected',
      exitCode: ExitCode.delivery,
    });
  const refused = report.error ? undefined : noneAccepted(report);
  if (refused) fail(refused);
  if (html !== undefined) {
    const [{ writeReportPage }, { renderLoadHtml }] = await Promise.all([
      import('../common/report-files.js'),
      import('./html-report.js'),
    ]);
    // The page written, secrets masked as in every report file.
    await writeReportPage(html, (generator) => renderLoadHtml(report, { generator }), context).catch(
      (error: unknown) => {
        if (!(error instanceof CaiError)) throw error;
        // After a redirect (exit 3) the page is a warning; else its error sets the exit code.
        if (report.error) return output.warn(error.message);
        fail({ code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode });
      },
    );
  }
  const { renderLoadReport } = await import('./summary.js');
  await renderLoadReport(report, output);
  if (report.error && !output.json) output.error(report.error.message, report.error.hint);
  return report.exitCode;
}
