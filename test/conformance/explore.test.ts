/**
 * The stateful phase of a receiver run (src/conformance/explore): generated conversations judged by the model. The
 * reference receivers pass it (the model and the mocks agree on generated sequences); a broken mock fails the
 * relation its fault breaks, shown by the shortest conversation, which the seed and its path replay (`--seed S:PATH`,
 * the reproduction script); a receiver written here with a fault no named check looks for is caught by the phase
 * alone; fast-check is loaded by the phase only; its flags' bad values are usage errors.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../../src/conformance/run-receiver.js';
import { receiverReproducer } from '../../src/commands/conformance/repro-defaults.js';
import type { CheckResult, SuiteReport } from '../../src/conformance/types.js';
import { sign } from '../../src/signing/sign.js';
import type { InterfaceId } from '../../src/spec/constants.js';
import { validateBody } from '../../src/spec/validate.js';
import { BIN, ROOT, spawnCli, spawnProcess } from '../helpers/cli.js';
import { DURATION_TEXT } from '../helpers/duration.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-explore-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

function run(
  given: Partial<ConformanceOptions> & Pick<ConformanceOptions, 'interface'> & { invocation?: string },
): Promise<SuiteReport> {
  runs += 1;
  const { invocation, ...options } = given;
  const all: ConformanceOptions = {
    mock: true,
    selection: { only: ['state'], skip: [], include: [] },
    reproDir: join(dir, `run-${runs}`),
    ...options,
  };
  return runConformance({ ...all, reproducer: receiverReproducer(all, invocation) });
}

const failing = (report: SuiteReport) =>
  report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning').map((check) => check.id);
const explain = (report: SuiteReport) =>
  report.checks
    .map((check) => `${check.id} ${check.verdict}: ${check.actual}\n  ${check.notes.join('\n  ')}`)
    .join('\n');
const check = (report: SuiteReport, id: string) => report.checks.find((entry) => entry.id === id) as CheckResult;

/** Faults of the reference receivers, each breaking a relation the phase judges (sizes kept small: seconds a run). */
const CAUGHT: readonly { interface: InterfaceId; fault: string; relation: string }[] = [
  { interface: 'B', fault: 'no-dedupe', relation: 'B-STATE-002' },
  { interface: 'B', fault: 'racy-dedupe', relation: 'B-STATE-002' },
  { interface: 'B', fault: 'dedupe-before-auth', relation: 'B-STATE-004' },
  { interface: 'B', fault: 'no-window', relation: 'B-STATE-004' },
  { interface: 'B', fault: 'no-size-limit', relation: 'B-STATE-006' },
  { interface: 'B', fault: 'reject-unknown-fields', relation: 'B-STATE-001' },
  { interface: 'B', fault: '5xx-on-bad-json', relation: 'B-STATE-005' },
  { interface: 'B', fault: 'duplicate-without-body', relation: 'B-STATE-002' },
  { interface: 'A', fault: 'no-dedupe', relation: 'A-STATE-002' },
  { interface: 'A', fault: 'no-signature-check', relation: 'A-STATE-004' },
  { interface: 'A', fault: 'bad-ack', relation: 'A-STATE-007' },
];

describe('the stateful phase against the reference receivers', () => {
  it.concurrent.each(['B', 'A'] as InterfaceId[])(
    'interface %s: every relation holds, on the evidence of the requests that bore on it',
    async (iface) => {
      const report = await run({ interface: iface, explore: { seed: 11, requests: 400 } });
      expect(failing(report), explain(report)).toEqual([]);
      expect(report.seed).toBe(11);
      for (const result of report.checks)
        expect(result.actual, result.id).toMatch(/^\d+ requests? bore on it, each answered as the model allows$/);
    },
  );

  it('--no-generate: the checks of the phase are skipped, with the reason', async () => {
    const report = await run({
      interface: 'B',
      explore: false,
      selection: { only: ['B-STATE-001', 'B-DEDUP-001'], skip: [], include: [] },
    });
    expect(check(report, 'B-STATE-001')).toMatchObject({
      verdict: 'skipped',
      actual: 'the stateful phase is turned off for this run',
    });
    expect(check(report, 'B-DEDUP-001').verdict).toBe('passed');
    expect(report.seed).toBeUndefined();
  });
});

