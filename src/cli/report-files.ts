/**
 * The report files the commands write beside their output: `cai conformance run --html/--summary` and
 * `cai report --html`. The renderers are pure (src/output/html, src/output/job-summary.ts); this only writes, and
 * turns a file that cannot be written into the usage error of exit 2 (or, for the job summary taken from
 * `$GITHUB_STEP_SUMMARY` rather than a flag, a warning: the environment's file must not fail a run).
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { errnoCode, errorMessage, usageError } from '../errors.js';
import { maskSecrets } from '../secrets/mask.js';
import type { CommandContext } from './runner.js';
import type { ConformanceView } from '../output/html/conformance-report.js';

/** `cai 0.2.0` for the pages' generator line; read only when a page is written. */
async function generator(): Promise<string> {
  const { versionInfo } = await import('../version.js');
  return `cai ${versionInfo().version}`;
}

async function writeOrFail(path: string, content: string, what: string, { io }: CommandContext, append = false): Promise<void> {
  const full = isAbsolute(path) ? path : resolve(io.cwd, path);
  // Every report file, as every line printed: secrets and URL passwords masked (issue 14; src/secrets/mask.ts).
  const masked = maskSecrets(content);
  try {
    await (append ? appendFile(full, masked) : writeFile(full, masked));
  } catch (error) {
    throw usageError('unwritable_file', `cannot write the ${what} to ${path}: ${why(error)}`, 'check that the directory exists and is writable', error);
  }
}

function why(error: unknown): string {
  const code = errnoCode(error);
  if (code === 'ENOENT') return 'its directory does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return errorMessage(error);
}

export interface ConformanceFiles {
  html?: string;
  summary?: string;
}

/** `--html FILE` (written) and `--summary FILE` or `$GITHUB_STEP_SUMMARY` (appended), from the redacted report. */
export async function writeConformanceFiles(report: ConformanceView, files: ConformanceFiles, context: CommandContext): Promise<void> {
  const { output, io } = context;
  if (files.html !== undefined) {
    const { renderConformanceHtml } = await import('../output/html/conformance-report.js');
    await writeOrFail(files.html, renderConformanceHtml(report, { generator: await generator() }), 'HTML report', context);
    output.info(`HTML report written to ${files.html}`);
  }
  const fromEnv = files.summary === undefined ? io.env.GITHUB_STEP_SUMMARY : undefined;
  const summaryFile = files.summary ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  if (summaryFile === undefined) return;
  const { renderJobSummary } = await import('../output/job-summary.js');
  const markdown = renderJobSummary(report);
  if (files.summary !== undefined) {
    await writeOrFail(summaryFile, markdown, 'job summary', context, true);
    output.info(`job summary appended to ${summaryFile}`);
    return;
  }
  try {
    await writeOrFail(summaryFile, markdown, 'job summary', context, true);
    output.info(`job summary appended to $GITHUB_STEP_SUMMARY (${summaryFile})`);
  } catch (error) {
    output.warn(`${errorMessage(error)} ($GITHUB_STEP_SUMMARY); the run's result stands`);
  }
}

/** `cai report --html FILE`: the operation report with its charts. */
export async function writeOperationHtml(report: import('../output/html/operation-report.js').OperationView, path: string, context: CommandContext): Promise<void> {
  const { renderOperationHtml } = await import('../output/html/operation-report.js');
  await writeOrFail(path, renderOperationHtml(report, { generator: await generator() }), 'HTML report', context);
  context.output.info(`HTML report written to ${path}`);
}

/** Any other page (`cai load --html FILE`), rendered with the generator line and written as the reports above. */
export async function writeReportPage(path: string, render: (generator: string) => string, context: CommandContext): Promise<void> {
  await writeOrFail(path, render(await generator()), 'HTML report', context);
  context.output.info(`HTML report written to ${path}`);
}
