/**
 * The inspector against hostile input, through the built binary (`cai mock … --ui`) over real HTTP: a small body
 * nested thousands of levels deep (shown as received, the view bounded relative to the body, never a 5xx), and a
 * lead_id with a lone surrogate (valid JSON: its link names the same lead back on the server).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { MAX_WALK_DEPTH, PRETTY_JSON_ROOM } from '../../src/bounds.js';
import { escapeHtml } from '../../src/output/html/escape.js';
import { LIVE_SECRET, event, post } from '../helpers/mock-client.js';
import { sign } from '../../src/signing/sign.js';
import { sampleJob } from '../../src/spec/sample.js';
import { startMockProcess, stopAllMockProcesses, type MockProcess } from '../helpers/mock-process.js';

afterAll(() => stopAllMockProcesses());

const ENV = { CAI_SECRET: LIVE_SECRET, CAI_CALLBACK_SECRET: 'whsec_hostile_events_0123' };

async function startWithUi(kind: 'platform' | 'provider'): Promise<{ mock: MockProcess; ui: string }> {
  const mock = await startMockProcess(['mock', kind, '--provider', 'acme', '--ui', '127.0.0.1:0'], ENV);
  const ui = /^inspector: (http:\/\/127\.0\.0\.1:[0-9]+)\/$/m.exec(mock.stderr())?.[1];
  if (ui === undefined) throw new Error(`no inspector URL on stderr:\n${mock.stderr()}`);
  return { mock, ui };
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const answer = await request(url, { headers: { accept: 'text/html' } });
  return { status: answer.statusCode, text: await answer.body.text() };
}

/** The id of the newest kept request (the inspector numbers them from 1). */
async function newestId(ui: string): Promise<number> {
  const page = JSON.parse((await get(`${ui}/api/requests?limit=1`)).text) as { items: { id: number }[] };
  return page.items[0]?.id as number;
}

/** A signed conversation.message whose extra field `x` nests `depth` arrays, and `tail` after them. */
function nested(depth: number, tail = ''): string {
  const text = JSON.stringify(event({ x: 0 }));
  return text.replace('"x":0', `"x":${'['.repeat(depth)}${tail}${']'.repeat(depth)}`);
}

describe('the inspector and deeply nested bodies', () => {
  /** The view of the newest request: 200, the body shown as received, and at most a few times its size. */
  async function expectShownAsReceived(ui: string, raw: string, what: string): Promise<void> {
    const view = await get(`${ui}/view/requests/${await newestId(ui)}`);
    expect(view.status, what).toBe(200);
    expect(view.text.includes('[\n'), what).toBe(false);
    expect(view.text.includes(escapeHtml(raw)), what).toBe(true);
    expect(view.text.length, what).toBeLessThan(2 * raw.length + 16 * 1024);
  }

  it('shows a body nested past the walk depth as received, never a 5xx, signed or not', async () => {
    const { mock, ui } = await startWithUi('platform');
    for (const depth of [MAX_WALK_DEPTH, 2_000, 10_000, 50_000]) {
      for (const secret of [LIVE_SECRET, 'whsec_wrong_secret_0123']) {
        const raw = nested(depth);
        expect((await post(mock.url, undefined, { raw, secret })).status).toBe(secret === LIVE_SECRET ? 202 : 401);
        await expectShownAsReceived(ui, raw, `depth ${depth + 1}, ${secret}`);
      }
    }
  });

  it('pretty-prints a body as deep as the walk goes, unless its pretty form outgrows the room for it', async () => {
    const { mock, ui } = await startWithUi('platform');
    // Nested MAX_WALK_DEPTH deep (the event's object and the arrays), padded: its indentation fits the room.
    const deepest = nested(MAX_WALK_DEPTH - 1, JSON.stringify('a'.repeat(20_000)));
    expect((await post(mock.url, undefined, { raw: deepest })).status).toBe(202);
    const view = await get(`${ui}/view/requests/${await newestId(ui)}`);
    expect(view.text.includes('[\n')).toBe(true);
    expect(view.text.length).toBeLessThan((PRETTY_JSON_ROOM.times + 2) * deepest.length + PRETTY_JSON_ROOM.plus);
    // 10 000 members as deep: each indented by 510 spaces, a pretty form 250 times the body.
    const wide = nested(MAX_WALK_DEPTH - 1, Array(10_000).fill('1').join(','));
    expect((await post(mock.url, undefined, { raw: wide })).status).toBe(202);
    await expectShownAsReceived(ui, wide, 'wide');
  });
});

describe('the inspector and a lead_id with a lone surrogate', () => {
  const lead = 'L\ud800x';
  const path = '/view/conversations/live/L%uD800x';

  it('links a request to its lead by a path that names the same lead back (mock platform)', async () => {
    const { mock, ui } = await startWithUi('platform');
    expect((await post(mock.url, event({ lead_id: lead, text: 'to the first' }))).status).toBe(202);
    expect((await post(mock.url, event({ lead_id: 'L\ud801x', text: 'to the second' }))).status).toBe(202);
    const view = await get(`${ui}/view/requests/${(await newestId(ui)) - 1}`);
    expect(view.status).toBe(200);
    expect(view.text).toContain(`href="#${path.slice('/view'.length)}"`);
    const first = await get(`${ui}${path}`);
    expect([first.status, first.text.includes('to the first'), first.text.includes('to the second')]).toEqual([
      200,
      true,
      false,
    ]);
    expect((await get(`${ui}/view/conversations/live/L%ud801x`)).text).toContain('to the second');
    expect((await get(`${ui}/view/conversations/live/L%uD802x`)).text).toContain('is not kept');
    expect((await get(`${ui}/view/conversations/live/L%ED%A0%80x`)).status).toBe(400);
  });

  it('links a job to its lead the same way (mock provider)', async () => {
    const { mock, ui } = await startWithUi('provider');
    const body = JSON.stringify({ ...sampleJob(), lead_id: lead, callback_url: 'http://127.0.0.1:9/events' });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const answer = await request(`${mock.url}/contact-jobs`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-cai-source': 'platform',
        'x-cai-timestamp': timestamp,
        'x-cai-signature': sign(LIVE_SECRET, timestamp, body),
      },
    });
    expect(answer.statusCode).toBe(202);
    await answer.body.dump();
    const view = await get(`${ui}/view/requests/${await newestId(ui)}`);
    expect(view.status).toBe(200);
    expect(view.text).toContain(`href="#${path.slice('/view'.length)}"`);
    expect((await get(`${ui}${path}`)).status).toBe(200);
  });
});