describe('faults the stateful phase catches', () => {
  it.concurrent.each(CAUGHT.map((entry) => [`${entry.interface} ${entry.fault}`, entry.relation, entry] as const))(
    '%s fails %s, shown by the shortest conversation found',
    async (_name, _relation, entry) => {
      const report = await run({
        interface: entry.interface,
        faults: [entry.fault],
        explore: { seed: 5, requests: 300 },
      });
      expect(failing(report), explain(report)).toContain(entry.relation);
      const result = check(report, entry.relation);
      expect(result.actual).toMatch(/^step \d+ of \d+: expected .+; got .+/);
      expect(result.notes.some((note) => /^1\. /.test(note))).toBe(true);
      expect(result.notes.at(-1)).toMatch(
        new RegExp(`^stateful phase, seed 5: \\d+ conversations, \\d+ requests in ${DURATION_TEXT}`),
      );
      expect(result.repro?.command).toMatch(
        new RegExp(
          `^cai conformance run --interface ${entry.interface} --mock --break ${entry.fault} --seed '?5(:\\d+)*(~[^ ']*)?'? --only ${entry.relation}$`,
        ),
      );
    },
  );

  it('the seed and path of a failure replay its conversation, alone, and the reproduction script does the same', async () => {
    const first = await run({
      interface: 'B',
      faults: ['no-dedupe'],
      explore: { seed: 3, requests: 200 },
      invocation: `'${process.execPath}' '${BIN}'`,
    });
    const result = check(first, 'B-STATE-002');
    const [, path] = /--seed '?3:([^' ]+)'?/.exec(result.repro?.command ?? '') ?? [];
    expect(path).toBeDefined();
    const again = await run({
      interface: 'B',
      faults: ['no-dedupe'],
      explore: { seed: 3, path },
      selection: { only: ['B-STATE-002'], skip: [], include: [] },
    });
    expect(check(again, 'B-STATE-002').verdict).toBe('failed');
    expect(check(again, 'B-STATE-002').notes.at(-1)).toBe(
      `stateful phase, seed 3: replayed one conversation (3:${path})`,
    );
    const script = readFileSync(result.repro?.script ?? '', 'utf8');
    expect(script).toContain(`3:${path}`);
    const replay = await spawnPlain('sh', [result.repro?.script ?? '']);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
  }, 120_000);

  it('a step that breaks two relations: each failure, replayed with its check alone, fails that check again', async () => {
    // Written here: a 500 to every chunked body (a shape the spec allows). A new event_id so sent breaks B-STATE-001,
    // a repeat B-STATE-002: the shortest repeat, replayed by a run that hunted both, shrank on to a lone new event_id.
    const receiver = await startPlatform((doc) => String(doc.event_id), 500);
    try {
      const options = {
        interface: 'B' as const,
        mock: false,
        target: receiver.url,
        identity: 'acme',
        secrets: [receiver.secret],
      };
      const first = await run({ ...options, explore: { seed: 8, requests: 200 } });
      for (const id of ['B-STATE-001', 'B-STATE-002']) {
        const replay = check(first, id).replay;
        expect(String(replay), explain(first)).toMatch(/^8:\d/);
        const again = await run({
          ...options,
          explore: { seed: 8, path: (replay as string).slice(2) },
          selection: { only: [id], skip: [], include: [] },
        });
        expect(check(again, id).verdict, `${id}: ${explain(again)}`).toBe('failed');
        expect(check(again, id).replay).toBe(replay);
      }
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('a receiver written here that dedupes on the event type and the event_id: no named check sees it, the phase does', async () => {
    const receiver = await startPlatform((doc) => `${String(doc.event)}\u0000${String(doc.event_id)}`);
    try {
      const report = await run({
        interface: 'B',
        mock: false,
        target: receiver.url,
        identity: 'acme',
        secrets: [receiver.secret],
        selection: { only: [], skip: [], include: [] },
        explore: { seed: 21, requests: 600 },
      });
      expect(failing(report), explain(report)).toEqual(['B-STATE-002']);
      expect(check(report, 'B-STATE-002').notes.join('\n')).toMatch(/the event_id of step \d+/);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});

describe('cai conformance run, the stateful phase (built binary)', () => {
  it('prints the seed on a run that passes, and in --json', async () => {
    const text = await spawnCli([
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--only',
      'B-STATE-001',
      '--generate',
      '50',
      '--seed',
      '42',
      '--repro-dir',
      join(dir, 'bin-seed'),
    ]);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^stateful phase: seed 42 \(the same seed draws the same conversations\)$/m);
    const json = await spawnCli([
      '--json',
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--only',
      'B-STATE-001',
      '--generate',
      '50',
      '--repro-dir',
      join(dir, 'bin-json'),
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).seed).toEqual(expect.any(Number));
  }, 120_000);

  it('its budget bounds the drawn conversations under way: once an answer comes past it, none sends a step', async () => {
    // A receiver written here that holds each signed request HOLD_MS until its first answer of the phase (the
    // preflight's is the first), far past the phase's 1 s budget, then answers at once: that first answer comes after
    // the budget is spent whatever the machine's load. The drawn conversations under way (named c2, c3… in their
    // event_ids; c1 is the fixed first one, always played whole) must send nothing after it. Before, each went on to
    // its last step: against the rate-limited mock a 20 s budget lasted 44 s.
    const HOLD_MS = 4_000;
    let answers = 0;
    let endOfBudget: number | undefined;
    let drawnBefore = 0;
    const drawnAfter: string[] = [];
    const server: Server = createServer((request, response) => {
      const signed = request.headers['x-cai-signature'] !== undefined;
      const arrived = Date.now();
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const drawn = /-b-state-c(\d+)-/.exec(Buffer.concat(chunks).toString('latin1'));
        if (drawn && drawn[1] !== '1') {
          if (endOfBudget !== undefined && arrived > endOfBudget) drawnAfter.push(drawn[0]);
          else drawnBefore += 1;
        }
        const answer = () => {
          if (signed && (answers += 1) === 2) endOfBudget = Date.now();
          response.writeHead(signed ? 202 : 401, { 'content-type': 'application/json' });
          response.end(signed ? '{"ok":true}' : '{"ok":false}');
        };
        if (signed && endOfBudget === undefined) setTimeout(answer, HOLD_MS);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
      const result = await spawnCli(
        [
          '--json',
          'conformance',
          'run',
          '--interface',
          'B',
          '--to',
          url,
          '--provider',
          'acme',
          '--secret-env',
          'CAI_SECRET',
          '--only',
          'B-STATE-001',
          '--generate',
          '30000',
          '--budget',
          '1s',
          '--seed',
          '7',
          '--repro-dir',
          join(dir, 'bin-budget'),
        ],
        { env: { CAI_SECRET: 'whsec_explore_budget_0123456789' } },
      );
      expect([0, 1], result.stderr).toContain(result.code);
      const note = check(JSON.parse(result.stdout) as SuiteReport, 'B-STATE-001').notes.join('\n');
      expect(note).toMatch(/its time budget ended the exploring/);
      expect(endOfBudget).toBeDefined();
      // The drawn conversations are told by their event_ids (else the next line would hold of nothing).
      expect(drawnBefore).toBeGreaterThan(0);
      expect(drawnAfter).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 120_000);

  it('--rerun-failed replays the conversation a failed check of the phase names, from its --json report', async () => {
    const base = [
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
      '--only',
      'B-STATE-002',
      '--generate',
      '150',
      '--seed',
      '9',
    ];
    const first = await spawnCli(['--json', ...base, '--repro-dir', join(dir, 'bin-rerun-1')]);
    expect(first.code, first.stderr).toBe(1);
    const replay = (JSON.parse(first.stdout) as SuiteReport).checks[0]?.replay;
    expect(replay).toMatch(/^9:\d+(:\d+)*(~\S*)?$/);
    const report = join(dir, 'rerun-report.json');
    writeFileSync(report, first.stdout);
    const again = await spawnCli([
      '--json',
      'conformance',
      'run',
      '--mock',
      '--break',
      'no-dedupe',
      '--rerun-failed',
      report,
      '--repro-dir',
      join(dir, 'bin-rerun-2'),
    ]);
    expect(again.code, again.stderr).toBe(1);
    const result = (JSON.parse(again.stdout) as SuiteReport).checks.find(
      (entry) => entry.id === 'B-STATE-002',
    ) as CheckResult;
    expect(result.verdict).toBe('failed');
    expect(result.notes.at(-1)).toBe(`stateful phase, seed 9: replayed one conversation (${replay})`);
  }, 120_000);

  it('loads fast-check only for the stateful phase', async () => {
    const chunk = readdirSync(join(ROOT, 'dist', 'bundle')).find(
      (name) =>
        name.endsWith('.js') &&
        readFileSync(join(ROOT, 'dist', 'bundle', name), 'utf8').includes('interruptAfterTimeLimit'),
    );
    expect(chunk).toBeDefined();
    const traced = (argv: string[]) => spawnTracing(argv, chunk as string);
    const [help, plain, explored] = await Promise.all([
      traced(['sign', '--help']),
      traced(['conformance', 'run', '--mock', '--interface', 'B', '--only', 'B-DEDUP-001']),
      traced([
        'conformance',
        'run',
        '--mock',
        '--interface',
        'B',
        '--generate',
        '20',
        '--only',
        'B-STATE-001',
        '--repro-dir',
        join(dir, 'traced'),
      ]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stderr).not.toContain('fast-check-loaded');
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stderr).not.toContain('fast-check-loaded');
    expect(explored.code, explored.stdout).toBe(0);
    expect(explored.stderr).toContain('fast-check-loaded');
  }, 120_000);

  it.each([
    [
      ['--generate', '0'],
      "error: option '--generate <n>' argument '0' is invalid. expected a whole number from 1 to 30000 (docs/limits.md).",
    ],
    [
      ['--generate', '30001'],
      "error: option '--generate <n>' argument '30001' is invalid. expected a whole number from 1 to 30000 (docs/limits.md).",
    ],
    [
      ['--seed', '-1'],
      "error: option '--seed <s>' argument '-1' is invalid. expected a whole number from 0 to 2147483647, or SEED:PATH as a failure's note prints it.",
    ],
    [
      ['--seed', '7:x'],
      "error: option '--seed <s>' argument '7:x' is invalid. expected a whole number from 0 to 2147483647, or SEED:PATH as a failure's note prints it.",
    ],
    [
      ['--budget', '0s'],
      "error: option '--budget <duration>' argument '0s' is invalid. expected a duration from 1s to 30m (docs/limits.md).",
    ],
  ])('%j is a usage error, exit 2', async (extra, line) => {
    const result = await spawnCli(['conformance', 'run', '--mock', '--interface', 'B', ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(line);
    expect(result.stderr).toMatch(/^hint: /m);
  });
});

/**
 * An events endpoint written here, not the reference one: the HMAC over the raw body, cai's validator for the
 * schema, and repeats remembered under `keyOf(document)`: the event_id alone is right (§6.1).
 */
async function startPlatform(keyOf: (doc: Record<string, unknown>) => string, chunkedStatus?: number) {
  const secret = 'whsec_explore_test_platform';
  const seen = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const answer = (status: number, json: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(json));
      };
      if (chunkedStatus !== undefined && request.headers['transfer-encoding'] !== undefined)
        return answer(chunkedStatus, { ok: false });
      const timestamp = request.headers['x-cai-timestamp'];
      if (
        typeof timestamp !== 'string' ||
        !/^\d{1,12}$/.test(timestamp) ||
        Math.abs(Number(timestamp) - Math.floor(Date.now() / 1000)) > 300
      )
        return answer(401, { ok: false });
      if (
        request.headers['x-cai-provider'] !== 'acme' ||
        request.headers['x-cai-signature'] !== sign(secret, timestamp, body)
      )
        return answer(401, { ok: false });
      if (body.length > 262_144) return answer(413, { ok: false });
      if (!validateBody(body, { kind: 'event' }).valid) return answer(400, { ok: false });
      const key = keyOf(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      if (seen.has(key)) return answer(202, { ok: true, duplicate: true });
      seen.add(key);
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

/** The built binary with a preload that reports when the chunk holding fast-check is read. */
function spawnTracing(argv: string[], chunk: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const hook = join(mkdtempSync(join(dir, 'hook-')), 'hook.cjs');
  writeFileSync(
    hook,
    `const fs = require('node:fs');\nconst read = fs.readFileSync;\nfs.readFileSync = function (path, ...rest) {\n  if (String(path).endsWith(${JSON.stringify(`/${chunk}`)}) || /node_modules\\/fast-check\\//.test(String(path))) process.stderr.write('fast-check-loaded\\n');\n  return read.call(this, path, ...rest);\n};\n`,
  );
  return spawnPlain(process.execPath, ['--require', hook, BIN, ...argv]);
}
