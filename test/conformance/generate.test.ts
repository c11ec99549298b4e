/**
 * The generated checks (`cai conformance run --generate N [--seed S]`) against receivers: the reference receivers
 * pass with 500 documents of each kind (the built binary, both interfaces); reference receivers given a date-time
 * fault fail exactly the generated check that names the fault, shown by a shrunk document and the seed; receivers written here fail the rules the reference ones do not break (a 5xx for
 * an invalid event, a receiver that fails once); the same seed shrinks to the same document; fast-check is loaded
 * by this path only; the flags' bad values are usage errors.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../../src/conformance/run-receiver.js';
import type { CheckResult, SuiteReport } from '../../src/conformance/types.js';
import { sign } from '../../src/signing/sign.js';
import { validateBody } from '../../src/spec/validate.js';
import { BIN, ROOT, spawnCli, spawnProcess } from '../helpers/cli.js';
import { GENERATED_FAULTS } from './generate-faults.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-generate-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

function run(options: Partial<ConformanceOptions> & Pick<ConformanceOptions, 'interface'>): Promise<SuiteReport> {
  runs += 1;
  return runConformance({ mock: true, selection: { only: ['generate'], skip: [], include: [] }, reproDir: join(dir, `run-${runs}`), ...options });
}

const failing = (report: SuiteReport) => report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning').map((check) => check.id);
const explain = (report: SuiteReport) => report.checks.map((check) => `${check.id} ${check.verdict}: ${check.actual}\n  ${check.notes.join('\n  ')}`).join('\n');
const check = (report: SuiteReport, id: string) => report.checks.find((entry) => entry.id === id) as CheckResult;

/** The smallest failing document, as the check's note gives it. */
function shrunkDocument(result: CheckResult): Record<string, unknown> {
  const note = result.notes.find((text) => text.startsWith('the document'));
  if (!note) throw new Error(`no document note: ${result.notes.join(' | ')}`);
  return JSON.parse(note.slice(note.indexOf('{'))) as Record<string, unknown>;
}

const valueAt = (doc: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), doc);

describe('faults the generated documents catch', () => {
  it.concurrent.each(GENERATED_FAULTS.map((entry) => [`${entry.interface} ${entry.fault}`, entry.fails.join(', '), entry] as const))('%s: a plain run fails only its derived format probe; generated documents fail exactly %s', async (_name, _fails, entry) => {
    const plain = await run({ interface: entry.interface, faults: [entry.fault], selection: { only: [], skip: [], include: [] } });
    expect(failing(plain), explain(plain)).toEqual(entry.plainFails);
    expect(plain.checks.some((result) => result.id.includes('-GEN-'))).toBe(false);

    const report = await run({ interface: entry.interface, faults: [entry.fault], generate: { count: entry.count, seed: entry.seed } });
    expect(failing(report), explain(report)).toEqual(entry.fails);
    const result = check(report, entry.fails[0] as string);
    // The smallest document that still fails: the required fields, and the one field whose shape is refused.
    const doc = shrunkDocument(result);
    expect(String(valueAt(doc, entry.field))).toMatch(entry.shows);
    const required = entry.interface === 'B' ? ['event', 'event_id'] : ['lead_id', 'event_id', 'branch_code', 'contact', 'callback_url', 'origin'];
    expect(Object.keys(doc).filter((key) => !required.includes(key))).toEqual(entry.interface === 'B' ? [entry.field] : []);
    expect(result.notes).toContain('sent once more with a fresh event_id, it failed again');
    expect(result.notes.some((note) => note.startsWith(`seed ${entry.seed}: \`--generate ${entry.count} --seed ${entry.seed}\``))).toBe(true);
    expect(result.repro?.command).toBe(`cai conformance run --interface ${entry.interface} --mock --break ${entry.fault} --generate ${entry.count} --seed ${entry.seed} --only ${result.id}`);
    expect(readFileSync(result.repro?.bodyFile as string, 'utf8')).toBe(JSON.stringify(doc));
  });

  it('the same seed shrinks to the same document (its fresh event_id aside)', async () => {
    const twice = await Promise.all([1, 2].map(() => run({ interface: 'B', faults: ['date-time-whole-hour-offset'], generate: { count: 40, seed: 1 }, selection: { only: ['B-GEN-001'], skip: [], include: [] } })));
    const [first, second] = twice.map((report) => ({ ...shrunkDocument(check(report, 'B-GEN-001')), event_id: '-' }));
    expect(second).toEqual(first);
  });
});

