/**
 * Reproductions are verified, not assumed: for every fault of both reference receivers (`--break`,
 * src/mock/faults.ts), a run of the built cai against that broken receiver (a target of the user's, not `--mock`)
 * writes a script for each check that fails; each script is run against the broken receiver (it must exit 1: the
 * failure shows again) and against a correct one on the same address (it must exit 0). A script that cannot tell
 * exits 2, never 0. The faults are taken from the mocks themselves, so a new fault is verified without a table. On a
 * busy machine a check at a timing edge may fail in a run for no fault of the receiver: a script that then exits 0
 * is told apart from one that lies by running the check itself again (it must pass too).
 *
 * The same run is the self-test of the suite against that fault: it fails (or warns) exactly the checks the table
 * names for the fault (fault-table.ts, or for a fault the generated documents catch, generate-faults.ts), and a
 * fault only `should` checks catch leaves the run green.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PLATFORM_FAULTS, PROVIDER_FAULTS, type PlatformFault, type ProviderFault } from '../../src/mock/faults.js';
import { startMockPlatform } from '../../src/mock/platform.js';
import { startMockProvider } from '../../src/mock/provider.js';
import type { InterfaceId } from '../../src/spec/constants.js';
import { CATALOGUE } from '../../src/conformance/catalogue.js';
import { BIN } from '../helpers/cli.js';
import { FAULT_TABLE, type FaultCase, namedFailures, showsOnlyWhenSlow } from './fault-table.js';
import { GENERATED_FAULTS } from './generate-faults.js';

// Faults at once (REPRO_JOBS, five): a fault's runs and scripts mostly wait, and eight at once took the file 229 s
// instead of 410 s, but the provider mock's callbacks are sent from this process, whose timers then ran late enough
// beside npm test to fail the growth of their waits at a must (BS-RETRY-005 of callback-ignores-retry-after, CI, with
// eight; once in three CI runs before the tolerance below, with eight too).
vi.setConfig({ maxConcurrency: Number(process.env.REPRO_JOBS ?? 5) });

const SECRET = 'whsec_repro_verified_0123456789';
const CALLBACK_SECRET = 'whsec_repro_verified_callbacks_01';
/** B: the lead the platform knows, as a user's platform knows its own (--lead-id); unknown ones are one check's. */
const LEAD = 'lead-repro-verified-known';
const root = mkdtempSync(join(tmpdir(), 'cai-repro-verified-'));
// The scripts that run a check again write its reproduction under TMPDIR: here, removed with the rest.
const scratch = join(root, 'tmp');
mkdirSync(scratch);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = {
  PATH: process.env.PATH,
  NO_COLOR: '1',
  TMPDIR: scratch,
  CAI_SECRET: SECRET,
  CAI_CALLBACK_SECRET: CALLBACK_SECRET,
};

interface Receiver {
  url: string;
  close(): Promise<void>;
}

/** The reference receiver of the interface, with `faults`, on `port` (0: any). A cap on the rate where the fault needs it. */
async function receiver(iface: InterfaceId, fault: string | undefined, port = 0): Promise<Receiver> {
  const faults = fault === undefined ? [] : [fault];
  if (iface === 'B') {
    const rateLimit = fault === 'no-retry-after' ? 10 : undefined;
    return startMockPlatform({
      providerCode: 'acme',
      secrets: [SECRET],
      faults: faults as PlatformFault[],
      keepRecords: false,
      knownLeads: [LEAD],
      port,
      ...(rateLimit ? { rateLimit } : {}),
    });
  }
  return startMockProvider({
    providerCode: 'acme',
    sourceId: 'platform',
    secrets: [SECRET],
    callbackSecrets: [CALLBACK_SECRET],
    faults: faults as ProviderFault[],
    keepRecords: false,
    speed: 1000,
    // Its callbacks' backoff (jitter 0.5) grows 2× a wait: judged on five waits from 150 ms, it still grows with its
    // own timers up to 450 ms late on a loaded machine (this process serves every broken receiver); from 50 ms, 150.
    retry: { initialDelayMs: 150 },
    port,
  });
}

