/**
 * `cai load`, three findings of its first-day review, through the built binary: a redirecting target is exit 3 (as
 * in every command that sends), a short run with repeats has one (or its threshold says truthfully why not, not
 * judged), and a bad --html path is refused before any request, a write failing after the run printing the result
 * first. Runs of at most 3 s at 5/s, on 127.0.0.1.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import type { LoadReport } from '../../src/load/report.js';
import { RepeatPool } from '../../src/load/repeats.js';

const env = { CAI_SECRET: 'whsec_first_day_secret' };
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** A receiver that answers request n (from 1) 301 when `redirects(n)`, else 202 `{"ok":true}`. */
async function receiver(redirects: (n: number) => boolean): Promise<string> {
  let n = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      n += 1;
      if (redirects(n)) response.writeHead(301, { location: 'https://elsewhere.example/events' }).end();
      else response.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
}

const load = (...flags: string[]) => spawnCli(['load', ...flags], { env });

describe('cai load against a redirecting target', () => {
  it('exits 3 after the results, with an error naming where it redirects and a hint', async () => {
    const url = await receiver(() => true);
    const result = await load('--to', url, '--provider', 'acme', '--rate', '5/s', '--duration', '2s');
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/│ 301\s+│ 10\s+│ 100\.0 % │/);
    const lines = result.stderr.trim().split('\n');
    expect(lines.slice(-2)).toEqual([
      'error: the target redirects: 10 of 10 answers were a 3xx, the first 301 to https://elsewhere.example/events; redirects are not followed',
      'hint: pass the final URL as --to: a signed POST is never redirected',
    ]);
  });

  it('exits 3 when only some answers redirect, whatever the thresholds; --json says so in one document', async () => {
    const url = await receiver((n) => n % 5 === 0);
    const result = await load(
      '--json',
      '--to',
      url,
      '--provider',
      'acme',
      '--rate',
      '5/s',
      '--duration',
      '2s',
      '--threshold',
      'http_reqs: count == 10',
    );
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as LoadReport;
    expect(report.thresholds[0]?.ok).toBe(true);
    expect(report).toMatchObject({
      ok: false,
      exitCode: 3,
      redirects: { count: 2, status: 301, location: 'https://elsewhere.example/events' },
      error: { code: 'target_redirects', exitCode: 3 },
    });
    expect(result.stderr).not.toContain('error:');
  });
});

describe('cai load: repeats in a short run', () => {
  it('sends a repeat in 15 requests at 5 % (--slo spec), and judges it', async () => {
    const result = await load('--mock', '--rate', '5/s', '--duration', '3s', '--slo', 'spec');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ repeats_unrecognised: count == 0  count=0');
    expect(result.stdout).toMatch(/repeats\s+1 sent: 1 confirmed as duplicates/);
  });

  it('leaves the threshold not judged, saying why, when the run is too short for a repeat', async () => {
    const result = await load(
      '--mock',
      '--rate',
      '5/s',
      '--duration',
      '0.2s',
      '--repeat',
      '5%',
      '--threshold',
      'repeats_unrecognised: count == 0',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '– repeats_unrecognised: count == 0  not judged: the run was too short for a repeat: no request went out after the first document was accepted (1 sent)',
    );
    expect(result.stdout).not.toContain('pass --repeat');
    expect(result.stdout).toContain('1 threshold: 0 passed, 0 failed, 1 not judged');
  });

  it('keeps the share: a repeat from the second request on, then one every 1/share', () => {
    for (const share of [0.01, 0.05, 0.1, 0.5, 0.9]) {
      const pool = new RepeatPool(16, share, () => 0);
      const repeats: number[] = [];
      for (let request = 1; request <= 100; request += 1) {
        if (pool.due() !== undefined) repeats.push(request);
        else pool.remember({ body: String(request) });
      }
      expect(repeats[0]).toBe(2);
      expect(repeats.length).toBe(Math.floor(99 * share + 1e-9) + 1);
    }
  });
});

describe('cai load --html', () => {
  it.each([
    ['/nonexistent/x.html', 'its directory does not exist'],
    ['/', 'it is a directory'],
  ])('refuses %s before any request: exit 2, one error and one hint', async (path, why) => {
    const result = await load('--mock', '--rate', '5/s', '--duration', '1s', '--html', path);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `error: cannot write the HTML report to ${path}: ${why}`,
      'hint: pass an --html FILE in a directory that exists and is writable',
    ]);
  });

  it.runIf(existsSync('/dev/full'))(
    'prints the whole result before the error when the write fails after the run',
    async () => {
      const result = await load('--mock', '--rate', '5/s', '--duration', '1s', '--html', '/dev/full');
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(/requests\s+5 sent of 5 planned/);
      expect(result.stdout).toMatch(/│ 202\s+│ 5\s+│ 100\.0 % │/);
      expect(result.stderr.trim().split('\n').slice(-2)[0]).toMatch(
        /^error: cannot write the HTML report to \/dev\/full: /,
      );
    },
  );
});