describe('the rules the reference receivers keep', () => {
  it('a receiver that accepts what it should refuse fails B-GEN-003 with the smallest invalid event', async () => {
    const report = await run({ interface: 'B', faults: ['lax-schema'], generate: { count: 20, seed: 1 } });
    expect(failing(report), explain(report)).toEqual(['B-GEN-003']);
    const result = check(report, 'B-GEN-003');
    expect(result.actual).toMatch(/^\d+ of 20 not rejected as expected; the smallest that still fails got 202/);
    // One change of a valid event, on the fewest fields.
    expect(Object.keys(shrunkDocument(result)).length).toBeLessThanOrEqual(3);
    expect(result.notes.some((note) => /^the document, .+: \{/.test(note))).toBe(true);
  });

  it('a receiver that does not recognise a repeat fails B-GEN-002, shown by the pair of requests', async () => {
    const report = await run({ interface: 'B', faults: ['no-dedupe'], generate: { count: 10, seed: 2 } });
    expect(failing(report), explain(report)).toEqual(['B-GEN-002']);
    const result = check(report, 'B-GEN-002');
    expect(result.exchanges?.length).toBe(2);
    expect(Object.keys(shrunkDocument(result)).sort()).toEqual(['event', 'event_id']);
  });

  it('a receiver that answers 500 to an invalid event fails B-GEN-004 only, shrunk to the field that crashes it', async () => {
    // It reads its date-times before it validates them: `toISOString` throws on a date JavaScript cannot read.
    const receiver = await startPlatform({ crash: (doc) => ['occurred_at', 'scheduled_at'].some((key) => typeof doc[key] === 'string' && Number.isNaN(Date.parse(doc[key] as string))) });
    try {
      const report = await run({ interface: 'B', mock: false, target: receiver.url, identity: 'acme', secrets: [receiver.secret], generate: { count: 60, seed: 3 } });
      expect(failing(report), explain(report)).toEqual(['B-GEN-004']);
      const doc = shrunkDocument(check(report, 'B-GEN-004'));
      const dates = Object.keys(doc).filter((key) => key !== 'event' && key !== 'event_id');
      expect(dates.length).toBe(1);
      expect(Date.parse(String(doc[dates[0] as string]))).toBeNaN();
      // A target on the network: the failing body is sent again by one plain command.
      expect(check(report, 'B-GEN-004').repro?.command).toMatch(/^cai send-event --to http:\/\/127\.0\.0\.1:\d+\/events --provider acme --secret-env CAI_SECRET --body \S+\/B-GEN-004\.body --no-validate --no-retry$/);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that fails once is reported as intermittent, its failure not shrunk', async () => {
    const receiver = await startPlatform({ refuseRequest: 6 });
    try {
      const report = await run({ interface: 'B', mock: false, target: receiver.url, identity: 'acme', secrets: [receiver.secret], generate: { count: 10, seed: 4 }, selection: { only: ['B-GEN-001'], skip: [], include: [] } });
      const result = check(report, 'B-GEN-001');
      expect(result.verdict).toBe('failed');
      expect(result.actual).toMatch(/^1 of 10 not accepted \(intermittent\); the smallest that still fails got 400/);
      expect(result.notes.some((note) => /which passed when sent again to be shrunk: an intermittent failure, not shrunk$/.test(note))).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});

describe('cai conformance run --generate (built binary)', () => {
  it.concurrent.each(['B', 'A'])('the reference receiver of interface %s passes 500 valid and 500 invalid generated documents', async (iface) => {
    const result = await spawnCli(['conformance', 'run', '--mock', '--interface', iface, '--generate', '500', '--only', 'generate', '--repro-dir', join(dir, `bin-${iface}`)]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^4 passed, 0 failed, 0 skipped$/m);
    expect(result.stdout).toMatch(new RegExp(`^│ ${iface}-GEN-001 .* ✓ passed`, 'm'));
    // Nothing on stderr but, on a slow machine, the line a CI log gets when no check finished for 10 s.
    expect(result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('still running '))).toEqual([]);
  }, 180_000);

  it('a failure names the check, the seed, the smallest document, and a script that shows it again', async () => {
    const args = ['conformance', 'run', '--mock', '--interface', 'B', '--break', 'date-time-whole-hour-offset', '--generate', '40', '--seed', '1', '--only', 'generate', '--repro-dir', join(dir, 'bin-fail')];
    const result = await spawnCli(args);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^✗ B-GEN-001 generated valid events .* are accepted \(must, §2 §2\.1 §2\.4 §4\.2 §6\.5\)$/m);
    expect(result.stdout).toMatch(/^ {2}note: {5}seed 1: `--generate 40 --seed 1` draws the same documents again \(each with a fresh event_id\)$/m);
    expect(result.stdout).toMatch(/^ {2}note: {5}the document: \{"event":"[a-z.]+","event_id":"cai-conf-[0-9a-f]{8}-b-gen-\d+","occurred_at":"[^"]+[+-]\d\d:(?!00)\d\d"\}$/m);
    const script = join(dir, 'bin-fail', 'B-GEN-001.sh');
    expect(readFileSync(script, 'utf8')).toContain('conformance run --interface B --mock --break date-time-whole-hour-offset --generate 40 --seed 1 --only B-GEN-001');
    const again = await spawnPlain('sh', [script]);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(again.stdout).toMatch(/^0 passed, 1 failed, 0 skipped$/m);
  }, 180_000);

  it('loads fast-check only for generated documents', async () => {
    const chunk = readdirSync(join(ROOT, 'dist', 'bundle')).find((name) => name.endsWith('.js') && readFileSync(join(ROOT, 'dist', 'bundle', name), 'utf8').includes('interruptAfterTimeLimit'));
    expect(chunk).toBeDefined();
    const traced = (argv: string[]) => spawnTracing(argv, chunk as string);
    const [help, plain, generated] = await Promise.all([
      traced(['sign', '--help']),
      traced(['conformance', 'run', '--mock', '--interface', 'B', '--only', 'B-DEDUP-001']),
      traced(['conformance', 'run', '--mock', '--interface', 'B', '--generate', '3', '--only', 'B-GEN-001', '--repro-dir', join(dir, 'traced')]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stderr).not.toContain('fast-check-loaded');
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stderr).not.toContain('fast-check-loaded');
    expect(generated.code, generated.stdout).toBe(0);
    expect(generated.stderr).toContain('fast-check-loaded');
  }, 120_000);

  it.each([
    [['--generate', '0'], "error: option '--generate <n>' argument '0' is invalid. expected a whole number from 1 to 10000 (docs/limits.md)."],
    [['--generate', '10001'], "error: option '--generate <n>' argument '10001' is invalid. expected a whole number from 1 to 10000 (docs/limits.md)."],
    [['--generate', '5', '--seed', '-1'], "error: option '--seed <s>' argument '-1' is invalid. expected a whole number from 0 to 2147483647, as a failure's note prints it."],
    [['--generate', '501', '--role', 'sender', '--provider', 'acme'], 'error: --generate 501 is more conversations than a sender run plays (at most 500)'],
  ])('%j is a usage error, exit 2', async (extra, line) => {
    const result = await spawnCli(['conformance', 'run', ...(extra.includes('sender') ? [] : ['--mock']), '--interface', 'B', ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(line);
    expect(result.stderr).toMatch(/^hint: /m);
  });
});

/**
 * An events endpoint written here, not the reference one: HMAC checked over the raw body, cai's validator for the
 * schema, event_ids remembered for the §2.13 answer. `crash`: documents it answers 500 (a parse that throws before
 * validation); `refuseRequest`: the signed request of that number it answers 400, once.
 */
async function startPlatform(behaviour: { crash?: (doc: Record<string, unknown>) => boolean; refuseRequest?: number }) {
  const secret = 'whsec_generate_test_platform';
  const seen = new Set<string>();
  let signed = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const answer = (status: number, json: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(json));
      };
      const timestamp = request.headers['x-cai-timestamp'];
      if (typeof timestamp !== 'string' || request.headers['x-cai-signature'] !== sign(secret, timestamp, body)) return answer(401, { ok: false });
      signed += 1;
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return answer(400, { ok: false });
      }
      if (behaviour.crash?.(doc)) return answer(500, { error: 'internal' });
      if (behaviour.refuseRequest === signed) return answer(400, { ok: false, error: 'hiccup' });
      if (!validateBody(body, { kind: 'event' }).valid) return answer(400, { ok: false });
      const id = String(doc.event_id);
      if (seen.has(id)) return answer(202, { ok: true, duplicate: true });
      seen.add(id);
      return answer(202, { ok: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    secret,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A program run from the repository, without colour. */
function spawnPlain(command: string, args: string[]) {
  return spawnProcess(command, args, { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
}

/** The built binary with a preload that reports when the chunk holding fast-check is read (bin/cai.js reads chunks with readFileSync). */
function spawnTracing(argv: string[], chunk: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const hook = join(mkdtempSync(join(dir, 'hook-')), 'hook.cjs');
  writeFileSync(
    hook,
    `const fs = require('node:fs');\nconst read = fs.readFileSync;\nfs.readFileSync = function (path, ...rest) {\n  if (String(path).endsWith(${JSON.stringify(`/${chunk}`)}) || /node_modules\\/fast-check\\//.test(String(path))) process.stderr.write('fast-check-loaded\\n');\n  return read.call(this, path, ...rest);\n};\n`,
  );
  return spawnPlain(process.execPath, ['--require', hook, BIN, ...argv]);
}