/** The same address again, once the port is free (the broken receiver has just let it go). */
async function receiverOn(iface: InterfaceId, port: number): Promise<Receiver> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await receiver(iface, undefined, port);
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The verdict of check `id` in a run's JSON report (a run that wrote none is an error, with what it said). */
function verdictOf(result: { code: number | null; stdout: string; stderr: string }, id: string): string | undefined {
  if (result.code !== 0 && result.code !== 1) throw new Error(`cai exited ${result.code}:\n${result.stderr}`);
  const report = JSON.parse(result.stdout) as { checks: { id: string; verdict: string }[] };
  return report.checks.find((check) => check.id === id)?.verdict;
}

interface Failing {
  id: string;
  verdict: string;
  notes: string[];
  expected: string;
  actual: string;
  exchange?: unknown;
  repro?: { command: string; script?: string };
}

interface RunReport {
  ok: boolean;
  checks: Failing[];
}

const explain = (report: RunReport) =>
  report.checks
    .filter((check) => check.verdict === 'failed' || check.verdict === 'warning')
    .map((check) => `${check.id}: expected ${check.expected}; actual ${check.actual}`)
    .join('\n');

/**
 * The growth of the provider mock's own callback backoff (BS-RETRY-005), which no fault of the table names: the mock
 * sends from this test's process, which serves every broken receiver at once, and on a loaded machine its timers run
 * late and flatten the growth of its short waits (seen in CI: 455, 740, 756, 1,030 and 1,270 ms, 1.9× where 2× is
 * asked). Such a failure is not held against the table; a fault that names the check is held to it as ever.
 */
const CALLBACK_BACKOFF_GROWTH = new Set(['BS-RETRY-005']);

/** The check of how long a receiver remembers an event_id (checks/receiver/dedupe-memory.ts). */
const REPEAT_MEMORY: Record<InterfaceId, string> = { B: 'B-DEDUP-009', A: 'A-DEDUP-008' };

/** Faults whose breach depends on the time between two requests, not on their order alone. */
const ELAPSED_TIME_FAULTS = new Set(['dedupe-expires']);

/**
 * The faults whose runs play the stateful phase, and so write and verify the scripts of its checks (*-STATE-*): the
 * faults the phase was first to catch (generate-faults.ts), and for each stateful check one fault that fails it (as
 * 400 requests found them: every reference fault, a phase each). The rest run without it (--no-generate): their named
 * checks' scripts are what they verify, and a phase played for each of 84 faults was half of this file's CPU, most
 * of it scripts replaying the same conversations (the stateful scripts are verified here all the same, once a check).
 */
const STATEFUL_WITNESSES = new Set([
  ...GENERATED_FAULTS.map((entry) => `${entry.interface} ${entry.fault}`),
  'B no-dedupe', // B-STATE-002
  'B dedupe-case-insensitive', // B-STATE-003
  'B no-window', // B-STATE-004
  'B lax-schema', // B-STATE-005
  'B no-size-limit', // B-STATE-006
  'B records-before-validation', // B-STATE-007
  'B duplicate-without-body', // B-STATE-008, -002
  'A language-two-part-only', // A-STATE-001, -002
  'A no-dedupe', // A-STATE-002
  'A dedupe-case-insensitive', // A-STATE-003
  'A no-signature-check', // A-STATE-004
  'A 5xx-on-bad-json', // A-STATE-005
  'A bad-ack', // A-STATE-007, -002
]);

/** What the table says a run against the fault must fail: the named checks (a generated one's, without the phase's). */
function tableEntry(iface: InterfaceId, fault: string): FaultCase | undefined {
  const named = FAULT_TABLE.find((entry) => entry.interface === iface && entry.fault === fault);
  if (named) return named;
  const generated = GENERATED_FAULTS.find((entry) => entry.interface === iface && entry.fault === fault);
  return generated && { interface: iface, fault, fails: generated.plainFails };
}

const levelOf = (id: string) => CATALOGUE.find((check) => check.id === id)?.level;

const FAULTS: [InterfaceId, string][] = [
  ...Object.keys(PLATFORM_FAULTS).map((fault): [InterfaceId, string] => ['B', fault]),
  ...Object.keys(PROVIDER_FAULTS).map((fault): [InterfaceId, string] => ['A', fault]),
];

