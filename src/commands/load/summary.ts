/**
 * `cai load` on the terminal: a live line on stderr while it runs (only on a terminal), then the summary on stdout
 * as k6 users read one: the thresholds ✓/✗ with the value judged, requests and rates, counts per status, latency
 * percentiles, rejections by reason, repeats and duplicates, first callbacks. With --json, the report itself. And
 * `cai load export`: the project's files written, and what to run.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open, rename, stat, unlink } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { makeDirs, whyNotWritten } from '../common/report-files.js';
import type { CommandContext } from '../common/runner.js';
import { errnoCode, usageError } from '../../errors.js';
import type { LoadReport } from '../../load/report.js';
import type { LoadProgress } from '../../load/run.js';
import { describeRate, type PhaseSpec } from '../../load/schedule.js';

import { verdictCounts, verdictDetail, verdictMark } from './needs.js';
import type { Output } from '../../output/output.js';
import { formatRate, PLAIN_EVERY_MS, ProgressLine } from '../../output/progress.js';
import { safeText } from '../../output/safe-text.js';
import { formatDuration } from '../../duration.js';
import { plural } from '../../text.js';

/**
 * The live line: elapsed of planned, the rate sent, in flight, p99 so far, statuses, dropped. On a terminal, redrawn
 * in place; elsewhere (a CI log), the same as a plain `progress:` line every PLAIN_EVERY_MS, none for a shorter run,
 * so that a long run shows it is alive and how it goes (stdout, --json's included, keeps the result alone). Neither
 * with --quiet.
 */
export class LiveLine {
  private readonly line: ProgressLine;
  private stopped = false;
  private lastPlainMs = 0;

  constructor(private readonly context: CommandContext) {
    this.line = new ProgressLine(context);
  }

  start(start: { url: string; callbackUrl?: string }, phases: readonly PhaseSpec[]): void {
    const plan = phases.map((phase) => `${describeRate(phase)} for ${seconds(phase.durationMs)}`).join(', then ');
    this.context.output.info(`cai load: ${start.url}: ${plan}`);
    if (start.callbackUrl !== undefined)
      this.context.output.info(`callbacks at ${start.callbackUrl.replace(/…$/, '<job>')}`);
  }

