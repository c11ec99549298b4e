/**
 * `cai mock platform --ui` through the built binary, its inspector in headless Chromium: requests appear live
 * without a reload, newest first; a refused one opens on its diagnosis or its validation errors; the filters
 * work; a lead's events are grouped into its conversation; content from the network stays text; no console
 * error, and nothing is requested but from the inspector's own origin.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  BROWSER_HOOK_TIMEOUT_MS,
  describeBrowser,
  openBrowser,
  openPage,
  type WatchedPage,
} from '../helpers/browser.js';
import { cells, waitForCount, waitForText } from '../helpers/inspector-page.js';
import { startMockProcess, stopAllMockProcesses, type MockProcess } from '../helpers/mock-process.js';
import { LIVE_SECRET, TEST_SECRET, event, post } from '../helpers/mock-client.js';

let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
let mock: MockProcess;
let ui: string;
let watched: WatchedPage;

beforeAll(async () => {
  const started = await Promise.all([
    startMockProcess(
      [
        'mock',
        'platform',
        '--provider',
        'acme',
        '--test-provider',
        'acme-test',
        '--test-secret-env',
        'ACME_TEST',
        '--ui',
        '--json',
      ],
      { CAI_SECRET: LIVE_SECRET, ACME_TEST: TEST_SECRET },
    ),
    openBrowser(),
  ]);
  [mock, browser] = started;
  const first = JSON.parse(mock.lines[0] as string) as { url: string; ui: string };
  expect(first.url).toBe(mock.url);
  expect(first.ui).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/$/);
  ui = first.ui;
  expect(mock.stderr()).toContain(`inspector: ${ui}\n`);
  watched = await openPage(browser, ui);
  await watched.page.waitForSelector('#live.on');
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  stopAllMockProcesses();
});

const origin = () => new URL(ui).origin;

/** The rows of the list as shown, top to bottom. */
function rows(): Promise<
  { id: number; status: string; verdict: string; type: string; eventId: string; leadId: string; space: string }[]
> {
  return cells(watched.page, '#rows tr', true).then((rows) =>
    rows.map(([id, , status, verdict, type, eventId, leadId, space]) => ({
      id: Number(id),
      status: status ?? '',
      verdict: verdict ?? '',
      type: type ?? '',
      eventId: eventId ?? '',
      leadId: leadId ?? '',
      space: space ?? '',
    })),
  );
}

async function waitForRows(count: number): Promise<void> {
  await waitForCount(watched.page, '#rows tr', count, true);
}

/** Nothing went wrong on the page: no console error, no exception, every request to the inspector itself. */
function expectQuiet(): void {
  expect(watched.consoleErrors).toEqual([]);
  expect(watched.pageErrors).toEqual([]);
  expect(watched.requests.filter((url) => new URL(url).origin !== origin())).toEqual([]);
}

const accepted = event({ lead_id: 'lead-a' });
const invalid = event({ lead_id: 'lead-a', direction: 'sideways' });
const wrongSecret = event({ lead_id: 'lead-b' });

