/**
 * The sender checks' judgements at their edges, on evidence built by hand (no sender, no listener): where each
 * rule draws its line, what it cannot judge, and the checks no fault of the fixture reaches in seconds (the time to
 * the first attempt). Also the sender catalogue's own discipline, and the recorder's attribution and answers.
 */
import { describe, expect, it } from 'vitest';
import { describeSenderCatalogue, SENDER_CATALOGUE } from '../../src/conformance/sender/catalogue.js';
import { CATALOGUE, describeCatalogue } from '../../src/conformance/catalogue.js';
import type { SenderCheckDefinition } from '../../src/conformance/sender/define.js';
import type { Attempt, ScenarioRecord, SenderEvidence } from '../../src/conformance/sender/evidence.js';
import { Recorder } from '../../src/conformance/sender/recorder.js';
import { scenario, type ScenarioId } from '../../src/conformance/sender/scenarios.js';
import { sign } from '../../src/signing/sign.js';
import { loadSpecSections } from '../helpers/spec-sections.js';

const SECRET = 'judges-secret-0123456789';
const NOW = 1_767_225_600_000;

function check(id: string): SenderCheckDefinition {
  const found = SENDER_CATALOGUE.find((entry) => entry.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

let sequence = 0;
/** A correct attempt of the B sender, arriving `atMs` after the scenario started; `change` alters it. */
function attempt(id: ScenarioId, number: number, atMs: number, change: Partial<Attempt> & { timestamp?: string; doc?: object } = {}): Attempt {
  const body = Buffer.from(JSON.stringify(change.doc ?? { event: 'job.closed', event_id: 'evt-1', lead_id: 'lead-1', outcome: 'no_answer', attempts: 1, occurred_at: '2026-01-01T00:00:00+00:00' }));
  const arrivedAt = NOW + atMs;
  const timestamp = change.timestamp ?? String(Math.floor(arrivedAt / 1000));
  sequence += 1;
  return {
    scenario: id,
    number,
    arrivedAt,
    arrivedMono: 1_000 + atMs,
    answeredMono: 1_000 + atMs + 5,
    method: 'POST',
    path: `/${id}/events`,
    httpVersion: '1.1',
    headers: { 'content-type': 'application/json', 'x-cai-provider': 'acme', 'x-cai-timestamp': timestamp, 'x-cai-signature': sign(SECRET, timestamp, body) },
    rawHeaders: [],
    body,
    bodyBytes: body.length,
    cut: false,
    answer: scenario(id).script[Math.min(number, scenario(id).script.length) - 1] as Attempt['answer'],
    late: false,
    ...change,
  };
}

function evidence(records: { id: ScenarioId; attempts: Attempt[] }[], secrets = [SECRET]): SenderEvidence {
  return {
    interface: 'B',
    identity: 'acme',
    secrets,
    waitMs: 10_000,
    observeMs: 1_000,
    records: records.map(({ id, attempts }): ScenarioRecord => ({ scenario: scenario(id), targetUrl: `http://127.0.0.1:1/${id}/events`, expectedPath: `/${id}/events`, startedAt: NOW, startedMono: 1_000, endedMono: 20_000, attempts })),
  };
}

/** Attempts of retry-5xx whose waits (from one answer to the next arrival) are `waits`. */
function retriesWithWaits(waits: number[]): Attempt[] {
  const attempts = [attempt('retry-5xx', 1, 0)];
  let at = 0;
  for (const [index, wait] of waits.entries()) {
    at += 5 + wait;
    attempts.push(attempt('retry-5xx', index + 2, at));
  }
  return attempts;
}

const verdict = (id: string, records: Parameters<typeof evidence>[0], secrets?: string[]) => check(id).judge(evidence(records, secrets)).verdict;

describe('per-attempt rules', () => {
  it('the window is judged at arrival, ±300 s, and a malformed timestamp is left to the format check', () => {
    const at = (timestamp: string) => verdict('BS-SIG-003', [{ id: 'accept', attempts: [attempt('accept', 1, 0, { timestamp })] }]);
    const now = Math.floor(NOW / 1000);
    expect(at(String(now - 299))).toBe('passed');
    expect(at(String(now + 299))).toBe('passed');
    expect(at(String(now - 301))).toBe('failed');
    expect(at(String(now + 301))).toBe('failed');
    expect(at(`${now}000`)).toBe('skipped');
  });

  it('the timestamp is an integer of unix seconds: not milliseconds, not a date, not a fraction, not missing', () => {
    const format = (timestamp: string) => verdict('BS-SIG-002', [{ id: 'accept', attempts: [attempt('accept', 1, 0, { timestamp })] }]);
    expect(format(String(Math.floor(NOW / 1000)))).toBe('passed');
    for (const bad of [`${NOW}`, '2026-01-01T00:00:00Z', '1767225600.5', '']) expect(format(bad), bad).toBe('failed');
  });

  it('a signature with any secret of a rotation overlap verifies (§5.9); one over other bytes does not', () => {
    const signed = attempt('accept', 1, 0);
    expect(verdict('BS-SIG-001', [{ id: 'accept', attempts: [signed] }], ['old-secret-0123456789', SECRET])).toBe('passed');
    expect(verdict('BS-SIG-001', [{ id: 'accept', attempts: [signed] }], ['other-secret-0123456789'])).toBe('failed');
    const uppercase = attempt('accept', 1, 0);
    uppercase.headers['x-cai-signature'] = (uppercase.headers['x-cai-signature'] as string).toUpperCase().replace('SHA256=', 'sha256=');
    expect(verdict('BS-SIG-001', [{ id: 'accept', attempts: [uppercase] }])).toBe('failed');
  });

  it('Content-Type is application/json, with parameters allowed and no other media type', () => {
    const type = (value: string) => verdict('BS-HDR-002', [{ id: 'accept', attempts: [attempt('accept', 1, 0, { headers: { ...attempt('accept', 1, 0).headers, 'content-type': value } })] }]);
    expect(type('application/json')).toBe('passed');
    expect(type('Application/JSON; charset=utf-8')).toBe('passed');
    expect(type('application/vnd.cai+json')).toBe('failed');
    expect(type('text/plain')).toBe('failed');
  });

  it('a body over 256 KiB fails the must, one between 256 000 and 262 144 bytes only the should', () => {
    const sized = (bytes: number) => [{ id: 'accept' as const, attempts: [attempt('accept', 1, 0, { bodyBytes: bytes })] }];
    expect([verdict('BS-DOC-002', sized(262_144)), verdict('BS-DOC-003', sized(262_144))]).toEqual(['passed', 'failed']);
    expect([verdict('BS-DOC-002', sized(262_145)), verdict('BS-DOC-003', sized(256_000))]).toEqual(['failed', 'passed']);
  });
});

describe('retry rules', () => {
  it('waits grow when the last two are at least twice the two shortest of the first three; fewer than five are not judged', () => {
    const growth = (waits: number[]) => verdict('BS-RETRY-005', [{ id: 'retry-5xx', attempts: retriesWithWaits(waits) }]);
    expect(growth([100, 200, 400, 800, 1600])).toBe('passed');
    // Exponential with the worst draw of 50 % jitter at both ends still passes.
    expect(growth([100, 200, 200, 400, 800])).toBe('passed');
    // A busy machine drew the first wait out: the growth is still seen.
    expect(growth([900, 100, 200, 400, 800])).toBe('passed');
    expect(growth([150, 150, 150, 150, 150])).toBe('failed');
    expect(growth([100, 200, 300, 250, 340])).toBe('failed');
    // Constant waits with the last one drawn out are still constant.
    expect(growth([400, 400, 400, 400, 900])).toBe('failed');
    expect(growth([100, 200, 400])).toBe('skipped');
  });

  it('a retry after a 429 may come at most 500 ms before Retry-After (a busy sender\'s timers fire early)', () => {
    const after = (wait: number) => verdict('BS-RETRY-008', [{ id: 'retry-429', attempts: [attempt('retry-429', 1, 0), attempt('retry-429', 2, 5 + wait)] }]);
    expect(after(2_000)).toBe('passed');
    expect(after(1_500)).toBe('passed');
    expect(after(1_490)).toBe('failed');
    expect(after(60)).toBe('failed');
  });

  it('the growth of the waits is not judged when cai\'s own loop was held up', () => {
    const [record] = evidence([{ id: 'retry-5xx', attempts: retriesWithWaits([150, 150, 150, 150, 150]) }]).records;
    const outcome = check('BS-RETRY-005').judge({ ...evidence([]), records: [{ ...(record as ScenarioRecord), maxLagMs: 250 }] });
    expect(outcome.verdict).toBe('skipped');
    expect(outcome.actual).toMatch(/^cai's own event loop was held up to 250 ms during retry-5xx/);
  });

  it('a retry of a 400 that comes after the observation window still fails', () => {
    const late = attempt('reject-400', 2, 30_000, { late: true });
    expect(verdict('BS-REJECT-001', [{ id: 'reject-400', attempts: [attempt('reject-400', 1, 0)] }])).toBe('passed');
    expect(verdict('BS-REJECT-001', [{ id: 'reject-400', attempts: [attempt('reject-400', 1, 0), late] }])).toBe('failed');
  });

  it('a scenario that got no attempt fails its checks, naming the trigger; one that did not run is skipped', () => {
    const outcome = check('BS-RETRY-001').judge({ ...evidence([{ id: 'retry-5xx', attempts: [] }]), records: [{ ...evidence([{ id: 'retry-5xx', attempts: [] }]).records[0] as ScenarioRecord, trigger: { exitCode: 127, stoppedByCai: false, output: 'sh: 1: my-sender: not found\n' } }] });
    expect(outcome.verdict).toBe('failed');
    expect(outcome.actual).toBe('scenario retry-5xx: no attempt arrived within --wait 10.00 s (the trigger exited 127: sh: 1: my-sender: not found)');
    expect(verdict('BS-RETRY-001', [])).toBe('skipped');
  });

  it('a retry signed afresh moves its timestamp on; the first attempt\'s headers sent again do not', () => {
    const first = attempt('retry-429', 1, 0);
    const fresh = attempt('retry-429', 2, 2_100);
    const reused = attempt('retry-429', 2, 2_100, { timestamp: first.headers['x-cai-timestamp'] });
    expect(verdict('BS-SIG-004', [{ id: 'retry-429', attempts: [first, fresh] }])).toBe('passed');
    expect(verdict('BS-SIG-004', [{ id: 'retry-429', attempts: [first, reused] }])).toBe('failed');
    expect(verdict('BS-SIG-004', [{ id: 'retry-429', attempts: [first, attempt('retry-429', 2, 1_400)] }])).toBe('skipped');
    // Arrivals 2.1 s apart while cai's loop was held up for a second: not certainly sent 1.5 s apart.
    const [record] = evidence([{ id: 'retry-429', attempts: [first, reused] }]).records;
    expect(check('BS-SIG-004').judge({ ...evidence([]), records: [{ ...(record as ScenarioRecord), maxLagMs: 1_000 }] }).verdict).toBe('skipped');
  });
});

describe('the time to the first attempt (no fixture fault reaches it in seconds)', () => {
  it('passes at 60 s from the trigger and fails after', () => {
    expect(verdict('BS-TIME-001', [{ id: 'accept', attempts: [attempt('accept', 1, 60_000)] }])).toBe('passed');
    expect(verdict('BS-TIME-001', [{ id: 'accept', attempts: [attempt('accept', 1, 0)] }, { id: 'reject-400', attempts: [attempt('reject-400', 1, 60_500)] }])).toBe('failed');
    expect(check('AS-TIME-001').judge({ ...evidence([{ id: 'accept', attempts: [attempt('accept', 1, 61_000)] }]), interface: 'A' }).verdict).toBe('failed');
  });
});

describe('the sender catalogue', () => {
  it('has unique ids of the form BS-/AS-<AREA>-<nnn>, apart from the receiver ids', () => {
    const ids = SENDER_CATALOGUE.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const entry of SENDER_CATALOGUE) expect(entry.id).toMatch(new RegExp(`^${entry.interface}S-[A-Z]+-\\d{3}$`));
    expect(ids.filter((id) => CATALOGUE.some((receiver) => receiver.id === id))).toEqual([]);
  });

  it('cites only sections of the spec, and gives every check a level, tags, a title and scenarios', () => {
    const { sections, source } = loadSpecSections();
    for (const entry of SENDER_CATALOGUE) {
      for (const section of entry.sections) expect(sections.has(section), `${entry.id} cites ${section} (from ${source})`).toBe(true);
      expect(['must', 'should']).toContain(entry.level);
      expect(entry.tags.length, entry.id).toBeGreaterThan(0);
      expect(entry.scenarios.length, entry.id).toBeGreaterThan(0);
      for (const id of entry.scenarios) expect(scenario(id).interfaces, `${entry.id}: ${id}`).toContain(entry.interface);
    }
    expect(new Set(SENDER_CATALOGUE.map((entry) => `${entry.interface} ${entry.title}`)).size).toBe(SENDER_CATALOGUE.length);
  });

  it('lists as plain data with its role and scenarios; the receiver catalogue lists as before, without a role', () => {
    const listed = describeSenderCatalogue('A');
    expect(listed.every((entry) => entry.interface === 'A' && entry.role === 'sender' && (entry.scenarios?.length ?? 0) > 0)).toBe(true);
    expect(JSON.parse(JSON.stringify(listed))).toEqual(listed);
    expect(describeCatalogue().some((entry) => 'role' in entry || 'scenarios' in entry)).toBe(false);
  });
});

describe('the recorder', () => {
  const arrival = (path: string, eventId: string) => ({
    arrivedAt: NOW,
    arrivedMono: performance.now(),
    method: 'POST',
    path,
    httpVersion: '1.1',
    headers: {},
    rawHeaders: [],
    body: Buffer.from(JSON.stringify({ event: 'job.closed', event_id: eventId })),
    bodyBytes: 10,
    cut: false,
  });

  it('with one URL for all (by hand), gives a late retry to the scenario that first saw its event_id', () => {
    const recorder = new Recorder({ interface: 'B', shared: true, publicBase: 'http://127.0.0.1:1' });
    const first = recorder.open(scenario('reject-400'), 0);
    expect(first.targetUrl).toBe('http://127.0.0.1:1/events');
    recorder.handle(arrival('/events', 'evt-a'));
    recorder.close(first, 1);
    const second = recorder.open(scenario('accept'), 2);
    recorder.handle(arrival('/events', 'evt-b'));
    const late = recorder.handle(arrival('/events', 'evt-a'));
    expect(late.response).toMatchObject({ kind: 'reply', reply: { status: 400 } });
    expect(first.attempts.map((entry) => [entry.number, entry.late])).toEqual([[1, false], [2, true]]);
    expect(second.attempts).toHaveLength(1);
  });

  it('with a path per scenario, routes by path, answers a repeat of an accepted event as a duplicate (§2.13), and 404s the rest', () => {
    const recorder = new Recorder({ interface: 'B', shared: false, publicBase: 'http://127.0.0.1:1' });
    const record = recorder.open(scenario('accept'), 0);
    expect(record.targetUrl).toBe('http://127.0.0.1:1/accept/events');
    const body = (handled: ReturnType<Recorder['handle']>) => (handled.response.kind === 'reply' ? handled.response.reply.body?.toString() : 'reset');
    expect(body(recorder.handle(arrival('/accept/events', 'evt-a')))).toBe('{"ok":true}');
    expect(body(recorder.handle(arrival('/accept/events', 'evt-a')))).toBe('{"ok":true,"duplicate":true}');
    expect(recorder.handle(arrival('/elsewhere', 'evt-a')).response).toMatchObject({ kind: 'reply', reply: { status: 404 } });
    expect(recorder.strays).toEqual(['POST /elsewhere']);
  });

  it('answers a job (A) with the §2.3 acknowledgment at {endpoint}/contact-jobs', () => {
    const recorder = new Recorder({ interface: 'A', shared: false, publicBase: 'http://127.0.0.1:1' });
    const record = recorder.open(scenario('accept'), 0);
    expect([record.targetUrl, record.expectedPath]).toEqual(['http://127.0.0.1:1/accept', '/accept/contact-jobs']);
    const handled = recorder.handle(arrival('/accept/contact-jobs', 'evt-a'));
    expect(handled.response.kind === 'reply' && JSON.parse(handled.response.reply.body?.toString() ?? '')).toEqual({ provider_job_id: 'cai-job-accept', assigned_number_e164: '+447700900123' });
  });
});

describe('what a sender sent, quoted in a judgement', () => {
  it('is cut to a line: a 10 000-character path, identity or Content-Type; control characters JSON-escaped', () => {
    const long = `/x\u001b[31m${'a'.repeat(10_000)}`;
    const attempts = [attempt('accept', 1, 100, { path: long, headers: { ...attempt('accept', 1, 100).headers, 'x-cai-provider': `\u001b]0;t\u0007${'p'.repeat(10_000)}`, 'content-type': `text/${'c'.repeat(10_000)}` } })];
    const judged = (id: string) => check(id).judge(evidence([{ id: 'accept', attempts }]));
    for (const id of ['BS-HTTP-001', 'BS-HDR-001', 'BS-HDR-002']) {
      const outcome = judged(id);
      expect(outcome.verdict, id).toBe('failed');
      expect(outcome.actual.length, id).toBeLessThan(400);
    }
    expect(judged('BS-HDR-001').actual).toContain('\\u001b]0;t\\u0007ppp');
  });
});

