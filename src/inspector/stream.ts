/**
 * The live feed of the inspector page (server-sent events): what arrives in the store, in batches at most every
 * streamIntervalMs, to at most maxStreams connections. A batch past maxBatch rows is replaced by `reset` (the page
 * reloads its first page); a connection that does not keep up (over maxStreamBacklogBytes queued) is closed, and
 * the page's EventSource reconnects and reloads. Nothing is collected while no page is connected.
 */
import type { ServerResponse } from 'node:http';
import type { RequestSummary } from './capture.js';
import type { InspectorLimits } from './limits.js';
import type { Redactor } from './redact.js';
import type { CallbackSummary, InspectorStore, StoreUpdate } from './store.js';

// A comment line now and then keeps an idle connection open through anything that closes quiet ones.
const HEARTBEAT_MS = 15_000;

export class StreamHub {
  private readonly clients = new Set<ServerResponse>();
  private requests: RequestSummary[] = [];
  private callbacks: CallbackSummary[] = [];
  private overflow = false;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: InspectorStore,
    private readonly limits: InspectorLimits,
    private readonly redactor: Redactor,
    private readonly headers: Record<string, string>,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** Takes the response of a GET of the stream; false when the bound is reached (the caller answers 503). */
  open(response: ServerResponse): boolean {
    if (this.clients.size >= this.limits.maxStreams) return false;
    response.writeHead(200, {
      ...this.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.write('retry: 2000\n\n');
    this.clients.add(response);
    response.on('close', () => this.drop(response));
    this.unsubscribe ??= this.store.subscribe((update) => this.collect(update));
    this.heartbeat ??= setInterval(() => this.broadcast(': ping\n\n'), HEARTBEAT_MS).unref();
    return true;
  }

  /** Ends every stream (the inspector is closing). */
  close(): void {
    for (const client of this.clients) client.end();
    this.clients.clear();
    this.stopCollecting();
  }

  private drop(response: ServerResponse): void {
    this.clients.delete(response);
    if (this.clients.size === 0) this.stopCollecting();
  }

  private stopCollecting(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.requests = [];
    this.callbacks = [];
    this.overflow = false;
  }

  private collect(update: StoreUpdate): void {
    if (this.requests.length + this.callbacks.length >= this.limits.maxBatch) this.overflow = true;
    else if (update.kind === 'request') this.requests.push(update.summary);
    else this.callbacks.push(update.summary);
    this.timer ??= setTimeout(() => this.flush(), this.limits.streamIntervalMs);
  }

  private flush(): void {
    this.timer = undefined;
    const { requests, callbacks, overflow } = this;
    this.requests = [];
    this.callbacks = [];
    this.overflow = false;
    const meta = this.store.requests.counts();
    let text = '';
    if (overflow) text += `event: reset\ndata: ${JSON.stringify(meta)}\n\n`;
    else {
      if (requests.length > 0)
        text += `event: requests\ndata: ${JSON.stringify(this.redactor.json({ items: requests, ...meta }))}\n\n`;
      if (callbacks.length > 0) {
        const callbackMeta = this.store.callbacks.counts();
        text += `event: callbacks\ndata: ${JSON.stringify(this.redactor.json({ items: callbacks, ...callbackMeta }))}\n\n`;
      }
    }
    if (text !== '') this.broadcast(text);
  }

  private broadcast(text: string): void {
    for (const client of this.clients) {
      if (client.writableLength > this.limits.maxStreamBacklogBytes) {
        // Too slow to follow: closed; the page reconnects and reloads its first page.
        client.destroy();
        continue;
      }
      client.write(text);
    }
  }
}
