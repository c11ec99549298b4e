/** `cai replay`: loaded lazily by its action. */
import type { CommandContext } from '../cli/runner.js';
import { readFileInput } from '../input.js';
import { usageError } from '../errors.js';
import { Headers, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { parseRawRequest, type RawRequest } from '../http/raw-request.js';
import { deliver } from '../http/deliver.js';
import { judge } from '../http/send.js';
import { checkEventAck, checkJobAck, type AckCheck } from '../spec/acknowledgment.js';
import type { HttpResponse } from '../http/client.js';
import { dispatcherFor, interactiveDeliverOptions, printDryRun, printSchedule, renderResult, requireOption, retryPolicyOf, signingSecret } from './send-run.js';
import type { ReplayOptions } from './replay.js';

/** Headers that belong to one connection or one message framing, not to the request: never re-sent as captured. */
const HOP_BY_HOP = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'proxy-authorization', 'proxy-connection']);

export async function runReplay(options: ReplayOptions, context: CommandContext): Promise<number> {
  const { io, output } = context;
  const policy = retryPolicyOf(options);
  if (options.printSchedule) return printSchedule(policy, output);
  const file = requireOption(options.request, '--request', '--request FILE with the captured raw HTTP request');
  const to = requireOption(options.to, '--to', 'the URL to send to, e.g. --to http://127.0.0.1:8787');
  const parsed = parseRawRequest(await readFileInput(file, io, 'request'));
  if (!parsed.ok) {
    throw usageError('bad_request_file', `${file} is not a raw HTTP request: ${parsed.message}`, 'capture it as: request line, headers, one blank line, then the body bytes');
  }
  const captured = parsed.request;
  captured.notes.forEach((note) => output.note(note));
  if (captured.method !== 'POST') output.note(`the capture is a ${captured.method}; the interface has POST only (§1), so it is replayed as a POST`);

  const keep = options.keepTimestamp === true;
  const secret = keep ? undefined : signingSecret(options, context);
  if (keep) describeKeptTimestamp(captured, io.now(), context);
  const url = targetUrl(to, captured.target);
  const headers = replayHeaders(captured, keep);
  const iface = captured.headers[Headers.source] !== undefined ? 'A' : captured.headers[Headers.provider] !== undefined ? 'B' : undefined;
  if (options.dryRun) return printDryRun({ url, headers, body: captured.body, ...(secret !== undefined ? { secret } : {}) }, options, context);

  const dispatcher = await dispatcherFor(options, url, context, 1);
  try {
    const interactive = await interactiveDeliverOptions(options, policy, dispatcher, context, url);
    const delivery = await deliver({ url, body: captured.body, secret: secret ?? '', headers }, { ...interactive.options, keepSignature: keep }).finally(interactive.dispose);
    const check = iface === 'A' ? checkJobAck : iface === 'B' ? checkEventAck : anyTwoHundred;
    return renderResult(judge(iface ?? 'B', url, captured.body, delivery, check), context);
  } finally {
    await dispatcher.close();
  }
}

function anyTwoHundred(_response: HttpResponse): AckCheck {
  return { ok: true, problems: [] };
}

/** `--to` as given, or with the captured path when it has none. */
export function targetUrl(to: string, capturedTarget: string): string {
  const url = new URL(to);
  if ((url.pathname === '/' || url.pathname === '') && url.search === '' && capturedTarget.startsWith('/')) {
    return new URL(capturedTarget, url).toString();
  }
  return url.toString();
}

function replayHeaders(captured: RawRequest, keep: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of captured.headerLines) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (!keep && (lower === Headers.timestamp || lower === Headers.signature)) continue;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

function describeKeptTimestamp(captured: RawRequest, nowMs: number, { output }: CommandContext): void {
  const timestamp = captured.headers[Headers.timestamp];
  if (timestamp === undefined || captured.headers[Headers.signature] === undefined) {
    output.warn('the capture has no X-CAI-Timestamp or X-CAI-Signature: it is sent without them, and a conforming receiver answers 401 (§5)');
    return;
  }
  const age = Math.floor(nowMs / 1000) - Number(timestamp);
  if (!Number.isFinite(age)) return;
  const where = Math.abs(age) <= SIGNATURE_WINDOW_SECONDS ? 'inside' : 'outside';
  output.note(`keeping X-CAI-Timestamp ${timestamp}: ${Math.abs(age)} s ${age >= 0 ? 'old' : 'in the future'}, ${where} the ±${SIGNATURE_WINDOW_SECONDS} s window (§5.5)${where === 'outside' ? '; a conforming receiver answers 401' : ''}`);
}