describe('every reproduction, run against the broken receiver and a correct one', () => {
  it('plays the stateful phase for faults of the mocks only (a witness misspelt would witness nothing)', () => {
    const known = new Set(FAULTS.map(([iface, fault]) => `${iface} ${fault}`));
    expect([...STATEFUL_WITNESSES].filter((witness) => !known.has(witness))).toEqual([]);
  });

  it.concurrent.each(FAULTS)(
    "interface %s, fault %s: each failing check's script exits 1, then 0 once the receiver is correct",
    async (iface, fault) => {
      const broken = await receiver(iface, fault);
      const port = Number(new URL(broken.url).port);
      const reproDir = join(root, `${iface}-${fault}`);
      const identity =
        iface === 'B'
          ? ['--provider', 'acme', '--lead-id', LEAD]
          : [
              '--source',
              'platform',
              '--provider',
              'acme',
              '--branch-code',
              'BR-001',
              '--callback-secret-env',
              'CAI_CALLBACK_SECRET',
            ];
      // A fault that stops conversations early is waited out: a shorter wait keeps the run short. Not shorter than 4 s:
      // the callback scenario of five 503s is judged in two waits from its job, and this provider's five backoffs
      // (from 150 ms, doubling, jitter 0.5) take 2.3 to 4.7 s, more on a busy machine: with 2 s, a correct provider's
      // sixth attempt came after cai stopped listening about one run in six, and was judged as giving up.
      const wait = iface === 'A' ? ['--callback-wait', fault === 'callback-no-ending' ? '4s' : '10s'] : [];
      const include = (tableEntry(iface, fault)?.include ?? []).flatMap((name) => ['--include', name]);
      // The memory of repeats is judged last, once the run has lasted 10 s since its first document (a target of the
      // user's): most of a fault's run, spent waiting. Only the faults that name it run it; the rest skip it.
      const memory = REPEAT_MEMORY[iface];
      const skip = tableEntry(iface, fault)?.fails.includes(memory) ? [] : ['--skip', memory];
      // The stateful phase far smaller than by default (about 400 requests, a second or two here; by default 2,500 on
      // B, 800 on A), and only for its witnesses: its fixed first conversation bears on every relation, and each
      // script of a stateful check plays the phase again (its flags are the run's). The budget, which stops the
      // conversations under way too, only bounds a busy machine: the count sizes the work.
      const stateful = STATEFUL_WITNESSES.has(`${iface} ${fault}`);
      const phase = stateful ? ['--generate', '400', '--budget', '10s'] : ['--no-generate'];
      const conformance = (...more: string[]) =>
        run(process.execPath, [
          BIN,
          '--json',
          'conformance',
          'run',
          '--interface',
          iface,
          '--target',
          broken.url,
          ...identity,
          '--secret-env',
          'CAI_SECRET',
          '--observe',
          '500ms',
          ...wait,
          ...include,
          ...skip,
          ...phase,
          ...more,
        ]);
      /** The run's failures whose scripts show them again, of how many had a script. */
      const showAgain = async (
        dir: string,
      ): Promise<{ shown: Failing[]; expected: number; stateful: string[]; report: RunReport }> => {
        const shown: Failing[] = [];
        const result = await conformance('--repro-dir', dir);
        const report = JSON.parse(result.stdout) as RunReport;
        const failing = report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning');
        expect(failing.length, `${fault}: no check failed\n${result.stderr}`).toBeGreaterThan(0);
        // A check that failed without showing a request or an attempt (A-CB-006: too few events) has nothing saved.
        const reproduced = failing.filter((entry) => entry.repro !== undefined || entry.exchange !== undefined);
        const expected = reproduced.length;
        for (const check of reproduced) {
          expect(check.repro?.script, check.id).toBeDefined();
          const again = await run('sh', [check.repro?.script as string]);
          if (again.code === 0) {
            // A fault that shows only with time (an id forgotten a second after it was stored) may not show in a
            // conversation replayed faster than the run played it: the named checks that wait show it every time.
            if (ELAPSED_TIME_FAULTS.has(fault) && check.id.includes('-STATE-')) continue;
            // A check the row does not name fails against such a fault only when the run drew its requests out (a
            // busy machine): its script, replaying them without the run's delays, need not show it (A-DEDUP-001 and
            // A-DEDUP-002 seen in CI).
            const row = tableEntry(iface, fault);
            if (row !== undefined && showsOnlyWhenSlow(row, check.id)) continue;
            // The failure did not show again: the script lies, or one of the two met a timing edge of a busy
            // machine (the run's failure was not the fault's, or the script's pass was luck). The check run again
            // tells them apart: passed, the run's failure was the edge; failed, the fault is there and the script,
            // run once more, must show it; not judged (cai's own lag left it open), it tells nothing either way.
            const verdict = verdictOf(await conformance('--only', check.id), check.id);
            if (verdict !== 'failed' && verdict !== 'warning') continue;
            const third = await run('sh', [check.repro?.script as string]);
            expect(
              third.code,
              `${check.id}: its script exits 0 twice against the broken receiver, where the check fails: ${check.repro?.command}\n${again.stdout}\n${third.stdout}`,
            ).toBe(1);
            shown.push(check);
            continue;
          }
          expect(
            again.code,
            `${check.id} against the broken receiver: ${check.repro?.command}\n${again.stdout}\n${again.stderr}`,
          ).toBe(1);
          shown.push(check);
        }
        const stateful = reproduced.map((check) => check.id).filter((id) => id.includes('-STATE-'));
        return { shown, expected, stateful, report };
      };
      let shown: Failing[];
      try {
        const entry = tableEntry(iface, fault);
        expect(entry, `${iface} ${fault}: no row in fault-table.ts or generate-faults.ts`).toBeDefined();
        const exactly = (report: RunReport) =>
          namedFailures(entry as FaultCase, report, (id) => CALLBACK_BACKOFF_GROWTH.has(id));
        const isExact = (report: RunReport) => {
          const { seen, named } = exactly(report);
          return seen.join(' ') === named.join(' ');
        };
        let attempt = await showAgain(reproDir);
        // A busy machine may leave every check of the fault not judged in a run, and fail others at a timing edge that
        // their scripts and the checks run again then pass: no failure of the fault shown, a check the fault does not
        // name failed as well, or (a witness) no stateful check failed, so the run is played once more (as the sender
        // self-test does); the second is judged. Seen once in CI: a witness's run failed its named check alone.
        if (
          (attempt.expected > 0 && attempt.shown.length === 0) ||
          !isExact(attempt.report) ||
          (stateful && attempt.stateful.length === 0)
        )
          attempt = await showAgain(`${reproDir}-again`);
        ({ shown } = attempt);
        // Exactly the checks the table names for the fault fail or warn; a must among them fails the run.
        const { seen, named } = exactly(attempt.report);
        expect(seen, explain(attempt.report)).toEqual(named);
        // A late-timer failure tolerated above (the mock's own callback backoff) fails a must too: the run's verdict
        // is then not the table's to predict.
        const lateFailure = attempt.report.checks.some(
          (check) => CALLBACK_BACKOFF_GROWTH.has(check.id) && !named.includes(check.id) && check.verdict === 'failed',
        );
        if (!stateful && !lateFailure) expect(attempt.report.ok).toBe(!named.some((id) => levelOf(id) === 'must'));
        // Of the failures with a reproduction, at least one is the fault's, and shows again.
        if (attempt.expected > 0) expect(shown.length, `${fault}: no failure shown again`).toBeGreaterThan(0);
        // A witness of the stateful checks fails one, whose script was run as every other (else the table above has
        // gone stale). Not that it showed the failure: as for any check, a busy machine may leave that open.
        if (stateful)
          expect(
            attempt.stateful,
            `${fault}: no stateful check failed with a script; pick another witness`,
          ).not.toEqual([]);
      } finally {
        await broken.close();
      }
      const correct = await receiverOn(iface, port);
      try {
        for (const check of shown) {
          // A check at a timing edge (the window's, a burst) may fail once on a busy machine: it passes on a second try.
          let fixed = await run('sh', [check.repro?.script as string]);
          if (fixed.code === 1) fixed = await run('sh', [check.repro?.script as string]);
          expect(
            fixed.code,
            `${check.id} against a correct receiver: ${check.repro?.command}\n${fixed.stdout}\n${fixed.stderr}`,
          ).toBe(0);
        }
      } finally {
        await correct.close();
      }
      // A fault that fails many checks runs a script for each, twice: minutes on a loaded machine. The time-out stops
      // a hang; it is not the verdict on a slow run.
    },
    900_000,
  );
});
