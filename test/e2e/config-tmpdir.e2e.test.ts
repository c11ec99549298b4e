import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/signing/sign.js';
import { sampleEvent } from '../../src/spec/sample.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';

afterAll(stopAllMockProcesses);

const SECRET = 'whsec_config_tmpdir_events_0123456789';

async function post(url: string, document: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify(document);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-CAI-Provider': 'acme',
      'X-CAI-Timestamp': timestamp,
      'X-CAI-Signature': sign(SECRET, timestamp, Buffer.from(body)),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

describe("the profile's branches reach the mocks as data (issue #14: no catalog file in the temp directory)", () => {
  it('cai --config … mock platform writes nothing to TMPDIR and follows no link planted there', async () => {
    const work = mkdtempSync(join(tmpdir(), 'cai-config-tmpdir-'));
    const tmp = join(work, 'tmp');
    mkdirSync(tmp);
    const config = join(work, 'cai.config.json');
    const branches = [{ branch_code: 'BR-1', name: 'One' }];
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        environments: { test: { provider_code: 'acme', branches, secrets: { events: { env: 'EVENTS' } } } },
      }),
    );
    // Where earlier versions wrote the catalog (a name anyone can predict), planted as a link to a file that must stay as it is.
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    const digest = createHash('sha256')
      .update(config)
      .update('\0')
      .update(`${JSON.stringify(branches, null, 2)}\n`)
      .digest('hex')
      .slice(0, 16);
    const planted = `cai-catalog-${digest}.json`;
    symlinkSync(victim, join(tmp, planted));

    const mock = await startMockProcess(['--config', config, 'mock', 'platform', '--debug'], {
      EVENTS: SECRET,
      TMPDIR: tmp,
    });
    expect(mock.stderr()).toContain('debug: config: --catalog = BR-1 (branches of environment test)');
    // The catalog is in force: a unit it lists is accepted, another is refused (§2.2).
    expect(await post(mock.url, sampleEvent('appointment.booked', { branchCode: 'BR-1' }))).toBe(202);
    expect(await post(mock.url, sampleEvent('appointment.booked', { branchCode: 'BR-9' }))).toBe(400);
    mock.child.kill('SIGINT');
    expect(await mock.exited).toBe(130);

    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(readdirSync(tmp)).toEqual([planted]);
  });
});
