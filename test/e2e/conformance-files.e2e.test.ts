/**
 * `cai conformance run --html FILE --summary FILE` through the built binary: the two files say everything the
 * terminal and `--json` say about a run, not only the checks: a run stopped before any check (exit 3, the target is
 * not the endpoint), a refused first request, a run stopped early (--fail-fast) with the checks it never ran, an
 * answer whose body was longer than cai reads, and a sender run's scenarios with every attempt.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, spawnCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import type { SuiteReport } from '../../src/conformance/types.js';
import { formatDuration } from '../../src/duration.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-conformance-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_files_test' };
let serial = 0;

/** The report files of one run (and its exit code, stdout and stderr). */
async function runWithFiles(argv: string[], options: { json?: boolean } = {}) {
  serial += 1;
  const html = join(dir, `run-${serial}.html`);
  const summary = join(dir, `run-${serial}.md`);
  const result = await spawnCli(
    [
      ...(options.json ? ['--json'] : []),
      'conformance',
      'run',
      ...argv,
      '--html',
      html,
      '--summary',
      summary,
      '--repro-dir',
      join(dir, `repro-${serial}`),
    ],
    { env },
  );
  return { ...result, html: readFileSync(html, 'utf8'), summary: readFileSync(summary, 'utf8') };
}

describe('the HTML report and the job summary', () => {
  it('a target that is not the endpoint (exit 3): both files say the run stopped before any check, and why', async () => {
    const server = await startScriptedServer([{ status: 404, body: 'Not Found' }], { path: '/events' });
    try {
      const run = await runWithFiles(['--interface', 'B', '--target', server.url, '--provider', 'acme']);
      expect(run.code).toBe(3);
      const message = `${server.url} is not an events endpoint: a valid, correctly signed event got 404 Not Found; expected 202 (§4.2, §7)`;
      expect(run.stderr).toContain(`error: ${message}\n`);
      expect(run.html).toContain(
        `<b>The run stopped before any check:</b> ${message}<br>Hint: check --to: it is the events URL itself`,
      );
      expect(run.html).toContain('<span class="badge fail">FAILED</span>');
      expect(run.summary).toContain(`### ❌ cai conformance failed: interface B against ${server.url}\n`);
      expect(run.summary).toContain(`**Stopped before any check:** ${message}\n`);
    } finally {
      await server.close();
    }
  });

  it('a first signed request refused with 401, once: the warning the terminal gives is in both files', async () => {
    // The clock probe (read again when a busy machine drew its round trip out) and the first signed request refused,
    // then everything accepted: the refusal does not repeat when diagnosed, so the checks run (one that repeats stops
    // the run: test/conformance/diagnose.test.ts).
    let signedSoFar = 0;
    const server = await startScriptedServer(
      (request) =>
        request.headers['x-cai-signature'] === undefined || signedSoFar++ === 0
          ? { status: 401, body: { error: 'bad signature' } }
          : { status: 202 },
      { path: '/events' },
    );
    try {
      const run = await runWithFiles([
        '--interface',
        'B',
        '--target',
        server.url,
        '--provider',
        'acme',
        '--only',
        'B-ACCEPT-001',
      ]);
      expect(run.code).toBe(0);
      const warning =
        'the first valid, correctly signed request got 401 {"error":"bad signature"}: check the secret and the provider code (--provider) before reading the failures';
      expect(run.stderr).toContain(`warning: ${warning}\n`);
      expect(run.html).toContain(
        '<dt>first signed request</dt><dd>401 {&quot;error&quot;:&quot;bad signature&quot;} (expected 202 (§4.2, §7))</dd>',
      );
      expect(run.html).toContain('Warning: the first valid, correctly signed request got 401');
      expect(run.summary).toContain(
        '**Warning:** the first valid, correctly signed request got 401 {"error":"bad signature"}: check the secret',
      );
    } finally {
      await server.close();
    }
  });

  it('--fail-fast: both files say where and why the run stopped, and name the checks it never ran', async () => {
    const run = await runWithFiles(
      ['--mock', '--interface', 'B', '--break', 'no-dedupe', '--concurrency', '1', '--fail-fast'],
      { json: true },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as SuiteReport;
    expect(report.stopped).toEqual({ after: 'B-DEDUP-001', failures: 1, limit: 1 });
    const notRun = report.checks.filter((check) => check.actual.startsWith('not run: ')).map((check) => check.id);
    expect(notRun.length).toBeGreaterThan(40);
    const line =
      'stopped after the first failed must check (--fail-fast), at B-DEDUP-001; the checks not run are reported as skipped';
    expect(run.html).toContain(`<b>The run stopped early:</b> ${line}.`);
    expect(run.html).toContain(
      `Not finished (${notRun.length}): <a href="#check-${notRun[0]}">${notRun[0]}</a>, <a href="#check-${notRun[1]}">`,
    );
    expect(run.summary).toContain(`**Stopped early:** ${line}\n`);
    expect(run.summary).toContain(`Not finished (${notRun.length}): ${notRun.slice(0, 20).join(', ')}, …\n`);
  });

  it('an answer longer than cai reads: --json, the notes, the page and the summary say it was cut', async () => {
    // Accepts everything with 1.5 MiB of text: B-AUTH-001 (an unsigned event must get 401) fails on it.
    const big = 'x'.repeat(1536 * 1024);
    const server = await startScriptedServer([{ status: 200, headers: { 'content-type': 'text/plain' }, body: big }], {
      path: '/events',
    });
    try {
      const run = await runWithFiles(
        ['--interface', 'B', '--target', server.url, '--provider', 'acme', '--only', 'B-AUTH-001'],
        { json: true },
      );
      expect(run.code).toBe(1);
      const check = (JSON.parse(run.stdout) as SuiteReport).checks.find((entry) => entry.id === 'B-AUTH-001');
      expect(check?.verdict).toBe('failed');
      expect(check?.exchange?.response?.bodyTruncated).toBe(true);
      const note =
        "the answer's body was longer than 1 MiB: cai kept its start, discarded the rest and closed the connection (docs/limits.md)";
      expect(check?.notes).toContain(note);
      expect(run.html).toContain('The body was longer than cai reads: only its start was kept');
      expect(run.html).toContain(note.replace(/'/g, '&#39;'));
      expect(run.summary).toContain('(the body was cut: cai reads only its start)');
    } finally {
      await server.close();
    }
  });

  it('a sender run: the listen URL, each scenario with its URL, answers and every attempt with its event_id', async () => {
    const trigger = `'${process.execPath}' '${BIN}' send-event --to "$CAI_TARGET_URL" --provider acme --sample --initial-delay 50ms >/dev/null 2>&1`;
    const run = await runWithFiles(
      ['--role', 'sender', '--interface', 'B', '--provider', 'acme', '--only', 'BS-RETRY-001', '--trigger', trigger],
      { json: true },
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as SuiteReport;
    const scenario = report.scenarios?.find((entry) => entry.id === 'retry-5xx');
    expect(scenario?.attempts.length).toBeGreaterThan(1);
    expect(run.html).toContain(`<dt>listened on</dt><dd><code>${report.target}</code>`);
    expect(run.html).toContain('<h2>Scenarios</h2>');
    expect(run.html).toContain(
      `<h3>retry-5xx</h3>\n<dl class="ea"><dt>URL</dt><dd>${scenario?.targetUrl}</dd><dt>answers</dt><dd>${scenario?.script}</dd></dl>`,
    );
    for (const [index, attempt] of (scenario?.attempts ?? []).entries()) {
      expect(run.html).toContain(
        `<tr><td>#${index + 1}</td><td>${formatDuration(attempt.at)}</td><td>${attempt.delivery}</td><td><code>${attempt.eventId}</code></td><td>${attempt.answer}</td></tr>`,
      );
    }
    expect(run.html).toContain('trigger exited 0');
    const answers = scenario?.attempts.map((attempt) => attempt.answer).join(', ');
    expect(run.summary).toContain(`, cai listening on ${report.target}\n`);
    expect(run.summary).toContain(
      `Scenarios:\n- retry-5xx: 1 document, ${scenario?.attempts.length} attempts (answered ${answers}), first after ${scenario?.firstAttemptMs} ms\n`,
    );
  });

  it('a sender that sends nothing (exit 3): both files say so, with what the trigger printed, escaped', async () => {
    const run = await runWithFiles([
      '--role',
      'sender',
      '--interface',
      'B',
      '--provider',
      'acme',
      '--only',
      'BS-REJECT-001',
      '--wait',
      '1s',
      '--trigger',
      "printf '<b>\\033[31mnothing</b>\\n'",
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      'error: the sender sent nothing: no attempt arrived in 1 scenario (the trigger exited 0: <b>\\x1b[31mnothing</b>)\n',
    );
    expect(run.html).toContain(
      '<b>The run stopped before any check:</b> the sender sent nothing: no attempt arrived in 1 scenario (the trigger exited 0: &lt;b&gt;\u241b[31mnothing&lt;/b&gt;)',
    );
    expect(run.html).toContain('<dt>role</dt><dd>sender</dd>');
    expect(run.summary).toContain('### ❌ cai conformance failed: interface B (sender)\n');
    expect(run.summary).toContain(
      '**Stopped before any check:** the sender sent nothing: no attempt arrived in 1 scenario (the trigger exited 0: &lt;b&gt;',
    );
  });
});