describeBrowser('the platform mock inspector in Chromium', () => {
  it('shows requests as they arrive, without a reload, newest first', async () => {
    const { page } = watched;
    // A mark on the window: a reload would lose it.
    await page.evaluate('window.__stillTheSamePage = true');
    // The empty list is shown once its first load answers, which on a busy machine may come after the live stream.
    await page.waitForSelector('#empty', { state: 'visible' });
    expect((await post(mock.url, accepted)).status).toBe(202);
    await waitForRows(1);
    expect((await post(mock.url, accepted)).status).toBe(202);
    expect((await post(mock.url, wrongSecret, { secret: TEST_SECRET })).status).toBe(401);
    expect((await post(mock.url, invalid)).status).toBe(400);
    await waitForRows(4);
    expect(await rows()).toEqual([
      {
        id: 4,
        status: '400',
        verdict: 'rejected',
        type: 'conversation.message',
        eventId: invalid.event_id,
        leadId: 'lead-a',
        space: 'live',
      },
      {
        id: 3,
        status: '401',
        verdict: 'rejected',
        type: 'conversation.message',
        eventId: wrongSecret.event_id,
        leadId: 'lead-b',
        space: 'live',
      },
      {
        id: 2,
        status: '202',
        verdict: 'duplicate',
        type: 'conversation.message',
        eventId: accepted.event_id,
        leadId: 'lead-a',
        space: 'live',
      },
      {
        id: 1,
        status: '202',
        verdict: 'accepted',
        type: 'conversation.message',
        eventId: accepted.event_id,
        leadId: 'lead-a',
        space: 'live',
      },
    ]);
    expect(await page.evaluate('window.__stillTheSamePage')).toBe(true);
    expect(await page.textContent('#shown')).toBe('showing 4 of 4');
    expect(await page.isVisible('#empty')).toBe(false);
    expectQuiet();
  });

  it('opens a refused signature on its diagnosis, and a refused document on its validation errors', async () => {
    const { page } = watched;
    await page.click('#rows tr[data-id="3"]');
    await page.waitForSelector('#detail article.request-detail[data-id="3"]');
    expect(page.url()).toBe(`${ui}#/requests/3`);
    expect(await page.getAttribute('#rows tr[data-id="3"]', 'aria-selected')).toBe('true');
    const why = (await page.textContent('#detail .why')) ?? '';
    expect(why).toContain('Why it was refused');
    expect(why).toContain(
      'invalid_signature: the signature does not match the body and timestamp with any given secret',
    );
    expect(why).toContain('Signature diagnosis');
    expect(why).toContain('checked withthe live credential (acme)');
    expect(await page.textContent('#detail ul.diagnoses li[data-code="other_direction_secret"] .message')).toBe(
      'the request was signed with the secret of the test credential (acme-test); each credential has its own secret (§5.6, §1)',
    );
    expect(await page.textContent('#detail pre.head')).toMatch(/^x-cai-signature: sha256=[0-9a-f]{64}$/im);
    expect(await page.textContent('#detail pre.body.json')).toContain(`"event_id": "${wrongSecret.event_id}"`);
    const replay = (await page.textContent('#detail pre#cmd-replay-3')) ?? '';
    expect(replay).toBe(
      `curl -sS -o cai-request-3.http ${ui}api/requests/3/request.http && cai replay --request cai-request-3.http --to ${mock.url} --secret-env CAI_SECRET`,
    );
    expect(await page.textContent('#detail pre#cmd-curl-3')).toContain(
      'cai sign --secret-env CAI_SECRET --timestamp "$ts"',
    );
    await page.click('#detail button.copy[data-copy="cmd-replay-3"]');
    await waitForText(page, '#detail button.copy[data-copy="cmd-replay-3"]', 'copy', true);
    expect(await page.textContent('#detail')).not.toContain(LIVE_SECRET);

    await page.click('#rows tr[data-id="4"]');
    await page.waitForSelector('#detail article.request-detail[data-id="4"]');
    const issues = await cells(page, '#detail table.issues tbody tr');
    expect(issues).toEqual([
      ['direction', 'not one of the allowed values', 'one of: inbound, outbound', '"sideways"', '§2.4 §2.10'],
    ]);
    expect(await page.textContent('#detail .why h4')).toBe('Validation errors (§2.4–§2.7)');
    expectQuiet();
  });

  it('filters by verdict, type, lead and text, over every request kept', async () => {
    const { page } = watched;
    const ids = async () => (await rows()).map((row) => row.id);
    await page.selectOption('#f-verdict', 'rejected');
    await waitForCount(page, '#rows tr', 2);
    expect(await ids()).toEqual([4, 3]);
    expect(await page.textContent('#shown')).toBe('showing 2 of 2 matching');
    await page.selectOption('#f-verdict', '');
    await page.fill('#f-lead', 'lead-b');
    await waitForCount(page, '#rows tr', 1);
    expect(await ids()).toEqual([3]);
    // A new request that matches the filter appears; one that does not, does not.
    await post(mock.url, event({ lead_id: 'lead-b' }));
    await post(mock.url, event({ lead_id: 'lead-c' }));
    await waitForCount(page, '#rows tr', 2);
    expect(await ids()).toEqual([5, 3]);
    await page.click('#f-clear');
    await waitForCount(page, '#rows tr', 6);
    await page.selectOption('#f-type', 'job.closed');
    await waitForCount(page, '#rows tr', 0);
    expect(await page.isVisible('#empty')).toBe(true);
    await page.selectOption('#f-type', '');
    await page.fill('#f-q', 'sideways');
    await waitForCount(page, '#rows tr', 1);
    expect(await ids()).toEqual([4]);
    await page.click('#f-clear');
    await waitForCount(page, '#rows tr', 6);
    expectQuiet();
  });

  it("groups a lead's events into its conversation: messages by occurred_at, then the result", async () => {
    const { page } = watched;
    const lead = 'lead-conv';
    const at = (minute: number) => `2026-11-22T12:0${minute}:00+00:00`;
    // Sent out of order; the closing outcome first of all.
    await post(
      mock.url,
      event({
        event: 'job.closed',
        lead_id: lead,
        outcome: 'callback_later',
        attempts: 1,
        occurred_at: at(5),
        direction: undefined,
        author: undefined,
        channel: undefined,
        text: undefined,
        from_number_e164: undefined,
        provider_job_id: undefined,
      }),
    );
    await post(
      mock.url,
      event({ lead_id: lead, occurred_at: at(3), direction: 'inbound', author: 'contact', text: 'Call me next week.' }),
    );
    await post(mock.url, event({ lead_id: lead, occurred_at: at(1), text: 'Hello, this is Clínica Sol.' }));
    await post(mock.url, event({ lead_id: lead, occurred_at: at(4), text: 'Of course, I will.' }), {
      provider: 'acme-test',
      secret: TEST_SECRET,
    });
    await page.click('.tabs a[data-tab="conversations"]');
    await page.waitForSelector(`#leads li[data-lead="${lead}"]`);
    expect(await page.isVisible('#tab-requests')).toBe(false);
    const item = page.locator(`#leads li[data-lead="${lead}"]`, { hasText: 'live' });
    expect(await item.textContent()).toContain('2 messages · job.closed');
    await item.click();
    await page.waitForSelector('#detail article.conversation');
    expect(page.url()).toBe(`${ui}#/conversations/live/${lead}`);
    const messages = await page.$$eval('#detail ol.chat li', (lis) =>
      lis.map((li) => [li.className, li.querySelector('.text')?.textContent]),
    );
    expect(messages).toEqual([
      ['msg outbound', 'Hello, this is Clínica Sol.'],
      ['msg inbound', 'Call me next week.'],
    ]);
    expect(await page.textContent('#detail ol.endings')).toContain('job.closed outcome callback_later · 1 attempt');
    // The test space's event is its own conversation.
    await page.goto(`${ui}#/conversations/test/${lead}`);
    await waitForText(page, '#detail article.conversation .space', 'test');
    expect(await page.$$eval('#detail ol.chat li .text', (texts) => texts.map((text) => text.textContent))).toEqual([
      'Of course, I will.',
    ]);
    expectQuiet();
  });

  it('shows what the network sent as text, never as markup', async () => {
    const { page } = watched;
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    await post(mock.url, event({ lead_id: 'lead-<b>&"', text: hostile }), {
      headers: { 'x-note': '<i onmouseover=alert(1)>hi</i>' },
    });
    await page.goto(`${ui}#/requests`);
    await waitForText(page, '#rows tr td:nth-child(6)', 'lead-<b>&"');
    const id = await page.$eval('#rows tr', (tr) => tr.getAttribute('data-id'));
    await page.click(`#rows tr[data-id="${id}"]`);
    await page.waitForSelector(`#detail article.request-detail[data-id="${id}"]`);
    expect(await page.textContent('#detail pre.body.json')).toContain(JSON.stringify(hostile).slice(1, -1));
    expect(await page.textContent('#detail pre.head')).toContain('x-note: <i onmouseover=alert(1)>hi</i>');
    expect(await page.$$('#detail img, #detail script, #detail i')).toEqual([]);
    await page.click('#detail a[href^="#/conversations/"]');
    await page.waitForSelector('#detail article.conversation');
    expect(await page.textContent('#detail h2 code')).toBe('lead-<b>&"');
    expect(await page.textContent('#detail ol.chat .text')).toBe(hostile);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expectQuiet();
  });

  it('keeps a </script> and a U+2028 in an event_id and a body as text: in the row, the detail, the live stream and the conversation', async () => {
    const { page } = watched;
    await page.goto(`${ui}#/requests`);
    const eventId = '</script><script>window.__pwned=3</script>\u2028x';
    const text = 'line\u2028</script><script>window.__pwned=4</script>\u2029<!--';
    await post(mock.url, event({ event_id: eventId, lead_id: 'lead-script', text }));
    // Arrives through the live stream (server-sent events) without a reload.
    await waitForText(page, '#rows tr td:nth-child(6)', 'lead-script');
    const [row] = await rows();
    expect(row).toMatchObject({ eventId, leadId: 'lead-script', status: '202' });
    await page.click(`#rows tr[data-id="${row?.id}"]`);
    await page.waitForSelector(`#detail article.request-detail[data-id="${row?.id}"]`);
    expect(await page.textContent('#detail pre.body.json')).toContain(JSON.stringify(text).slice(1, -1));
    await page.click('#detail a[href^="#/conversations/"]');
    await page.waitForSelector('#detail article.conversation');
    expect(await page.textContent('#detail ol.chat .text')).toBe(text);
    // Also after a reload: the first page of rows comes from the JSON API, not the stream.
    await page.goto(`${ui}#/requests`);
    await page.reload();
    await waitForText(page, '#rows tr td:nth-child(6)', 'lead-script');
    expect((await rows())[0]?.eventId).toBe(eventId);
    expect(await page.$$('#rows script, #detail script')).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expectQuiet();
  });

  it('shows the bidi and C1 controls of an id as escapes in the row, as a report and the terminal do (src/output/markup.ts)', async () => {
    const { page } = watched;
    await page.goto(`${ui}#/requests`);
    await post(mock.url, event({ event_id: 'evt_\u202egnp.exe_\u009b', lead_id: 'lead-bidi' }));
    await waitForText(page, '#rows tr td:nth-child(6)', 'lead-bidi');
    expect((await rows())[0]?.eventId).toBe('evt_\\u202egnp.exe_\\u009b');
    expectQuiet();
  });
});
