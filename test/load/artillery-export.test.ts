/**
 * `cai load export --engine artillery` through the built binary: the project's files, and its processor loaded with
 * plain `require` and driven as Artillery 2.0.21 drives it (requestParams, context, ee, next): a body whose
 * signature verifies (checked with node:crypto here, not cai's code), no `json` left to re-template it, `next()`
 * called with no argument, an event_id of its own per request, repeats at the share asked for, and counters for
 * the `ensure` conditions. The secret is read from the environment and written in no file.
 */
import { createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { validateBody } from '../../src/spec/validate.js';

const SECRET = 'whsec_export_secret_never_written';
const dir = mkdtempSync(join(tmpdir(), 'cai-load-export-'));
const out = join(dir, 'project');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Hook = (...args: unknown[]) => void;

/** ee as Artillery hands it to hooks: `counter` events, summed by name. */
function counters(): { ee: EventEmitter; totals: Map<string, number> } {
  const ee = new EventEmitter();
  const totals = new Map<string, number>();
  ee.on('counter', (name: string, value: number) => totals.set(name, (totals.get(name) ?? 0) + value));
  return { ee, totals };
}

describe('cai load export --engine artillery', () => {
  it('writes the YAML, the processor, package.json and README, the secret in none of them', async () => {
    const result = await spawnCli(
      [
        'load',
        'export',
        '--engine',
        'artillery',
        '--out',
        out,
        '--workers',
        '4',
        '--to',
        'http://127.0.0.1:9/cai/events',
        '--provider',
        'acme',
        '--ramp',
        '0..100/s:10s',
        '--rate',
        '50/s',
        '--duration',
        '20s',
        '--mix',
        'conversation.message=80,job.closed=20',
        '--repeat',
        '10%',
        '--threshold',
        'http_req_duration: p(99)<250',
        '--threshold',
        'rate(status=5xx) < 0.005',
        '--threshold',
        'status=401 == 0',
        '--threshold',
        'dropped_iterations: count == 0',
      ],
      { env: { CAI_SECRET: SECRET } },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      "warning: threshold 'dropped_iterations: count == 0' is not in the Artillery project: Artillery starts every arrival (it has no in-flight cap), so none is dropped\n",
    );
    expect(result.stdout).toBe(
      `Artillery project written to ${out}: cai-load.yml, cai-processor.cjs, package.json, README.md\n  cd ${out} && npm install && npx artillery run cai-load.yml\n`,
    );
    expect(readdirSync(out).sort()).toEqual(['README.md', 'cai-load.yml', 'cai-processor.cjs', 'package.json']);
    for (const file of readdirSync(out)) expect(readFileSync(join(out, file), 'utf8')).not.toContain(SECRET);

    const yaml = readFileSync(join(out, 'cai-load.yml'), 'utf8');
    expect(yaml).toContain('\nconfig:\n  target: "http://127.0.0.1:9"\n  processor: "./cai-processor.cjs"\n');
    expect(yaml).toContain(
      '  phases:\n    - name: "ramp 0..100/s"\n      duration: 10\n      arrivalRate: 0\n      rampTo: 100\n    - name: "steady 50/s"\n      duration: 20\n      arrivalRate: 50\n',
    );
    // run-fargate --count 4 runs the script on each worker: each sends a quarter.
    expect(yaml).toContain(
      '    fargate:\n      phases:\n        - name: "ramp 0..100/s / 4 workers"\n          duration: 10\n          arrivalRate: 0\n          rampTo: 25\n        - name: "steady 50/s / 4 workers"\n          duration: 20\n          arrivalRate: 12.5\n',
    );
    expect(yaml).toContain(
      '  plugins:\n    ensure: {}\n  ensure:\n    conditions:\n      - expression: "http.response_time.p99 < 250"\n        strict: true\n      - expression: "cai.status_5xx / http.requests < 0.005"\n',
    );
    expect(yaml).toContain(
      '  - name: "job.closed"\n    weight: 20\n    flow:\n      - post:\n          url: "/cai/events"\n          name: "job.closed"\n          beforeRequest: "caiSign"\n          afterResponse: "caiJudge"\n',
    );

    const manifest = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
      engines: Record<string, string>;
    };
    expect(manifest.devDependencies).toEqual({ artillery: '2.0.21' });
    expect(manifest.engines.node).toBe('>=20.19');
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('npx artillery run cai-load.yml');
    expect(readme).toContain(
      'npx artillery run-fargate --count 4 --region eu-west-1 --environment fargate --secret CAI_SECRET cai-load.yml',
    );
    expect(readme).toContain('/artilleryio/CAI_SECRET');
  });

  it('has a processor that loads with require, signs the exact bytes it sends, and calls next() with nothing', () => {
    const processor = createRequire(import.meta.url)(join(out, 'cai-processor.cjs')) as Record<string, Hook>;
    expect(Object.keys(processor).sort()).toEqual(['caiJudge', 'caiSign']);
    // Artillery calls a hook with a callback only when its constructor is Function (not AsyncFunction).
    expect(processor.caiSign?.constructor.name).toBe('Function');
    expect(processor.caiJudge?.constructor.name).toBe('Function');
    const previous = process.env.CAI_SECRET;
    process.env.CAI_SECRET = SECRET;
    try {
      const { ee, totals } = counters();
      const bodies: Buffer[] = [];
      const ids = new Set<string>();
      for (let index = 0; index < 30; index += 1) {
        const requestParams: Record<string, unknown> = {
          url: '/cai/events',
          name: index % 5 === 0 ? 'job.closed' : 'conversation.message',
          json: { templated: '{{ $randomString() }}' },
          headers: { 'user-agent': 'Artillery' },
        };
        const context = { vars: {} };
        const next = vi.fn();
        processor.caiSign?.(requestParams, context, ee, next);
        expect(next.mock.calls).toEqual([[]]);
        expect('json' in requestParams).toBe(false);
        const body = requestParams.body as Buffer;
        expect(Buffer.isBuffer(body)).toBe(true);
        const headers = requestParams.headers as Record<string, string>;
        expect(headers['user-agent']).toBe('Artillery');
        expect(headers['x-cai-provider']).toBe('acme');
        expect(headers['content-type']).toBe('application/json');
        const timestamp = headers['x-cai-timestamp'] as string;
        expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
        expect(headers['x-cai-signature']).toBe(
          `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest('hex')}`,
        );
        expect(validateBody(body).valid).toBe(true);
        const repeat = bodies.some((earlier) => earlier.equals(body));
        if (!repeat) ids.add((JSON.parse(body.toString('utf8')) as { event_id: string }).event_id);
        bodies.push(body);
        const answer = repeat ? '{"ok":true,"duplicate":true}' : '{"ok":true}';
        const judged = vi.fn();
        processor.caiJudge?.(
          requestParams,
          { statusCode: 202, headers: { 'content-type': 'application/json' }, body: answer },
          context,
          ee,
          judged,
        );
        expect(judged.mock.calls).toEqual([[]]);
      }
      // 10 % of 30, kept exactly; every new document with an event_id of its own.
      expect(totals.get('cai.repeats_sent')).toBe(3);
      expect(ids.size).toBe(27);
      expect(totals.get('cai.duplicates_confirmed')).toBe(3);
      expect(totals.get('cai.repeats_unrecognised')).toBe(0);
      expect(totals.get('cai.status_2xx')).toBe(30);
      expect(totals.get('cai.status_5xx')).toBe(0);
      expect(totals.get('cai.status_401')).toBe(0);
      expect(totals.get('cai.responses')).toBe(30);

      delete process.env.CAI_SECRET;
      const fresh = createRequire(import.meta.url);
      delete fresh.cache[fresh.resolve(join(out, 'cai-processor.cjs'))];
      const unconfigured = fresh(join(out, 'cai-processor.cjs')) as Record<string, Hook>;
      const next = vi.fn();
      unconfigured.caiSign?.({ url: '/cai/events', name: 'job.closed' }, { vars: {} }, new EventEmitter(), next);
      expect(String(next.mock.calls[0]?.[0])).toBe(
        'Error: cai: no signing secret: set the environment variable CAI_SECRET',
      );
    } finally {
      if (previous === undefined) delete process.env.CAI_SECRET;
      else process.env.CAI_SECRET = previous;
    }
  });

  it('refuses what an Artillery project cannot hold, and an existing project without --force', async () => {
    const results = await Promise.all([
      spawnCli(['load', 'export', '--engine', 'artillery', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme']),
      spawnCli([
        'load',
        'export',
        '--engine',
        'artillery',
        '--out',
        out,
        '--to',
        'http://127.0.0.1:9/events',
        '--provider',
        'acme',
      ]),
      spawnCli([
        'load',
        'export',
        '--engine',
        'artillery',
        '--out',
        join(dir, 'other'),
        '--to',
        'http://127.0.0.1:9/events',
        '--provider',
        'acme',
        '--secret',
        SECRET,
      ]),
      spawnCli([
        'load',
        'export',
        '--engine',
        'k6',
        '--out',
        join(dir, 'other'),
        '--to',
        'http://127.0.0.1:9/events',
        '--provider',
        'acme',
      ]),
    ]);
    expect(results.map((result) => result.code)).toEqual([2, 2, 2, 2]);
    expect(results[0]?.stderr).toBe(
      'error: --out is required\nhint: pass the folder to write the project to, e.g. --out load-test\n',
    );
    expect(results[1]?.stderr).toBe(
      `error: ${join(out, 'cai-load.yml')} exists already\nhint: pass --force to overwrite the project files, or another --out\n`,
    );
    expect(results[2]?.stderr).toMatch(
      /^warning: --secret puts the secret .+\nerror: --secret does not apply to cai load export\nhint: the project reads the secret from an environment variable: pass --secret-env NAME \(default CAI_SECRET\)\n$|^error: --secret does not apply to cai load export\n/,
    );
    expect(results[2]?.stderr).not.toContain(SECRET);
    expect(results[3]?.stderr).toMatch(
      /^error: option '--engine <engine>' argument 'k6' is invalid\. Allowed choices are artillery\.\nhint: /,
    );
  });
});