  update(progress: LoadProgress): void {
    if (this.stopped) return;
    const { output } = this.context;
    const plain = !this.line.live && !output.quiet;
    if (!this.line.live && !(plain && progress.elapsedMs - this.lastPlainMs >= PLAIN_EVERY_MS)) return;
    const rate = progress.elapsedMs > 0 ? (progress.sent * 1000) / progress.elapsedMs : 0;
    const statuses = [...progress.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
    const parts = [
      `${seconds(Math.min(progress.elapsedMs, progress.plannedMs))}/${seconds(progress.plannedMs)}`,
      `${progress.sent} sent (${formatRate(rate)}/s)`,
      `${progress.inFlight} in flight`,
      ...(progress.p99Ms !== undefined ? [`p99 ${formatDuration(progress.p99Ms)}`] : []),
      ...statuses,
      ...(progress.failed > 0 ? [`${progress.failed} failed`] : []),
      ...(progress.dropped > 0 ? [`${progress.dropped} dropped`] : []),
    ];
    if (this.line.live) return this.line.update(parts.join(' · '));
    this.lastPlainMs = progress.elapsedMs;
    output.info(`progress: ${parts.join(' · ')}`);
  }

  /** A line on stderr now, above the live line. */
  say(print: () => void): void {
    this.line.clear();
    print();
  }

  stop(): void {
    this.stopped = true;
    this.line.clear();
  }
}

const seconds = (ms: number) =>
  ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 100) / 10} s`;

export async function renderLoadReport(report: LoadReport, output: Output): Promise<void> {
  if (output.json) {
    output.printJson(report);
    return;
  }
  const { color } = output;
  const paint = { '✓': color.green, '✗': color.red, '–': color.dim };
  const mark = (verdict: LoadReport['thresholds'][number]) => paint[verdictMark(verdict)](verdictMark(verdict));
  output.resultWrapped(
    `cai load: interface ${report.interface}, ${report.target}${report.mock ? ' (the reference receiver, in this process)' : ''}${report.interrupted ? ', interrupted' : ''}`,
  );
  if (report.thresholds.length > 0) {
    output.result('');
    output.result(color.bold('thresholds'));
    for (const verdict of report.thresholds) {
      output.resultWrapped(
        `  ${mark(verdict)} ${verdict.expression}  ${color.dim(safeText(verdictDetail(verdict)))}${verdict.description ? color.dim(` — ${verdict.description}`) : ''}`,
        '      ',
      );
    }
  }
  output.result('');
  const { requests } = report;
  const rows: [string, string][] = [
    [
      'requests',
      `${requests.sent} sent of ${requests.planned} planned, ${requests.answered} answered, ${requests.failed} failed (no answer)`,
    ],
    ['rate', `achieved ${report.achievedRatePerSecond}/s of ${report.targetRatePerSecond}/s targeted`],
    [
      'on time',
      `${requests.dropped} not sent (all ${report.scenario.maxInFlight} connections busy), ${requests.late} sent over 10 ms late`,
    ],
  ];
  if (report.phases.length > 1) {
    for (const phase of report.phases)
      rows.push([
        'phase',
        `${phase.name}: ${phase.sent} sent, ${phase.achievedPerSecond}/s of ${phase.targetPerSecond}/s`,
      ]);
  }
  const latency = report.latencyMs;
  rows.push([
    'latency',
    latency.count === 0
      ? 'no answer'
      : `min ${ms(latency.min)} · p50 ${ms(latency.p50)} · p90 ${ms(latency.p90)} · p95 ${ms(latency.p95)} · p99 ${ms(latency.p99)} · max ${ms(latency.max)} (${latency.count} answers)`,
  ]);
  const d = report.duplicates;
  if (d.repeatsSent > 0 || d.newAnsweredAsDuplicate > 0) {
    rows.push([
      'repeats',
      `${d.repeatsSent} sent: ${d.confirmed} confirmed as duplicates, ${d.notRecognised} not recognised, ${d.repeatsNotAccepted} not accepted${d.newAnsweredAsDuplicate > 0 ? `; ${d.newAnsweredAsDuplicate} new documents answered as duplicates` : ''}`,
    ]);
  }
  for (const rejection of report.rejections)
    rows.push(['rejected', `${rejection.status} ${safeText(rejection.reason)}: ${rejection.count}`]);
  if (report.retryAfterMissing > 0) rows.push(['429', `${report.retryAfterMissing} without a valid Retry-After (§7)`]);
  for (const [code, count] of Object.entries(report.failures)) rows.push(['failed', `${safeText(code)}: ${count}`]);
  if (report.callbacks) {
    const c = report.callbacks;
    const first = c.firstContactMs;
    rows.push([
      'callbacks',
      `${c.contacted} of ${c.tracked} jobs contacted, ${c.withinTarget} within ${formatDuration(c.targetMs)}; ${c.missing} missing${c.untracked > 0 ? `; ${c.untracked} not timed` : ''}; ${c.received} events received${c.invalidSignature > 0 ? `, ${c.invalidSignature} badly signed` : ''}`,
    ]);
    if (first.count > 0)
      rows.push([
        'first contact',
        `p50 ${ms(first.p50)} · p90 ${ms(first.p90)} · p99 ${ms(first.p99)} · max ${ms(first.max)}`,
      ]);
  }
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, text] of rows) output.resultWrapped(`${name.padEnd(width)}  ${text}`, ' '.repeat(width + 2));
  const statuses = Object.entries(report.statuses);
  if (statuses.length > 0) {
    output.result('');
    const answered = Math.max(1, requests.answered);
    output.result(
      await output.table(
        ['status', 'requests', 'share'],
        statuses.map(([status, count]) => [status, count, `${((count / answered) * 100).toFixed(1)} %`]),
      ),
    );
  }
  if (report.thresholds.length > 0) {
    output.result(`${plural(report.thresholds.length, 'threshold')}: ${verdictCounts(report.thresholds)}`);
  }
}

const ms = (value: number | null) => (value === null ? '–' : formatDuration(value));

/** An exported project: its files, and the thresholds it could not hold (src/load/artillery.ts). */
export interface ExportedProject {
  files: readonly { name: string; content: string }[];
  untranslated: readonly { expression: string; why: string }[];
}

/**
 * Writes the exported project into `dir` (created when missing); existing project files only with `force`. No file
 * is written through a link: each is created new beside its name (O_CREAT|O_EXCL, which never follows one) and
 * renamed over it, which replaces a link planted there rather than the file it points to.
 */
export async function writeProject(
  project: ExportedProject,
  dir: string,
  force: boolean,
  { io, output }: CommandContext,
): Promise<void> {
  const root = isAbsolute(dir) ? dir : resolve(io.cwd, dir);
  const cannotCreate = (why: string, error?: unknown) =>
    usageError(
      'unwritable_file',
      `cannot create ${dir}: ${why}`,
      'pass a folder cai can write into (it is made if missing)',
      error,
    );
  try {
    // The project is shared and committed: its folder is made as `mkdir -p` makes one (0777 less the umask).
    await makeDirs(root, 0o777);
  } catch (error) {
    throw cannotCreate(whyNotWritten(error, root), error);
  }
  if (!(await stat(root)).isDirectory()) throw cannotCreate('it exists and is not a directory');
  if (!force) {
    for (const file of project.files) {
      // lstat: a link counts as there, even one that points nowhere.
      const exists = await lstat(join(root, file.name)).then(
        () => true,
        (error: unknown) => errnoCode(error) !== 'ENOENT',
      );
      if (exists)
        throw usageError(
          'file_exists',
          `${join(dir, file.name)} exists already`,
          'pass --force to overwrite the project files, or another --out',
        );
    }
  }
  for (const file of project.files) {
    try {
      await replaceFile(join(root, file.name), file.content);
    } catch (error) {
      throw usageError(
        'unwritable_file',
        `cannot write ${join(dir, file.name)}: ${whyNotWritten(error, join(root, file.name))}`,
        'check that the folder is writable',
        error,
      );
    }
  }
  if (output.json) {
    output.printJson({
      ok: true,
      dir: root,
      files: project.files.map((file) => file.name),
      untranslated: project.untranslated,
    });
    return;
  }
  output.result(`Artillery project written to ${dir}: ${project.files.map((file) => file.name).join(', ')}`);
  output.result(`  cd ${dir} && npm install && npx artillery run cai-load.yml`);
}

/** `path` holds `content` afterwards, as a regular file of its own: written to a new file beside it, then renamed over it. */
async function replaceFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o644);
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  await rename(temporary, path).catch(async (error: unknown) => {
    await unlink(temporary).catch(() => undefined);
    throw error;
  });
}
