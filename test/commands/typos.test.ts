/**
 * A mistyped value is answered with exit 2 and `did you mean …?` naming the value meant
 * (src/suggest.ts, one helper for every list a value is checked against); the required options a
 * command lacks are named in one error, not one per run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closestValue, editDistance, listUnknown } from '../../src/suggest.js';
import { runCli } from '../helpers/cli.js';

const env = { CAI_SECRET: 'whsec_typos_0123456789', CAI_CALLBACK_SECRET: 'whsec_typos_callback_0123' };

describe('the nearest value', () => {
  it('counts one edit for a missing letter, a wrong letter or two letters swapped', () => {
    expect(editDistance('no-dedup', 'no-dedupe')).toBe(1);
    expect(editDistance('platfrom', 'platform')).toBe(1);
    expect(editDistance('job.clozed', 'job.closed')).toBe(1);
    expect(editDistance('B', 'b')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests only what is near enough to be a typo, or the one value a prefix names', () => {
    expect(closestValue('no-dedup', ['no-dedupe', 'racy-dedupe', 'no-window'])).toBe('no-dedupe');
    expect(closestValue('B-DEDUP-01', ['B-DEDUP-001', 'B-DEDUP-002', 'B-AUTH-001'])).toBe('B-DEDUP-001');
    expect(closestValue('zzz', ['no-dedupe', 'no-window'])).toBeUndefined();
    // Every character changed is no typo: --interface C is not A.
    expect(closestValue('C', ['A', 'B'])).toBeUndefined();
    expect(closestValue('AB', ['A', 'B'])).toBe('A');
    expect(closestValue('B-NOPE-001', ['B-SIZE-001', 'B-AUTH-001'])).toBeUndefined();
    expect(closestValue('conv', ['conversation.message', 'job.closed'])).toBe('conversation.message');
    expect(closestValue('appointment', ['appointment.booked', 'appointment.cancelled'])).toBeUndefined();
    expect(listUnknown(['dedup', 'zzz'], ['dedupe', 'auth'])).toBe('dedup (did you mean dedupe?), zzz');
  });
});

describe('every command answers a typo with the value meant (exit 2)', () => {
  it.each([
    [
      ['mock', 'platform', '--provider', 'acme', '--break', 'no-dedup'],
      "error: option '--break <fault>' argument 'no-dedup' is invalid. not a fault: did you mean no-dedupe?",
    ],
    [
      ['mock', 'provider', '--provider', 'acme', '--break', 'bad-ak'],
      "error: option '--break <fault>' argument 'bad-ak' is invalid. not a fault: did you mean bad-ack?",
    ],
    [
      ['conformance', 'run', '--mock', '--interface', 'B', '--break', 'no-dedup'],
      "error: option '--break <fault>' argument 'no-dedup' is invalid. not a fault: did you mean no-dedupe?",
    ],
    [
      ['sample', 'event', 'job.close'],
      "error: command-argument value 'job.close' is invalid for argument 'type'. did you mean job.closed? expected one of: conversation.message, appointment.booked, appointment.rescheduled, appointment.cancelled, job.closed.",
    ],
    [
      ['conformance', 'run', '--mock', '--interface', 'b'],
      "error: option '--interface <id>' argument 'b' is invalid. Allowed choices are A, B; did you mean B?",
    ],
    [
      ['completion', 'bsh'],
      "error: command-argument value 'bsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish; did you mean bash?",
    ],
    [
      ['conformance', 'run', '--mock', '--interface', 'B', '--only', 'dedup,B-DEDUP-01'],
      'error: no interface B check or tag matches: dedup (did you mean dedupe?), B-DEDUP-01 (did you mean B-DEDUP-001?)',
    ],
    [
      ['conformance', 'run', '--mock', '--interface', 'B', '--skip', 'auht'],
      'error: no interface B check or tag matches: auht (did you mean auth?)',
    ],
    [
      ['conformance', 'run', '--mock', '--interface', 'B', '--include', 'rate-limt'],
      'error: no interface B check or tag matches: rate-limt (did you mean rate-limit?)',
    ],
    [
      ['load', '--mock', '--rate', '5/s', '--duration', '1s', '--threshold', 'http_req_duraton: p(99)<100'],
      "error: option '--threshold <expr>' argument 'http_req_duraton: p(99)<100' is invalid. no metric \"http_req_duraton\" (did you mean http_req_duration?); the metrics: http_reqs, http_req_duration, http_req_failed, dropped_iterations, availability, rejected, retry_after_missing, repeats, duplicates_confirmed, repeats_unrecognised, callback_first_contact, callbacks_missing.",
    ],
  ])('%j', async (argv, firstLine) => {
    const result = await runCli(argv, { env });
    expect(result.stderr.split('\n')[0]).toBe(firstLine);
    expect(result.code).toBe(2);
  });

  it('a key of cai.config.json mistyped: named, with the key meant', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-typos-'));
    writeFileSync(
      join(dir, 'cai.config.json'),
      JSON.stringify({
        version: 1,
        environments: { test: { event_url: 'https://p.example/events', provider_code: 'acme' } },
      }),
    );
    const result = await runCli(['config', 'show'], { env, cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: ${join(dir, 'cai.config.json')} is invalid: environments.test: unknown key "event_url" (did you mean "events_url"?)`,
    );
  });

  it('a value far from every known one is told where the list is, not given all of them', async () => {
    const result = await runCli(['mock', 'platform', '--provider', 'acme', '--break', 'zzz'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(
      /^error: option '--break <fault>' argument 'zzz' is invalid\. not a fault: 'cai mock platform --help' lists the \d+ faults$/,
    );
  });
});

describe('the required options a command lacks are named together', () => {
  it.each([
    [
      ['send-event', '--sample'],
      'error: --to and --provider are required',
      'hint: pass the events URL, e.g. --to https://platform.example/cai/events; and your provider_code for X-CAI-Provider (§4.2), e.g. --provider acme',
    ],
    [
      ['send-job', '--sample'],
      'error: --to and --source are required',
      "hint: pass the provider's base URL, e.g. --to https://provider.example/cai; and the X-CAI-Source value identifying the platform (§4.1), e.g. --source platform",
    ],
    [
      ['replay'],
      'error: --request and --to are required',
      'hint: pass --request FILE with the captured raw HTTP request; and the URL to send to, e.g. --to http://127.0.0.1:8787',
    ],
    [
      ['verify', '--body', '-'],
      'error: --signature and --timestamp are required',
      'hint: pass --signature sha256=<hex> (or --request FILE with the captured request); and --timestamp <unix seconds> as received in X-CAI-Timestamp',
    ],
    [
      ['conformance', 'run', '--interface', 'A', '--target', 'http://127.0.0.1:9/cai'],
      'error: --source and --branch-code are required',
      'hint: pass --source ID (the X-CAI-Source value, §4.1); and --branch-code CODE from the deployment catalog (a branch_code the jobs carry)',
    ],
  ])('%j', async (argv, error, hint) => {
    const result = await runCli(argv, { env, stdin: '' });
    expect(result.stderr).toBe(`${error}\n${hint}\n`);
    expect(result.code).toBe(2);
  });

  it('one missing option is named alone', async () => {
    const result = await runCli(['send-event', '--to', 'http://127.0.0.1:9/events', '--sample'], { env });
    expect(result.stderr).toBe(
      'error: --provider is required\nhint: pass your provider_code for X-CAI-Provider (§4.2), e.g. --provider acme\n',
    );
  });
});
