/**
 * What `cai mock platform|provider` prints: the URL first on stdout (`{"url": …}` with --json), then one line per
 * request received and per event sent back (NDJSON with --json), the rest on stderr.
 */
import type { MockRequestEntry } from '../mock/platform.js';
import type { MockProviderOptions, SentEventEntry } from '../mock/provider.js';
import { LineBuffer } from './line-buffer.js';
import type { Output } from './output.js';
import { safeText } from './safe-text.js';
import { documentLabel } from '../spec/interfaces.js';

/**
 * The per-request lines are written in batches at most every LINE_FLUSH_MS: under load, one stdout write per
 * request would cost the mock a system call each (bench/mock-platform.bench.js); a human sees no delay.
 */
const LINE_FLUSH_MS = 20;

/** On a terminal narrower than a line, the rest wraps under the status, past the time. */
const CONTINUATION = ' '.repeat(14);

type CallbackRetry = Parameters<NonNullable<MockProviderOptions['onCallbackRetry']>>[0];

export class MockLines {
  private readonly lines: LineBuffer;

  constructor(private readonly output: Output) {
    this.lines = new LineBuffer((text) => output.resultRaw(text), { delayMs: LINE_FLUSH_MS });
  }

  /** The first stdout line (with the inspector's URL next to the mock's under --json), then the notes and 'ready' on stderr. */
  announce(url: string, notes: readonly string[], ui?: string): void {
    if (this.output.json) this.output.printJson(ui === undefined ? { url } : { url, ui });
    else this.output.result(url);
    if (ui !== undefined) this.output.info(`inspector: ${ui}`);
    for (const note of notes) this.output.info(note);
    this.output.info('ready; Ctrl-C to stop');
  }

  request(entry: MockRequestEntry): void {
    if (this.output.json) {
      this.lines.json(entry);
      return;
    }
    const c = this.output.color;
    const status = entry.status < 300 ? c.green(`[${entry.status}]`) : entry.status < 500 ? c.yellow(`[${entry.status}]`) : c.red(`[${entry.status}]`);
    // The event type, ids and the reason's message come from the request: escaped before the line is coloured (issue 14).
    const what = safeText(documentLabel(entry.interface, entry.event, '-'));
    const parts = [entry.received_at.slice(11, 23), status, entry.verdict.padEnd(9), what.padEnd(23)];
    if (entry.event_id !== undefined) parts.push(safeText(entry.event_id));
    if (entry.lead_id !== undefined) parts.push(`lead=${safeText(entry.lead_id)}${entry.lead_known === false ? ' (unknown lead: logged for reconciliation)' : ''}`);
    if (entry.provider_job_id !== undefined) parts.push(`job=${safeText(entry.provider_job_id)}`);
    if (entry.assigned_number_e164 !== undefined) parts.push(`from=${safeText(entry.assigned_number_e164)}`);
    if (entry.space === 'test') parts.push(c.cyan('(test space)'));
    if (entry.secret !== undefined && entry.secret > 1) parts.push(`secret #${entry.secret}`);
    if (entry.reason !== undefined) parts.push(safeText(`${entry.reason}: ${entry.message ?? ''}`));
    this.lines.line(this.output.fit(parts.join('  '), CONTINUATION));
  }

  sent(entry: SentEventEntry): void {
    if (this.output.json) {
      this.lines.json(entry);
      return;
    }
    const c = this.output.color;
    const status = entry.outcome === 'accepted' ? c.green(`--> [${entry.status}]`) : c.red(`--> [${entry.status ?? 'ERR'}]`);
    const parts = [entry.sent_at.slice(11, 23), status, entry.outcome.padEnd(9), safeText(entry.event).padEnd(23), safeText(entry.event_id), `lead=${safeText(entry.lead_id)}`];
    if (entry.attempts > 1) parts.push(`${entry.attempts} attempts`);
    if (entry.error) parts.push(safeText(entry.error));
    this.lines.line(this.output.fit(parts.join('  '), CONTINUATION));
  }

  callbackRetry(retry: CallbackRetry): void {
    this.output.info(`callback ${safeText(retry.event)} ${safeText(retry.event_id)}: attempt ${retry.attempt} failed (${safeText(retry.reason)}); retrying in ${(retry.waitMs / 1000).toFixed(1)} s`);
  }

  flush(): void {
    this.lines.flush();
  }
}
