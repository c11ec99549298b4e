import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { post } from '../helpers/mock-client.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';

afterAll(() => stopAllMockProcesses());

const env = { JOBS_SECRET: 'jobs-secret-0123456789', EVENTS_SECRET: 'events-secret-0123456789' };

describe('cai mock provider + cai mock platform (built binaries, wired together)', () => {
  it('plays a whole conversation from one job, and both mocks print the same events', async () => {
    const platform = await startMockProcess(
      ['--json', 'mock', 'platform', '--provider', 'acme', '--secret-env', 'EVENTS_SECRET'],
      env,
    );
    const provider = await startMockProcess(
      [
        '--json',
        'mock',
        'provider',
        '--provider',
        'acme',
        '--secret-env',
        'JOBS_SECRET',
        '--callback-secret-env',
        'EVENTS_SECRET',
        '--scenario',
        'closed:callback_later',
        '--speed',
        '1000',
      ],
      env,
    );
    expect(provider.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    const job = {
      lead_id: 'lead-e2e-1',
      event_id: `job-e2e-${Date.now()}`,
      branch_code: 'MAD-01',
      contact: { name: 'Ana García', phone_e164: '+34600111222' },
      callback_url: platform.url,
    };
    const ack = await post(`${provider.url}/contact-jobs`, job, { secret: env.JOBS_SECRET, provider: null });
    expect(ack.status).toBe(202);
    expect(ack.json).toMatchObject({
      provider_job_id: expect.stringMatching(/^pj_/),
      assigned_number_e164: expect.stringMatching(/^\+[1-9][0-9]+$/),
    });

    const closed = await provider.waitForLine((line) => line.includes('"event":"job.closed"'));
    expect(JSON.parse(closed)).toMatchObject({
      direction: 'sent',
      outcome: 'accepted',
      status: 202,
      lead_id: 'lead-e2e-1',
    });
    await platform.waitForLine((line) => line.includes('"event":"job.closed"'));
    const sent = provider.lines
      .slice(1)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.direction === 'sent');
    const received = platform.lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(received.map((entry) => entry.event_id)).toEqual(sent.map((entry) => entry.event_id));
    expect(received.every((entry) => entry.verdict === 'accepted' && entry.lead_id === 'lead-e2e-1')).toBe(true);
    expect(
      provider.lines.some((line) => line.includes('"interface":"A"') && line.includes('"verdict":"accepted"')),
    ).toBe(true);

    provider.child.kill('SIGINT');
    platform.child.kill('SIGINT');
    expect(await provider.exited).toBe(130);
    expect(await platform.exited).toBe(130);
  });

  it('prints one line per job and per event sent in text mode', async () => {
    const provider = await startMockProcess(
      [
        'mock',
        'provider',
        '--provider',
        'acme',
        '--secret-env',
        'JOBS_SECRET',
        '--callback-secret-env',
        'EVENTS_SECRET',
        '--speed',
        '1000',
      ],
      env,
    );
    const job = {
      lead_id: 'lead-e2e-2',
      event_id: 'job-e2e-text',
      branch_code: 'MAD-01',
      contact: { name: 'Ana', phone_e164: '+34600111222' },
      callback_url: 'http://127.0.0.1:9/events',
    };
    await post(`${provider.url}/contact-jobs`, job, { secret: env.JOBS_SECRET, provider: null });
    const line = await provider.waitForLine((l) => l.includes('contact job'));
    expect(line).toMatch(
      /^[0-9:.]{12}  \[202\]  accepted   contact job +job-e2e-text  lead=lead-e2e-2  job=pj_[0-9a-f]{16}  from=\+447700900[0-9]{3}$/,
    );
    provider.child.kill('SIGTERM');
    expect(await provider.exited).toBe(0);
  });

  it('reports bad usage as error + hint with exit 2', async () => {
    const scenario = await spawnCli(
      [
        'mock',
        'provider',
        '--provider',
        'acme',
        '--secret-env',
        'JOBS_SECRET',
        '--callback-secret-env',
        'EVENTS_SECRET',
        '--scenario',
        'closed:maybe',
      ],
      { env },
    );
    expect(scenario.code).toBe(2);
    expect(scenario.stderr).toBe(
      'error: unknown scenario "closed:maybe"\nhint: choose one of: booked, rescheduled, cancelled, closed:no_answer, closed:not_interested, closed:wrong_number, closed:callback_later, closed:opted_out, random\n',
    );
    const speed = await spawnCli(['mock', 'provider', '--provider', 'acme', '--speed', '0'], { env });
    expect(speed.code).toBe(2);
    expect(speed.stderr.split('\n')[0]).toBe(
      "error: option '--speed <factor>' argument '0' is invalid. expected a positive number such as 10 or 0.5.",
    );
    const noCallback = await spawnCli(['mock', 'provider', '--provider', 'acme', '--secret-env', 'JOBS_SECRET'], {
      env,
    });
    expect(noCallback.code).toBe(2);
    expect(noCallback.stderr).toMatch(/^error: .*callback-secret.*\nhint: .*\n$/s);
  });
});
