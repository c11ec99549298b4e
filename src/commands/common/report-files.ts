/**
 * Writing the report files the commands write beside their output (`cai report --html`; the conformance reports,
 * commands/conformance/report.ts). The renderers are pure; this only writes, and turns a file that cannot be written into
 * the usage error of exit 2.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { errnoCode, errorMessage, usageError } from '../../errors.js';
import { maskSecrets } from '../../secrets/mask.js';
import type { CommandContext } from './runner.js';

/** `cai 0.2.0` for the pages' generator line; read only when a page is written. */
export async function generator(): Promise<string> {
  const { versionInfo } = await import('../../version.js');
  return `cai ${versionInfo().version}`;
}

export async function writeOrFail(
  path: string,
  content: string,
  what: string,
  { io }: CommandContext,
  append = false,
): Promise<void> {
  const full = isAbsolute(path) ? path : resolve(io.cwd, path);
  // Every report file, as every line printed: secrets and URL passwords masked (src/secrets/mask.ts).
  const masked = maskSecrets(content);
  try {
    await (append ? appendFile(full, masked) : writeFile(full, masked));
  } catch (error) {
    throw usageError(
      'unwritable_file',
      `cannot write the ${what} to ${path}: ${why(error)}`,
      'check that the directory exists and is writable',
      error,
    );
  }
}

function why(error: unknown): string {
  const code = errnoCode(error);
  if (code === 'ENOENT') return 'its directory does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return errorMessage(error);
}

/** `cai report --html FILE`: the operation report with its charts. */
export async function writeOperationHtml(
  report: import('../report/html-report.js').OperationView,
  path: string,
  context: CommandContext,
): Promise<void> {
  const { renderOperationHtml } = await import('../report/html-report.js');
  await writeOrFail(path, renderOperationHtml(report, { generator: await generator() }), 'HTML report', context);
  context.output.info(`HTML report written to ${path}`);
}

/** Any other page (`cai load --html FILE`), rendered with the generator line and written as the reports above. */
export async function writeReportPage(
  path: string,
  render: (generator: string) => string,
  context: CommandContext,
): Promise<void> {
  await writeOrFail(path, render(await generator()), 'HTML report', context);
  context.output.info(`HTML report written to ${path}`);
}
