/**
 * What `cai mock platform|provider` prints: the URL first on stdout (`{"url": …}` with --json), then one line per
 * request received and per event sent back (NDJSON with --json), the rest on stderr.
 */
import type { InspectorSigning } from '../../inspector/explain.js';
import type { ObservedRequest, RequestObserver } from '../../mock/pipeline.js';
import type { MockRequestEntry } from '../../mock/platform.js';
import type { MockProviderOptions, SentEventEntry } from '../../mock/provider.js';
import { LineBuffer } from '../../output/line-buffer.js';
import type { ExplainObserved } from './likely-cause.js';
import type { Output } from '../../output/output.js';
import { safeText } from '../../output/safe-text.js';
import { formatDuration } from '../../duration.js';
import { documentLabel } from '../../spec/interfaces.js';
import { SIGNATURE_REASONS } from '../../spec/statuses.js';

/**
 * The per-request lines are written in batches at most every LINE_FLUSH_MS: under load, one stdout write per
 * request would cost the mock a system call each (bench/mock-platform.bench.js); a human sees no delay.
 */
const LINE_FLUSH_MS = 20;

/** On a terminal narrower than a line, the rest wraps under the status, past the time. */
const CONTINUATION = ' '.repeat(14);

type CallbackRetry = Parameters<NonNullable<MockProviderOptions['onCallbackRetry']>>[0];

/**
 * Diagnosing a refused signature recomputes the HMAC of a dozen mistaken variants of the body: a burst of up to
 * DIAGNOSIS_BURST refusals is diagnosed, then DIAGNOSIS_PER_SECOND at most (a token bucket); under a flood of bad
 * requests, the others get only the pointer to the inspector.
 */
const DIAGNOSIS_BURST = 10;
const DIAGNOSIS_PER_SECOND = 20;

export class MockLines {
  private readonly lines: LineBuffer;
  private causes?: { find: ExplainObserved; ui: boolean; tokens: number; refilledAt: number };
  /** A 401's line, held from onRequest to the observer that follows it at once with the request itself. */
  private held?: { entry: MockRequestEntry; text: string };

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

  /**
   * Lines of 401s of the signature say its likely cause and point to the inspector, with the credentials the mock
   * checks against (never printed). Text lines only: `--json` entries stay as the mock's log records are.
   */
  async explainRefusals(signing: InspectorSigning, ui: boolean): Promise<void> {
    if (this.output.json) return;
    const { loadCauseFinder } = await import('./likely-cause.js');
    this.causes = { find: await loadCauseFinder(signing), ui, tokens: DIAGNOSIS_BURST, refilledAt: Date.now() };
  }

  /** The mock's request observer: `next` (the inspector's), then the cause of a held 401. */
  observer(next?: RequestObserver): RequestObserver | undefined {
    if (this.causes === undefined) return next;
    return (observed) => {
      next?.(observed);
      this.explainHeld(observed);
    };
  }

  private explainHeld(observed: ObservedRequest): void {
    const held = this.held;
    if (held === undefined || held.entry !== observed.entry || this.causes === undefined) return;
    this.held = undefined;
    const now = Date.now();
    const causes = this.causes;
    causes.tokens = Math.min(
      DIAGNOSIS_BURST,
      causes.tokens + ((now - causes.refilledAt) * DIAGNOSIS_PER_SECOND) / 1000,
    );
    causes.refilledAt = now;
    let cause: string | undefined;
    if (causes.tokens >= 1) {
      causes.tokens -= 1;
      cause = causes.find(observed);
    }
    const where = causes.ui ? 'the inspector shows why' : 'run with --ui to see why';
    this.lines.line(
      this.output.fit(`${held.text}${cause === undefined ? '' : `; likely: ${cause}`} (${where})`, CONTINUATION),
    );
  }

  request(entry: MockRequestEntry): void {
    if (this.output.json) {
      this.lines.json(entry);
      return;
    }
    this.releaseHeld();
    const c = this.output.color;
    const status =
      entry.status < 300
        ? c.green(`[${entry.status}]`)
        : entry.status < 500
          ? c.yellow(`[${entry.status}]`)
          : c.red(`[${entry.status}]`);
    // The event type, ids and the reason's message come from the request: escaped before the line is coloured.
    const what = safeText(documentLabel(entry.interface, entry.event, '-'));
    const parts = [entry.received_at.slice(11, 23), status, entry.verdict.padEnd(9), what.padEnd(23)];
    if (entry.event_id !== undefined) parts.push(safeText(entry.event_id));
    if (entry.lead_id !== undefined)
      parts.push(
        `lead=${safeText(entry.lead_id)}${entry.lead_known === false ? ' (unknown lead: logged for reconciliation)' : ''}`,
      );
    if (entry.provider_job_id !== undefined) parts.push(`job=${safeText(entry.provider_job_id)}`);
    if (entry.assigned_number_e164 !== undefined) parts.push(`from=${safeText(entry.assigned_number_e164)}`);
    if (entry.space === 'test') parts.push(c.cyan('(test space)'));
    if (entry.secret !== undefined && entry.secret > 1) parts.push(`secret #${entry.secret}`);
    if (entry.reason !== undefined) parts.push(safeText(`${entry.reason}: ${entry.message ?? ''}`));
    if (this.causes !== undefined && entry.status === 401 && SIGNATURE_REASONS.has(entry.reason ?? '')) {
      this.held = { entry, text: parts.join('  ') };
      return;
    }
    this.lines.line(this.output.fit(parts.join('  '), CONTINUATION));
  }

  sent(entry: SentEventEntry): void {
    if (this.output.json) {
      this.lines.json(entry);
      return;
    }
    const c = this.output.color;
    const status =
      entry.outcome === 'accepted' ? c.green(`--> [${entry.status}]`) : c.red(`--> [${entry.status ?? 'ERR'}]`);
    const parts = [
      entry.sent_at.slice(11, 23),
      status,
      entry.outcome.padEnd(9),
      safeText(entry.event).padEnd(23),
      safeText(entry.event_id),
      `lead=${safeText(entry.lead_id)}`,
    ];
    if (entry.attempts > 1) parts.push(`${entry.attempts} attempts`);
    if (entry.error) parts.push(safeText(entry.error));
    this.lines.line(this.output.fit(parts.join('  '), CONTINUATION));
  }

  callbackRetry(retry: CallbackRetry): void {
    this.output.info(
      `callback ${safeText(retry.event)} ${safeText(retry.event_id)}: attempt ${retry.attempt} failed (${safeText(retry.reason)}); retrying in ${formatDuration(retry.waitMs)}`,
    );
  }

  /** A 401 held for its cause and never observed (the observer follows at once, unless it failed) is not lost. */
  private releaseHeld(): void {
    if (this.held !== undefined) this.lines.line(this.output.fit(this.held.text, CONTINUATION));
    this.held = undefined;
  }

  flush(): void {
    this.releaseHeld();
    this.lines.flush();
  }
}
