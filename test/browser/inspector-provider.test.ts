/**
 * `cai mock provider --ui` through the built binary, its inspector in headless Chromium: the job received, the
 * callbacks it sends to a platform mock appearing live with their answers, and the job's conversation (the job,
 * the messages in order, the ending, each event's delivery).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import {
  BROWSER_HOOK_TIMEOUT_MS,
  describeBrowser,
  openBrowser,
  openPage,
  type WatchedPage,
} from '../helpers/browser.js';
import { cells, waitForCount } from '../helpers/inspector-page.js';
import { startMockProcess, stopAllMockProcesses, type MockProcess } from '../helpers/mock-process.js';
import { sign } from '../../src/signing/sign.js';
import { sampleJob } from '../../src/spec/sample.js';

const JOBS_SECRET = 'jobs-secret-0123456789';
const EVENTS_SECRET = 'events-secret-0123456789';

let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
let provider: MockProcess;
let platform: MockProcess;
let ui: string;
let watched: WatchedPage;

beforeAll(async () => {
  [platform, provider, browser] = await Promise.all([
    startMockProcess(['mock', 'platform', '--provider', 'acme', '--json'], { CAI_SECRET: EVENTS_SECRET }),
    startMockProcess(
      [
        'mock',
        'provider',
        '--provider',
        'acme',
        '--scenario',
        'booked',
        '--speed',
        '200',
        '--ui',
        '127.0.0.1:0',
        '--json',
      ],
      { CAI_SECRET: JOBS_SECRET, CAI_CALLBACK_SECRET: EVENTS_SECRET },
    ),
    openBrowser(),
  ]);
  ui = (JSON.parse(provider.lines[0] as string) as { ui: string }).ui;
  watched = await openPage(browser, ui);
  await watched.page.waitForSelector('#live.on');
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  stopAllMockProcesses();
});

describeBrowser('the provider mock inspector in Chromium', () => {
  it("shows the job, the callbacks it sent with their answers, and the job's conversation", async () => {
    const { page } = watched;
    expect(await page.textContent('h1')).toBe('cai inspector: mock provider');
    await page.click('.tabs a[data-tab="callbacks"]');
    await page.waitForSelector('#callbacks-empty', { state: 'visible' });

    const job = { ...sampleJob(), event_id: 'job-0001', lead_id: 'lead-p1', callback_url: platform.url };
    const body = JSON.stringify(job);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const answer = await request(`${provider.url}/contact-jobs`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-cai-source': 'platform',
        'x-cai-timestamp': timestamp,
        'x-cai-signature': sign(JOBS_SECRET, timestamp, body),
      },
    });
    const ack = (await answer.body.json()) as { provider_job_id: string };
    expect(answer.statusCode).toBe(202);

    // The booked scenario: messages, appointment.booked, a last message; each accepted by the platform mock.
    const sent = () => provider.lines.filter((line) => line.includes('"direction":"sent"'));
    await provider.waitForLine((line) => line.includes('"event":"appointment.booked"'));
    await provider.waitForLine(
      (line) => sent().indexOf(line) > sent().findIndex((first) => first.includes('"event":"appointment.booked"')),
    );
    const total = sent().length;
    // Shown as they were sent, without a reload.
    await waitForCount(page, '#callback-rows tr', total);
    const rows = await cells(page, '#callback-rows tr');
    expect(rows.map((row) => row[3])).toEqual(
      sent()
        .map((line) => (JSON.parse(line) as { event: string }).event)
        .reverse(),
    );
    expect(rows[1]?.slice(1, 4)).toEqual(['202', 'accepted', 'appointment.booked']);
    expect(
      rows.every((row) => row[1] === '202' && row[2] === 'accepted' && row[5] === 'lead-p1' && row[6] === '1'),
    ).toBe(true);

    await page.click('#callback-rows tr:nth-child(2)');
    await page.waitForSelector('#detail article.callback-detail');
    expect(await page.textContent('#detail')).toContain(`provider_job_id${ack.provider_job_id}`);
    expect(await page.textContent('#detail')).toContain('None: the first attempt got the final answer.');
    expect(await page.textContent('#detail pre.head')).toContain(
      `POST ${platform.url}\nContent-Type: application/json\nX-CAI-Provider: acme`,
    );

    await page.click('.tabs a[data-tab="requests"]');
    await page.waitForSelector('#rows tr');
    expect((await cells(page, '#rows tr')).map((row) => row.slice(1, 6))).toEqual([
      ['202', 'accepted', 'contact job', 'job-0001', 'lead-p1'],
    ]);

    await page.goto(`${ui}#/conversations/live/lead-p1`);
    await page.waitForSelector('#detail article.conversation section.job');
    expect(await page.textContent('#detail section.job')).toContain(`provider_job_id${ack.provider_job_id}`);
    const messages = await page.$$eval('#detail ol.chat li', (lis) =>
      lis.map((li) => [li.className, li.querySelector('.delivery')?.textContent]),
    );
    expect(messages.length).toBe(total - 1);
    expect(messages.every(([, delivery]) => delivery === '→ 202 accepted, 1 attempt')).toBe(true);
    expect(messages[0]?.[0]).toBe('msg outbound');
    expect(await page.textContent('#detail ol.endings')).toContain('appointment.booked');
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(watched.requests.filter((url) => new URL(url).origin !== new URL(ui).origin)).toEqual([]);
  });
});
