import { request } from 'undici';
import { sign } from '../../src/signing/sign.js';

export const LIVE_SECRET = 'live-secret-0123456789';
export const OLD_SECRET = 'old-secret-9876543210';
export const TEST_SECRET = 'test-secret-abcdefghij';

let counter = 0;
export function event(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    event: 'conversation.message',
    event_id: `evt_${process.pid}_${Date.now()}_${counter}`,
    lead_id: 'lead-1001',
    provider_job_id: 'pj_1',
    channel: 'whatsapp',
    from_number_e164: '+447700900123',
    direction: 'outbound',
    author: 'agent',
    text: 'Hello Ana, this is Clínica Sol about your appointment request.',
    occurred_at: new Date().toISOString(),
    ...overrides,
  };
}

export interface PostOptions {
  secret?: string | null;
  provider?: string | null;
  timestamp?: number | string;
  headers?: Record<string, string>;
  raw?: string | Buffer;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** POSTs a document (or raw bytes) signed as a provider would (§5), over real HTTP. */
export async function post(url: string, document: unknown, options: PostOptions = {}): Promise<Answer> {
  const body = options.raw !== undefined ? Buffer.from(options.raw) : Buffer.from(JSON.stringify(document));
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-cai-timestamp': timestamp };
  if (options.provider !== null) headers['x-cai-provider'] = options.provider ?? 'acme';
  if (options.secret !== null) headers['x-cai-signature'] = sign(options.secret ?? LIVE_SECRET, timestamp, body);
  const response = await request(url, { method: 'POST', headers: { ...headers, ...options.headers }, body });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}
