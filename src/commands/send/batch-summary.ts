/** The batch sender on the terminal: a line for each document that was not accepted, and the summary at the end. */
import type { BatchRecord, BatchSummary } from '../../send/batch.js';

import type { Output } from '../../output/output.js';
import { safeText } from '../../output/safe-text.js';
import { formatDuration } from '../../duration.js';
import { plural } from '../../text.js';

/** One line for a document that was not accepted. */
export function describeRecord(record: BatchRecord): string {
  // The event_id comes from the batch file, the problems from the receiver's answers: escaped.
  return safeText(recordLine(record));
}

function recordLine(record: BatchRecord): string {
  const id = record.eventId !== undefined ? ` (${record.eventId})` : '';
  if (record.verdict === 'invalid')
    return `line ${record.line}${id}: not sent, invalid: ${(record.problems ?? []).join('; ')}`;
  if (record.verdict === 'failed')
    return `line ${record.line}${id}: failed: ${record.error?.message ?? 'delivery failed'}`;
  const why = record.problems?.length ? record.problems.join('; ') : `status ${record.status ?? '?'}`;
  return `line ${record.line}${id}: rejected: ${why}`;
}

/** The summary of a batch: a table of outcomes, the pace, and what an interruption left unsent. */
export async function renderBatchSummary(
  summary: BatchSummary,
  records: readonly BatchRecord[],
  resultsFile: string | undefined,
  output: Output,
): Promise<void> {
  const notSentLines = records.filter((record) => record.verdict === 'not-sent').map((record) => record.line);
  if (output.json) {
    output.printJson({ summary: { ...summary, notSentLines: compressLines(notSentLines) } });
    return;
  }
  const rows: (string | number)[][] = [
    ['accepted', summary.accepted],
    ['duplicates (already received, §2.13)', summary.duplicate],
  ];
  const rejectedStatuses = Object.keys(summary.rejectedBy).sort();
  if (rejectedStatuses.length === 0) rows.push(['rejected', 0]);
  for (const status of rejectedStatuses)
    rows.push([
      status === 'ack' ? 'rejected: bad acknowledgment' : `rejected ${status}`,
      summary.rejectedBy[status] ?? 0,
    ]);
  rows.push(['failed (delivery)', summary.failed]);
  if (summary.invalid) rows.push(['invalid (not sent)', summary.invalid]);
  if (summary.skipped) rows.push(['skipped (accepted before, --resume)', summary.skipped]);
  if (summary.notSent || summary.interrupted)
    rows.push([summary.interrupted ? 'not sent (interrupted)' : 'not sent (stopped)', summary.notSent]);
  rows.push(['total', summary.total]);
  output.result(await output.table(['result', 'documents'], rows, [{ fit: 'wrap', min: 12 }, { fit: 'fixed' }]));
  output.resultWrapped(paceLine(summary));
  if (summary.halted) {
    const stopped =
      notSentLines.length > 0
        ? `; ${notSentLines.length} document(s) not sent: line(s) ${compressLines(notSentLines)}`
        : '';
    output.resultWrapped(`stopped at line ${summary.halted.line}${stopped}`);
    const error = summary.halted.error;
    if (error) output.error(error.message, error.hint ?? 'check the receiver, then send the batch again');
  }
  if (summary.interrupted) {
    output.resultWrapped(
      notSentLines.length === 0
        ? 'interrupted: every document had been dealt with'
        : `interrupted: ${notSentLines.length} document(s) not sent: line(s) ${compressLines(notSentLines)}`,
    );
    const hint =
      resultsFile !== undefined
        ? `send the rest with --resume ${resultsFile} --output ${resultsFile}`
        : 'next time pass --output FILE, then --resume FILE sends only what was not accepted';
    output.info(`hint: ${hint}`);
  }
}

/**
 * `6 documents in 2.8 s (2.1 documents/s), 19 HTTP requests (retries included)`: the pace counts documents, the
 * requests are counted apart (a document retried three times is one document and four requests).
 */
export function paceLine(summary: BatchSummary): string {
  const documents = summary.total - summary.skipped - summary.invalid - summary.notSent;
  const perSecond = summary.elapsedMs > 0 ? (documents * 1000) / summary.elapsedMs : 0;
  const rate =
    summary.elapsedMs > 0
      ? ` (${perSecond >= 10 ? Math.round(perSecond) : Number(perSecond.toFixed(1))} documents/s)`
      : '';
  return `${plural(documents, 'document')} in ${formatDuration(summary.elapsedMs)}${rate}, ${plural(summary.attempts, 'HTTP request')} (retries included)`;
}

/** `1-3, 7, 9-12` */
function compressLines(lines: readonly number[]): string {
  const parts: string[] = [];
  let start: number | undefined;
  let previous: number | undefined;
  for (const line of [...lines].sort((a, b) => a - b)) {
    if (start !== undefined && previous !== undefined && line === previous + 1) {
      previous = line;
      continue;
    }
    if (start !== undefined) parts.push(start === previous ? String(start) : `${start}-${previous}`);
    start = line;
    previous = line;
  }
  if (start !== undefined) parts.push(start === previous ? String(start) : `${start}-${previous}`);
  return parts.join(', ');
}
