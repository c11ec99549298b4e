/**
 * The sender checks' judgements at their edges, on evidence built by hand (no sender, no listener): where each
 * rule draws its line, what it cannot judge, how attempts group into deliveries (one document or many, in order
 * or interleaved, a document re-sent under a new event_id), when a stage is over, and the checks no fault of the
 * fixture reaches in seconds (the time to the first attempt). Also the sender catalogue's discipline, and the
 * recorder's attribution and answers.
 */
import { describe, expect, it } from 'vitest';
import { recordedAttempt } from '../helpers/attempts.js';
import { CATALOGUE, describeCatalogue, SENDER_CATALOGUE } from '../../src/conformance/catalogue.js';
import type { SenderCheck } from '../../src/conformance/check.js';
import type { Attempt, SenderEvidence, StageRecord } from '../../src/conformance/evidence.js';
import { deliveriesOf } from '../../src/spec/model/sender.js';
import { Recorder, retryAfterOf } from '../../src/conformance/listen/recorder.js';
import { scenario, type ScenarioId, type ScriptedAnswer } from '../../src/conformance/listen/scenarios.js';
import { stageState, type SettleOptions } from '../../src/conformance/listen/settle.js';
import { judgeSenderChecks } from '../../src/conformance/runner.js';
import { unconfirmedBreaches, worthPlayingAgain } from '../../src/conformance/checks/sender/judging.js';
import { loadSpecSections } from '../helpers/spec-sections.js';

const SECRET = 'judges-secret-0123456789';
const NOW = 1_767_225_600_000;

function check(id: string): SenderCheck {
  const found = SENDER_CATALOGUE.find((entry) => entry.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

const job = (eventId: string, extra: object = {}) => ({
  event: 'job.closed',
  event_id: eventId,
  lead_id: 'lead-1',
  outcome: 'no_answer',
  attempts: 1,
  occurred_at: '2026-01-01T00:00:00+00:00',
  ...extra,
});

interface Change extends Partial<Attempt> {
  timestamp?: string;
  doc?: object;
  /** The attempt's place in its own delivery (1-based), which picks its scripted answer; default `number`. */
  nth?: number;
}

/** A correct attempt of the B sender, arriving `atMs` after the stage started; `change` alters it. */
function attempt(id: ScenarioId, number: number, atMs: number, change: Change = {}): Attempt {
  const { doc, nth, timestamp, ...rest } = change;
  const script = scenario(id).script;
  const answer = script[Math.min(nth ?? number, script.length) - 1] as ScriptedAnswer;
  return {
    ...recordedAttempt({
      stage: id,
      number,
      startedAt: NOW,
      atMs,
      doc: doc ?? job('evt-1'),
      answer,
      secret: SECRET,
      path: `/${id}/events`,
      ...(timestamp !== undefined ? { timestamp } : {}),
    }),
    ...rest,
  };
}

function stage(id: ScenarioId, attempts: Attempt[]): StageRecord {
  return {
    scenario: scenario(id),
    id,
    targetUrl: `http://127.0.0.1:1/${id}/events`,
    expectedPath: `/${id}/events`,
    startedAt: NOW,
    startedMono: 1_000,
    endedMono: 20_000,
    attempts,
  };
}

function evidence(records: { id: ScenarioId; attempts: Attempt[] }[], secrets = [SECRET]): SenderEvidence {
  return {
    interface: 'B',
    identity: 'acme',
    secrets,
    waitMs: 10_000,
    observeMs: 1_000,
    records: records.map(({ id, attempts }) => stage(id, attempts)),
  };
}

/** Attempts of retry-5xx whose waits (from one answer to the next arrival) are `waits`. */
function retriesWithWaits(waits: number[], doc = job('evt-1'), start = 0): Attempt[] {
  const attempts = [attempt('retry-5xx', 1, start, { doc })];
  let at = start;
  for (const [index, wait] of waits.entries()) {
    at += 5 + wait;
    attempts.push(attempt('retry-5xx', index + 2, at, { doc }));
  }
  return attempts;
}

const verdict = (id: string, records: Parameters<typeof evidence>[0], secrets?: string[]) =>
  check(id).judge(evidence(records, secrets)).verdict;

describe('per-attempt rules', () => {
  it('the window is judged at arrival, ±300 s, and a malformed timestamp is left to the format check', () => {
    const at = (timestamp: string) =>
      verdict('BS-SIG-003', [{ id: 'accept', attempts: [attempt('accept', 1, 0, { timestamp })] }]);
    const now = Math.floor(NOW / 1000);
    expect(at(String(now - 299))).toBe('passed');
    expect(at(String(now + 299))).toBe('passed');
    expect(at(String(now - 301))).toBe('failed');
    expect(at(String(now + 301))).toBe('failed');
    expect(at(`${now}000`)).toBe('not-judged');
  });

  it('the timestamp is an integer of unix seconds: not milliseconds, not a date, not a fraction, not missing', () => {
    const format = (timestamp: string) =>
      verdict('BS-SIG-002', [{ id: 'accept', attempts: [attempt('accept', 1, 0, { timestamp })] }]);
    expect(format(String(Math.floor(NOW / 1000)))).toBe('passed');
    for (const bad of [`${NOW}`, '2026-01-01T00:00:00Z', '1767225600.5', '']) expect(format(bad), bad).toBe('failed');
  });

  it('a signature with any secret of a rotation overlap verifies (§5.9); one over other bytes does not', () => {
    const signed = attempt('accept', 1, 0);
    expect(verdict('BS-SIG-001', [{ id: 'accept', attempts: [signed] }], ['old-secret-0123456789', SECRET])).toBe(
      'passed',
    );
    expect(verdict('BS-SIG-001', [{ id: 'accept', attempts: [signed] }], ['other-secret-0123456789'])).toBe('failed');
    const uppercase = attempt('accept', 1, 0);
    uppercase.headers['x-cai-signature'] = (uppercase.headers['x-cai-signature'] as string)
      .toUpperCase()
      .replace('SHA256=', 'sha256=');
    expect(verdict('BS-SIG-001', [{ id: 'accept', attempts: [uppercase] }])).toBe('failed');
  });

  it('Content-Type is application/json, with parameters allowed and no other media type', () => {
    const type = (value: string) =>
      verdict('BS-HDR-002', [
        {
          id: 'accept',
          attempts: [
            attempt('accept', 1, 0, { headers: { ...attempt('accept', 1, 0).headers, 'content-type': value } }),
          ],
        },
      ]);
    expect(type('application/json')).toBe('passed');
    expect(type('Application/JSON; charset=utf-8')).toBe('passed');
    expect(type('application/vnd.cai+json')).toBe('failed');
    expect(type('text/plain')).toBe('failed');
  });

  it('a charset other than UTF-8 contradicts §2; utf-8 in any case, quoted or not, does not', () => {
    const type = (value: string) =>
      verdict('BS-HDR-002', [
        {
          id: 'accept',
          attempts: [
            attempt('accept', 1, 0, { headers: { ...attempt('accept', 1, 0).headers, 'content-type': value } }),
          ],
        },
      ]);
    for (const right of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'APPLICATION/JSON ; Charset=Utf8',
    ])
      expect(type(right), right).toBe('passed');
    for (const wrong of [
      'application/json; charset=utf-16',
      'application/json; charset=iso-8859-1',
      'application/json; charset="latin1"',
      'application/json; charset=utf-8; charset=us-ascii',
    ])
      expect(type(wrong), wrong).toBe('failed');
  });

  it('two Content-Type fields fail, even with the same value: judged on the raw header lines (RFC 9110 §5.3)', () => {
    const lines = (...values: string[]) => {
      const base = attempt('accept', 1, 0);
      // Node keeps the first Content-Type of several in `headers`: only the raw lines show the second.
      const rawHeaders: [string, string][] = [
        ['Host', '127.0.0.1'],
        ...values.map((value, index): [string, string] => [index % 2 ? 'content-type' : 'Content-Type', value]),
        ['X-CAI-Provider', 'acme'],
      ];
      return { ...base, headers: { ...base.headers, 'content-type': values[0] ?? '' }, rawHeaders };
    };
    const judged = (...values: string[]) =>
      check('BS-HDR-002').judge(evidence([{ id: 'accept', attempts: [lines(...values)] }]));
    expect(judged('application/json').verdict).toBe('passed');
    expect(judged('application/json', 'application/json').verdict).toBe('failed');
    expect(judged('application/json', 'application/json').actual).toContain('2 Content-Type fields');
    expect(judged('application/json', 'text/plain').verdict).toBe('failed');
    expect(
      check('AS-HDR-002').judge({
        ...evidence([{ id: 'accept', attempts: [lines('application/json', 'application/json')] }]),
        interface: 'A',
      }).verdict,
    ).toBe('failed');
  });

  it('the target is the URL itself: a query added to the events URL fails, the path alone passes', () => {
    const at = (path: string) =>
      verdict('BS-HTTP-001', [{ id: 'accept', attempts: [attempt('accept', 1, 0, { path })] }]);
    expect(at('/accept/events')).toBe('passed');
    expect(at('/accept/events?x=1')).toBe('failed');
    expect(at('/accept/events?')).toBe('failed');
    expect(at('/accept/other')).toBe('failed');
    const actual = check('BS-HTTP-001').judge(
      evidence([{ id: 'accept', attempts: [attempt('accept', 1, 0, { path: '/accept/events?x=1' })] }]),
    ).actual;
    expect(actual).toContain('a query ?x=1 added to /accept/events, which has none');
  });

  it('the query of a callback_url is part of its address: dropped or changed, it fails; kept, it passes', () => {
    const judged = (path: string) => {
      const record = { ...stage('accept', [attempt('accept', 1, 0, { path })]), expectedPath: '/accept/events?job=7' };
      return check('BS-HTTP-001').judge({ ...evidence([]), records: [record] });
    };
    expect(judged('/accept/events?job=7').verdict).toBe('passed');
    expect(judged('/accept/events').verdict).toBe('failed');
    expect(judged('/accept/events').actual).toContain(
      'the query ?job=7 of the URL given (/accept/events?job=7) dropped',
    );
    expect(judged('/accept/events?job=8').actual).toContain(
      'the query of the URL given (/accept/events?job=7) changed',
    );
    expect(judged('/accept/other?job=7').actual).toContain('not /accept/events?job=7');
  });

  it('a body over 256 KiB fails the must, one between 256 000 and 262 144 bytes only the should', () => {
    const sized = (bytes: number) => [
      { id: 'accept' as const, attempts: [attempt('accept', 1, 0, { bodyBytes: bytes })] },
    ];
    expect([verdict('BS-DOC-002', sized(262_144)), verdict('BS-DOC-003', sized(262_144))]).toEqual([
      'passed',
      'failed',
    ]);
    expect([verdict('BS-DOC-002', sized(262_145)), verdict('BS-DOC-003', sized(256_000))]).toEqual([
      'failed',
      'passed',
    ]);
  });
});

describe('retry rules', () => {
  it('waits grow when the last two are at least twice the two shortest of the first three; fewer than five are not judged', () => {
    const growth = (waits: number[]) =>
      verdict('BS-RETRY-005', [{ id: 'retry-5xx', attempts: retriesWithWaits(waits) }]);
    expect(growth([100, 200, 400, 800, 1600])).toBe('passed');
    // Exponential with the worst draw of 50 % jitter at both ends still passes.
    expect(growth([100, 200, 200, 400, 800])).toBe('passed');
    // A busy machine drew the first wait out: the growth is still seen.
    expect(growth([900, 100, 200, 400, 800])).toBe('passed');
    expect(growth([150, 150, 150, 150, 150])).toBe('failed');
    expect(growth([200, 300, 300, 250, 340])).toBe('failed');
    // Constant waits with the last one drawn out are still constant; so are constant waits with ±50 % jitter.
    expect(growth([400, 400, 400, 400, 900])).toBe('failed');
    expect(growth([1_400, 600, 900, 1_450, 520])).toBe('failed');
    expect(growth([100, 200, 400])).toBe('not-judged');
  });

  it('waits that neither grow nor hold steady are a draw of jitter, not judged: full jitter is exponential backoff', () => {
    const growth = (waits: number[]) =>
      check('BS-RETRY-005').judge(evidence([{ id: 'retry-5xx', attempts: retriesWithWaits(waits) }]));
    // Each wait drawn from 0 to a ceiling that doubles from 200 ms (AWS's "full jitter"): a draw seen in a run.
    const drawn = growth([160, 330, 390, 420, 2]);
    expect(drawn.verdict).toBe('not-judged');
    expect(drawn.actual).toMatch(
      /neither growing nor steady, as a jittered backoff may draw them, which leaves it open$/,
    );
    // At most three times apart, they are steady: no backoff, whatever the order.
    expect(growth([300, 900, 400, 350, 500]).verdict).toBe('failed');
    expect(growth([300, 950, 400, 350, 500]).verdict).toBe('not-judged');
  });

  it("a retry after a 429 may come a quarter of Retry-After early, at most 500 ms (a busy sender's timers fire early)", () => {
    const after = (wait: number) =>
      verdict('BS-RETRY-008', [
        { id: 'retry-429', attempts: [attempt('retry-429', 1, 0), attempt('retry-429', 2, 5 + wait)] },
      ]);
    expect(after(2_000)).toBe('passed');
    expect(after(1_500)).toBe('passed');
    expect(after(1_490)).toBe('failed');
    expect(after(60)).toBe('failed');
    // The callbacks' 429 asks for 1 s: 250 ms early still counts, 260 does not. One rule, one tolerance.
    const callback = (wait: number) => {
      const answer: ScriptedAnswer = { kind: 'error', status: 429, retryAfter: { form: 'seconds', seconds: 1 } };
      const answered = {
        ...attempt('retry-429', 1, 0),
        answer,
        retryAfter: retryAfterOf({ form: 'seconds', seconds: 1 }, NOW + 5, 1_005),
      };
      return verdict('BS-RETRY-008', [{ id: 'retry-429', attempts: [answered, attempt('retry-429', 2, 5 + wait)] }]);
    };
    expect([callback(750), callback(740)]).toEqual(['passed', 'failed']);
  });

  it('a retry after a 429 whose Retry-After is an HTTP-date is judged against that date, not a number of seconds', () => {
    // NOW + 5 ms is 5 ms past a whole second: the date is 2 s later rounded up to the next whole second, 2995 ms ahead.
    const first = attempt('retry-429-date', 1, 0);
    expect(first.retryAfter?.header).toBe(new Date(NOW + 3_000).toUTCString());
    const after = (wait: number) =>
      verdict('BS-RETRY-010', [{ id: 'retry-429-date', attempts: [first, attempt('retry-429-date', 2, 5 + wait)] }]);
    expect(after(2_995)).toBe('passed');
    // The tolerance of a wait of 3 s (a quarter, at most 500 ms): 500 ms early passes, 510 does not.
    expect(after(2_495)).toBe('passed');
    expect(after(2_485)).toBe('failed');
    // Two seconds, right for Retry-After: 2, is early for the date.
    expect(after(2_000)).toBe('failed');
    // The seconds check does not judge the date's 429, nor the date check the seconds'.
    expect(
      verdict('BS-RETRY-008', [{ id: 'retry-429-date', attempts: [first, attempt('retry-429-date', 2, 60)] }]),
    ).toBe('not-judged');
  });

  it("a Retry-After date is written in the sender's clock: a provider 100 s ahead reads the wait cai waits for", () => {
    const ahead = 100_000;
    const sent = retryAfterOf({ form: 'date', seconds: 2 }, NOW + 5, 1_005, ahead);
    // The sender's whole second, 2 s ahead at least, names the moment cai judges against (2995 ms from now).
    expect(sent.header).toBe(new Date(NOW + ahead + 3_000).toUTCString());
    expect(Date.parse(sent.header) - (NOW + 5 + ahead)).toBe(2_995);
    expect(sent.form === 'date' ? sent.dateMono : undefined).toBe(1_005 + 2_995);
  });

  it("a date written in a provider's clock as cai read it is known to the second: a retry within it is not judged", () => {
    // The provider's cached Date header, a second stale on a busy machine, read its clock a second behind cai's: the
    // date went out a second early in truth, and a correct provider honoured it 977 ms before the moment cai judged.
    const answer: ScriptedAnswer = { kind: 'error', status: 429, retryAfter: { form: 'date', seconds: 2 } };
    const sent = retryAfterOf({ form: 'date', seconds: 2 }, NOW + 5, 1_005, -1_000);
    expect(sent.form === 'date' && sent.clockShiftMs).toBe(-1_000);
    const answered = { ...attempt('retry-429-date', 1, 0), answer, retryAfter: sent };
    const after = (wait: number) =>
      verdict('BS-RETRY-010', [{ id: 'retry-429-date', attempts: [answered, attempt('retry-429-date', 2, 5 + wait)] }]);
    expect(after(2_995)).toBe('passed');
    expect(after(2_495)).toBe('passed');
    expect(after(2_018)).toBe('not-judged');
    expect(after(1_500)).toBe('not-judged');
    // Sooner than a second more, it ignored the date: a sender's own short backoff.
    expect(after(1_485)).toBe('failed');
    expect(after(200)).toBe('failed');
  });

  it("the growth of the waits is judged on intervals: cai's own lag leaves it open only where it could change the verdict", () => {
    // Constant waits, one arrival that cai's loop came to 250 ms late: flat even at the most favourable reading.
    const flat = retriesWithWaits([150, 150, 150, 150, 150]);
    (flat[4] as Attempt).slackMs = 250;
    expect(verdict('BS-RETRY-005', [{ id: 'retry-5xx', attempts: flat }])).toBe('failed');
    // Waits that look as if they grew, but only because cai may have come late to the last two arrivals: undecided.
    const doubtful = retriesWithWaits([150, 150, 150, 400, 400]);
    for (const late of doubtful.slice(4)) late.slackMs = 300;
    const outcome = check('BS-RETRY-005').judge(evidence([{ id: 'retry-5xx', attempts: doubtful }]));
    expect(outcome.verdict).toBe('not-judged');
    expect(outcome.actual).toMatch(
      /^waits 150 ms, 150 ms, 150 ms, 400 ms, 400 ms: .*cai's own loop may have been up to 300 ms late to an arrival, which leaves it open$/,
    );
    // Waits that look as if they shrank because cai's loop was held up while the first ran out: a sender in cai's own
    // process (the built-in provider's callbacks) was held up as long, so the first is open by as much; any other
    // sender's waits are its own, and shrank.
    const starved = retriesWithWaits([900, 600, 400, 400, 450]);
    for (const [index, attempt] of starved.entries()) attempt.heldMs = index === 0 ? 0 : 1_500;
    const inProcess = { ...evidence([{ id: 'retry-5xx', attempts: starved }]), senderInProcess: true };
    expect(check('BS-RETRY-005').judge(inProcess).verdict).toBe('not-judged');
    expect(verdict('BS-RETRY-005', [{ id: 'retry-5xx', attempts: starved }])).toBe('failed');
    // A retry at once, in a tight loop: waits of a millisecond, below what a ratio can tell under any slack.
    const tight = retriesWithWaits([200, 1, 1, 1, 1]);
    for (const attempt of tight) attempt.slackMs = 12;
    expect(check('BS-RETRY-005').judge(evidence([{ id: 'retry-5xx', attempts: tight }])).actual).toMatch(
      /retried at once, the last two under 50 ms together$/,
    );
    // Growing waits stay growing whatever the slack of the early ones.
    const growing = retriesWithWaits([100, 200, 400, 800, 1600]);
    for (const early of growing.slice(1, 3)) early.slackMs = 90;
    expect(verdict('BS-RETRY-005', [{ id: 'retry-5xx', attempts: growing }])).toBe('passed');
  });

  it('a retry of a 400 that comes after the observation window still fails', () => {
    const late = attempt('reject-400', 2, 30_000, { late: true });
    expect(verdict('BS-REJECT-001', [{ id: 'reject-400', attempts: [attempt('reject-400', 1, 0)] }])).toBe('passed');
    expect(verdict('BS-REJECT-001', [{ id: 'reject-400', attempts: [attempt('reject-400', 1, 0), late] }])).toBe(
      'failed',
    );
  });

  it("a retry signed afresh moves its timestamp on; the first attempt's headers sent again do not", () => {
    const first = attempt('retry-429', 1, 0);
    const fresh = attempt('retry-429', 2, 2_100);
    const reused = attempt('retry-429', 2, 2_100, { timestamp: first.headers['x-cai-timestamp'] });
    expect(verdict('BS-SIG-004', [{ id: 'retry-429', attempts: [first, fresh] }])).toBe('passed');
    expect(verdict('BS-SIG-004', [{ id: 'retry-429', attempts: [first, reused] }])).toBe('failed');
    expect(verdict('BS-SIG-004', [{ id: 'retry-429', attempts: [first, attempt('retry-429', 2, 1_400)] }])).toBe(
      'not-judged',
    );
    // Arrivals 2.1 s apart, the later one perhaps a second earlier than cai's loop came to it: not certainly 1.5 s apart.
    const lagged = check('BS-SIG-004').judge(
      evidence([{ id: 'retry-429', attempts: [first, { ...reused, slackMs: 1_000 }] }]),
    );
    expect(lagged.verdict).toBe('not-judged');
    // It says why, and so the run plays the scenario again (run-sender.ts): cai's lag, not a lack of retries.
    expect(lagged.actual).toMatch(/late to it, which leaves it open$/);
  });

  it('a stale signature is played again when the run also signed afresh, or judged it once; not when it always did it', () => {
    const first = attempt('retry-429', 1, 0);
    const stale = (id: ScenarioId) => [
      attempt(id, 1, 0),
      attempt(id, 2, 2_100, { timestamp: first.headers['x-cai-timestamp'] }),
    ];
    const signedAfresh = [first, attempt('retry-429', 2, 2_100)];
    const worth = (records: Parameters<typeof evidence>[0], plays = 1) =>
      worthPlayingAgain(
        Array.from({ length: plays }, () => evidence(records.slice(0, 1))),
        evidence(records),
      );
    // Once in the run: one hold looks the same, so one breach is not yet consistent.
    expect(worth([{ id: 'retry-429-date', attempts: stale('retry-429-date') }])).toBe(true);
    // Kept elsewhere in the run: the sender can sign afresh, and this one breach may be a hold.
    expect(
      worth([
        { id: 'retry-429-date', attempts: stale('retry-429-date') },
        { id: 'retry-429', attempts: signedAfresh },
      ]),
    ).toBe(true);
    // Every time it is judged: consistent, the verdict stands without a second play.
    expect(
      worth([
        { id: 'retry-429-date', attempts: stale('retry-429-date') },
        { id: 'retry-5xx', attempts: stale('retry-5xx') },
      ]),
    ).toBe(false);
    // Broken again on a second play: confirmed, no third.
    const mixed = [
      { id: 'retry-429-date' as const, attempts: stale('retry-429-date') },
      { id: 'retry-429' as const, attempts: signedAfresh },
    ];
    expect(worth(mixed, 2)).toBe(false);
  });

  it('waits a jittered backoff drew steady are played until three plays in a row held them steady', () => {
    // Decorrelated jitter (each wait between the 150 ms base and three times the one before) drew these: not grown,
    // the longest 2.0× the shortest, as steady as constant waits; about one delivery in seven draws so.
    const steady = { id: 'retry-5xx' as const, attempts: retriesWithWaits([431, 529, 471, 259, 294]) };
    const grown = { id: 'retry-5xx' as const, attempts: retriesWithWaits([180, 420, 390, 1_100, 2_600]) };
    expect(verdict('BS-RETRY-005', [steady])).toBe('failed');
    expect(verdict('BS-RETRY-005', [grown])).toBe('passed');
    const plays = (...records: (typeof steady)[]) => records.map((record) => evidence([record]));
    expect(worthPlayingAgain(plays(steady))).toBe(true);
    expect(worthPlayingAgain(plays(steady, steady))).toBe(true);
    // Three plays in a row held steady: the verdict stands (a replay that grew ends the plays, and is the evidence).
    expect(worthPlayingAgain(plays(steady, steady, steady))).toBe(false);
    expect(worthPlayingAgain(plays(steady, grown))).toBe(false);
    expect(unconfirmedBreaches(plays(steady, steady, steady))).toEqual([]);
    // Steady on the last play only, scattered (neither growing nor steady) on one before: the breach is left open.
    const scattered = { id: 'retry-5xx' as const, attempts: retriesWithWaits([160, 900, 230, 400, 350]) };
    expect(verdict('BS-RETRY-005', [scattered])).toBe('not-judged');
    expect(unconfirmedBreaches(plays(scattered, steady))).toEqual(['growth']);
    const last = evidence([steady]);
    (last.records[0] as { unconfirmed?: string[]; replays?: number }).unconfirmed = ['growth'];
    const open = check('BS-RETRY-005').judge(last);
    expect(open.verdict).toBe('not-judged');
    expect(open.actual).toMatch(/an earlier play of the scenario did not show it .*which leaves it open$/);
    // Constant waits held steady in three deliveries of the first plays: consistent, no replay.
    const constant = (start: number) => ({
      id: 'retry-5xx' as const,
      attempts: retriesWithWaits([1_000, 1_000, 1_000, 1_000, 1_000], job(`evt-${start}`), start),
    });
    const run = evidence([constant(0), constant(60_000), constant(120_000)]);
    expect(worthPlayingAgain([evidence([constant(0)])], run)).toBe(false);
    expect(worthPlayingAgain([evidence([constant(0)])], evidence([constant(0), constant(60_000)]))).toBe(true);
  });

  it('a breach of a first play that the play kept did not repeat is a note on the verdict, never the verdict', () => {
    const first = attempt('retry-429', 1, 0);
    const records = [{ id: 'retry-429' as const, attempts: [first, attempt('retry-429', 2, 2_100)] }];
    const judged = evidence(records);
    const seen = 'retry-429 #1: attempt #2 arrived 5.05 s after #1 with the same timestamp';
    (judged.records[0] as { unrepeated?: unknown }).unrepeated = [{ term: 'fresh', actual: seen }];
    const outcome = check('BS-SIG-004').judge(judged);
    expect(outcome.verdict).toBe('passed');
    expect(outcome.notes).toEqual([expect.stringContaining(`not on the second, which is the evidence`)]);
    expect(outcome.notes?.[0]).toContain(seen);
    // Another term's breach is no note of this check.
    expect(check('BS-RETRY-005').judge(judged).notes ?? []).toEqual([]);
  });

  it('a sender held up between signing and sending: the same timestamp within its lag of the bound is not judged, past it fails', () => {
    // The first attempt of another delivery arrived 0.8 s after the second its timestamp names had ended.
    const held = attempt('accept', 1, 1_800, { timestamp: String(Math.floor(NOW / 1000)) });
    const first = attempt('retry-429', 1, 0);
    const reusedSoon = attempt('retry-429', 2, 2_100, { timestamp: first.headers['x-cai-timestamp'] });
    const reusedLate = attempt('retry-429', 2, 2_400, { timestamp: first.headers['x-cai-timestamp'] });
    const stages = (later: Attempt) => [
      { id: 'accept' as const, attempts: [held] },
      { id: 'retry-429' as const, attempts: [first, later] },
    ];
    expect(verdict('BS-SIG-004', stages(reusedSoon))).toBe('not-judged');
    expect(verdict('BS-SIG-004', stages(reusedLate))).toBe('failed');
  });
});

describe('deliveries: a sender may send one document or many', () => {
  const docs = ['evt-a', 'evt-b', 'evt-c'].map((id) => job(id));

  it('three documents, one after the other, each retried through five 503s with the same event_id: every retry rule passes', () => {
    const attempts = docs
      .flatMap((doc, index) => retriesWithWaits([100, 200, 400, 800, 1600], doc, index * 5_000))
      .map((entry, index) => ({ ...entry, number: index + 1 }));
    const records = [{ id: 'retry-5xx' as const, attempts }];
    expect(deliveriesOf(attempts).map((delivery) => delivery.attempts.length)).toEqual([6, 6, 6]);
    for (const id of [
      'BS-RETRY-001',
      'BS-RETRY-002',
      'BS-RETRY-003',
      'BS-RETRY-004',
      'BS-RETRY-005',
      'BS-RETRY-009',
      'BS-ACK-001',
    ])
      expect(verdict(id, records), id).toBe('passed');
  });

  it('interleaved or at once, each document is judged on its own answers (the old suite took them for retries of the first)', () => {
    // Two documents sent at once, each answered 503 then 202, their attempts interleaved.
    const a = job('evt-a');
    const b = job('evt-b');
    const attempts = [
      attempt('retry-5xx', 1, 0, { doc: a, nth: 1 }),
      attempt('retry-5xx', 2, 1, { doc: b, nth: 1 }),
      attempt('retry-5xx', 3, 300, { doc: b, nth: 6 }),
      attempt('retry-5xx', 4, 310, { doc: a, nth: 6 }),
    ];
    const records = [{ id: 'retry-5xx' as const, attempts }];
    for (const id of ['BS-RETRY-001', 'BS-RETRY-002', 'BS-RETRY-003', 'BS-RETRY-004', 'BS-ACK-001'])
      expect(verdict(id, records), id).toBe('passed');
    // Each document once, each refused: none sent again.
    const refused = docs.map((doc, index) => attempt('reject-400', index + 1, index * 10, { doc, nth: 1 }));
    expect(verdict('BS-REJECT-001', [{ id: 'reject-400', attempts: refused }])).toBe('passed');
  });

  it("documents alike but for their event_id, sent at once and each retried under its own: no retry is taken for another's", () => {
    const attempts = [
      attempt('retry-429', 1, 0, { doc: job('evt-a'), nth: 1 }),
      attempt('retry-429', 2, 2, { doc: job('evt-b'), nth: 1 }),
      attempt('retry-429', 3, 2_100, { doc: job('evt-a'), nth: 2 }),
      attempt('retry-429', 4, 2_101, { doc: job('evt-b'), nth: 2 }),
    ];
    expect(deliveriesOf(attempts).map((delivery) => delivery.renamed)).toEqual([false, false]);
    expect(verdict('BS-RETRY-002', [{ id: 'retry-429', attempts }])).toBe('passed');
  });

  it('a document abandoned after a 503 and sent again under a new event_id is one delivery, renamed: the event_id rule fails, and only it', () => {
    // Each renamed retry continues the delivery's script (the recorder follows the rename): the sixth gets the 202.
    const attempts = ['evt-1', 'evt-2', 'evt-3', 'evt-4', 'evt-5', 'evt-6'].map((id, index) =>
      attempt('retry-5xx', index + 1, [0, 105, 310, 715, 1_520, 3_125][index] as number, {
        doc: job(id),
        nth: index + 1,
      }),
    );
    const [delivery] = deliveriesOf(attempts);
    expect(delivery?.renamed).toBe(true);
    expect(delivery?.attempts).toHaveLength(6);
    const records = [{ id: 'retry-5xx' as const, attempts }];
    expect(verdict('BS-RETRY-002', records)).toBe('failed');
    for (const id of ['BS-RETRY-001', 'BS-RETRY-003', 'BS-RETRY-005', 'BS-RETRY-009'])
      expect(verdict(id, records), id).toBe('passed');
  });

  it('documents alike after the duplicate answer are renames only when the stage brought more documents than a run sends', () => {
    // Each begun after the duplicate answer to the one before (its connection opened after it).
    const attempts = ['evt-1', 'evt-2', 'evt-3', 'evt-4'].map((id, index) =>
      attempt('duplicate', index + 1, index * 20, { doc: job(id), nth: 1, openedMono: 1_000 + index * 20 - 1 }),
    );
    // A sender of four documents alike (two processes started at once, say): four deliveries.
    expect(deliveriesOf(attempts, 4).map((delivery) => delivery.renamed)).toEqual([false, false, false, false]);
    // A sender of one document per run that brought four: one document renamed three times.
    expect(deliveriesOf(attempts, 1).map((delivery) => [delivery.attempts.length, delivery.renamed])).toEqual([
      [4, true],
    ]);
  });

  it("a sender that gives up on one document of three fails the retry rule, naming that document's attempt", () => {
    const attempts = [
      ...retriesWithWaits([100, 200, 400, 800, 1600], job('evt-a')),
      attempt('retry-5xx', 7, 5_000, { doc: job('evt-b', { outcome: 'opted_out' }), nth: 1 }),
      ...retriesWithWaits([100, 200, 400, 800, 1600], job('evt-c', { outcome: 'wrong_number' }), 6_000),
    ];
    const outcome = check('BS-RETRY-001').judge(evidence([{ id: 'retry-5xx', attempts }]));
    expect(outcome.verdict).toBe('failed');
    expect(outcome.actual).toBe(
      '1 of 11 answers wrong: retry-5xx #7: given up after 1 answer asking for a retry in a row, the last 503 (no attempt in the 10.00 s cai waited from the first)',
    );
  });
});

describe('identity across deliveries: a new document, a new event_id (§6.1)', () => {
  const accepted = (id: ScenarioId, number: number, atMs: number, doc: object) =>
    attempt(id, number, atMs, { doc, nth: 1 });

  it('fails a different document under the event_id of one accepted before, in any scenario, and names both', () => {
    const records = [
      {
        id: 'accept' as const,
        attempts: [accepted('accept', 1, 0, job('evt-1')), accepted('accept', 2, 100, job('evt-2'))],
      },
      { id: 'ok-200' as const, attempts: [accepted('ok-200', 1, 500, job('evt-1', { outcome: 'opted_out' }))] },
    ];
    const outcome = check('BS-ID-001').judge(evidence(records));
    expect(outcome.verdict).toBe('failed');
    expect(outcome.actual).toMatch(
      /^event_id "evt-1", accepted before, carried another document \(it differs in outcome\)/,
    );
    expect(outcome.attempts?.map((shown) => `${shown.stage} #${shown.number}`)).toEqual(['accept #1', 'ok-200 #1']);
  });

  it('passes new ids, and leaves a repeat of the same document and a changed retry after a 503 to the other checks', () => {
    const fresh = [
      {
        id: 'accept' as const,
        attempts: [accepted('accept', 1, 0, job('evt-1')), accepted('accept', 2, 100, job('evt-2'))],
      },
    ];
    expect(verdict('BS-ID-001', fresh)).toBe('passed');
    // The same document again after its 202: a repeat (ACK-001), not a new document.
    const repeat = [
      {
        id: 'accept' as const,
        attempts: [...(fresh[0] as { attempts: Attempt[] }).attempts, attempt('accept', 3, 900, { doc: job('evt-1') })],
      },
    ];
    expect(verdict('BS-ID-001', repeat)).toBe('passed');
    expect(verdict('BS-ACK-001', repeat)).toBe('failed');
    // Changed on a retry after a 503: never accepted under that id, so a retry (RETRY-003), not a reuse.
    const changed = [
      {
        id: 'retry-500' as const,
        attempts: [
          attempt('retry-500', 1, 0, { doc: job('evt-1') }),
          attempt('retry-500', 2, 300, { doc: job('evt-1', { attempts: 2 }) }),
          accepted('retry-500', 3, 400, job('evt-2')),
        ],
      },
    ];
    expect(verdict('BS-ID-001', changed)).toBe('passed');
    expect(verdict('BS-RETRY-003', changed)).toBe('failed');
  });

  it('is not judged on one event_id alone: there is no second document to compare', () => {
    expect(verdict('BS-ID-001', [{ id: 'accept', attempts: [accepted('accept', 1, 0, job('evt-1'))] }])).toBe(
      'not-judged',
    );
  });
});

describe('each kind of document, judged on its own rules and only when it came', () => {
  const appointment = (eventId: string, extra: object = {}) => ({
    event: 'appointment.booked',
    event_id: eventId,
    lead_id: 'lead-1',
    occurred_at: '2026-01-01T00:00:00+00:00',
    branch_code: 'BR-1',
    scheduled_at: '2026-01-02T10:00:00+01:00',
    service: 'visit',
    notes: '',
    ...extra,
  });

  it('judges the appointment check on appointments only; a type never sent is not judged, saying what came', () => {
    const records = [
      {
        id: 'accept' as const,
        attempts: [
          attempt('accept', 1, 0, { doc: job('evt-1') }),
          attempt('accept', 2, 50, { doc: appointment('evt-2', { scheduled_at: '2026-01-02 10:00' }) }),
        ],
      },
    ];
    const booked = check('BS-TYPE-002').judge(evidence(records));
    expect(booked.verdict).toBe('failed');
    expect(booked.actual).toMatch(/scheduled_at/);
    expect(verdict('BS-TYPE-005', records)).toBe('passed');
    const message = check('BS-TYPE-001').judge(evidence(records));
    expect(message.verdict).toBe('not-judged');
    expect(message.actual).toContain('what came: appointment.booked ×1, job.closed ×1');
  });
});

describe('when a stage is over', () => {
  const options: SettleOptions = { waitMs: 10_000, observeMs: 1_000, senderDone: true, failedEarly: false };
  const at = (attempts: Attempt[], now: number, change: Partial<SettleOptions> = {}) =>
    stageState({ attempts, startedMono: 1_000 }, 1_000 + now, { ...options, ...change });

  it('waits --wait for a first attempt, or ends at once when the trigger failed before any', () => {
    expect(at([], 9_000).done).toBe(false);
    expect(at([], 10_000).done).toBe(true);
    expect(at([], 10, { failedEarly: true }).done).toBe(true);
  });

  it('after a final answer, listens --observe more, and longer while the trigger runs', () => {
    const accepted = [attempt('accept', 1, 0)];
    expect(at(accepted, 900).done).toBe(false);
    expect(at(accepted, 1_010).done).toBe(true);
    expect(at(accepted, 1_010, { senderDone: false }).done).toBe(false);
    // A trigger that keeps running: over once nothing has come for --wait.
    expect(at(accepted, 10_010, { senderDone: false }).done).toBe(true);
  });

  it('keeps a delivery open after a 503 until its retry, or until --wait from its first attempt', () => {
    const failing = [attempt('retry-5xx', 1, 0)];
    expect(at(failing, 5_000).done).toBe(false);
    expect(at(failing, 10_006).done).toBe(true);
    expect(at([...failing, attempt('retry-5xx', 2, 300, { nth: 6 })], 1_310).done).toBe(true);
  });

  it("adds the time cai's own loop was held to every wait, up to one --wait more, and to no bound of the run", () => {
    // Held 4 s: the first attempt is awaited 14 s, and the next look is put off by as much.
    expect(at([], 10_000, { heldMs: 4_000 }).done).toBe(false);
    expect(at([], 10_000, { heldMs: 4_000 }).nextMono).toBe(1_000 + 14_000);
    expect(at([], 14_000, { heldMs: 4_000 }).done).toBe(true);
    // Held longer than a wait: one wait more, no longer.
    expect(at([], 19_999, { heldMs: 60_000 }).done).toBe(false);
    expect(at([], 20_000, { heldMs: 60_000 }).done).toBe(true);
    // The quiet after a final answer, and a delivery's wait from its first attempt, run on too.
    const accepted = [attempt('accept', 1, 0)];
    expect(at(accepted, 1_010, { heldMs: 500 }).done).toBe(false);
    expect(at(accepted, 1_510, { heldMs: 500 }).done).toBe(true);
    const failing = [attempt('retry-5xx', 1, 0)];
    expect(at(failing, 10_006, { heldMs: 2_000 }).done).toBe(false);
    expect(at(failing, 12_006, { heldMs: 2_000 }).done).toBe(true);
    // A deadline that is a wait of its own (a job's events) as well; a deadline that bounds the run does not move.
    const deadline = { deadlineMono: 1_000 + 2_000, heldMs: 1_500 };
    expect(at([], 3_000, { ...deadline, deadlineIsWait: true }).done).toBe(false);
    expect(at([], 3_500, { ...deadline, deadlineIsWait: true }).done).toBe(true);
    expect(at([], 1_500, deadline).nextMono).toBe(1_000 + 2_000);
    expect(at([], 2_000, deadline).done).toBe(true);
  });
});

describe('no sender check passes without evidence', () => {
  it('every check, judged on a run in which nothing arrived, is not judged', () => {
    for (const entry of SENDER_CATALOGUE) {
      const outcome = entry.judge({ ...evidence([]), interface: entry.interface });
      expect(outcome.verdict, entry.id).toBe('not-judged');
      expect(outcome.actual.length, entry.id).toBeGreaterThan(10);
    }
  });

  it('a scenario that ran and got no attempt fails the checks that need it, naming what the trigger did', async () => {
    const record = {
      ...stage('retry-5xx', []),
      trigger: { exitCode: 127, stoppedByCai: false, output: 'sh: 1: my-sender: not found\n' },
    };
    const [result] = await judgeSenderChecks(
      [{ check: check('BS-RETRY-001') }],
      { ...evidence([]), records: [record] },
      {
        waivers: [],
        now: NOW,
        complete: () => true,
        silent: () => ({ scenario: 'retry-5xx', reason: 'the trigger exited 127: sh: 1: my-sender: not found' }),
        measure: () => ({ durationMs: 0, requests: 0 }),
      },
    );
    expect(result?.verdict).toBe('failed');
    expect(result?.actual).toBe(
      'scenario retry-5xx: no attempt arrived in the 10.00 s cai waited (the trigger exited 127: sh: 1: my-sender: not found)',
    );
  });

  it("nothing read while cai's own loop was held up longer than it waited is no verdict: it may not have read what came", async () => {
    const judged = (heldMs: number) =>
      judgeSenderChecks(
        [{ check: check('BS-RETRY-001') }],
        { ...evidence([]), records: [stage('retry-5xx', [])] },
        {
          waivers: [],
          now: NOW,
          complete: () => true,
          silent: () => ({
            scenario: 'retry-5xx',
            reason: 'the trigger was still running when cai stopped it',
            heldMs,
          }),
          measure: () => ({ durationMs: 0, requests: 0 }),
        },
      );
    const [held] = await judged(10_500);
    expect(held?.verdict).toBe('not-judged');
    expect(held?.actual).toMatch(
      /, but cai's own loop was held up 10\.50 s meanwhile: it may not have read what came$/,
    );
    // Held up less than it waited: the wait moved on by that time, so cai listened its whole wait.
    const [listened] = await judged(9_500);
    expect(listened?.verdict).toBe('failed');
  });
});

describe('the time to the first attempt (no fixture fault reaches it in seconds)', () => {
  it('passes at 60 s from the trigger and fails after', () => {
    expect(verdict('BS-TIME-001', [{ id: 'accept', attempts: [attempt('accept', 1, 60_000)] }])).toBe('passed');
    expect(
      verdict('BS-TIME-001', [
        { id: 'accept', attempts: [attempt('accept', 1, 0)] },
        { id: 'reject-400', attempts: [attempt('reject-400', 1, 60_500)] },
      ]),
    ).toBe('failed');
    expect(
      check('AS-TIME-001').judge({
        ...evidence([{ id: 'accept', attempts: [attempt('accept', 1, 61_000)] }]),
        interface: 'A',
      }).verdict,
    ).toBe('failed');
  });
});

describe('the sender catalogue', () => {
  it('has unique ids of the form BS-/AS-<AREA>-<nnn>, apart from the receiver ids', () => {
    const ids = SENDER_CATALOGUE.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const entry of SENDER_CATALOGUE) expect(entry.id).toMatch(new RegExp(`^${entry.interface}S-[A-Z]+-\\d{3}$`));
    expect(
      ids.filter((id) => CATALOGUE.some((receiver) => receiver.role === 'receiver' && receiver.id === id)),
    ).toEqual([]);
  });

  it('cites only sections of the spec, and gives every check a level, tags, a title and scenarios', () => {
    const { sections, source } = loadSpecSections();
    for (const entry of SENDER_CATALOGUE) {
      for (const section of entry.sections)
        expect(sections.has(section), `${entry.id} cites ${section} (from ${source})`).toBe(true);
      expect(['must', 'should']).toContain(entry.level);
      expect(entry.tags.length, entry.id).toBeGreaterThan(0);
      // The stateful phase's checks play conversations of their own, no scenario.
      expect(entry.scenarios.length > 0, entry.id).toBe(!entry.id.includes('-STATE-'));
      for (const id of entry.scenarios)
        expect(scenario(id).interfaces, `${entry.id}: ${id}`).toContain(entry.interface);
    }
    expect(new Set(SENDER_CATALOGUE.map((entry) => `${entry.interface} ${entry.title}`)).size).toBe(
      SENDER_CATALOGUE.length,
    );
  });

  it('lists as plain data with its role and scenarios', () => {
    const listed = describeCatalogue('sender', 'A');
    expect(
      listed.every(
        (entry) =>
          entry.interface === 'A' &&
          entry.role === 'sender' &&
          ((entry.scenarios?.length ?? 0) > 0 || entry.tags.includes('state')),
      ),
    ).toBe(true);
    expect(JSON.parse(JSON.stringify(listed))).toEqual(listed);
    expect(
      describeCatalogue('receiver', 'B').every((entry) => entry.role === 'receiver' && !('scenarios' in entry)),
    ).toBe(true);
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
  const opening = (id: ScenarioId, prefix: string) => ({
    scenario: scenario(id),
    id,
    prefix,
    targetUrl: `http://127.0.0.1:1${prefix}/events`,
    expectedPath: `${prefix}/events`,
  });
  const body = (handled: ReturnType<Recorder['handle']>) =>
    handled.response.kind === 'reply' ? handled.response.reply.body?.toString() : 'reset';
  const status = (handled: ReturnType<Recorder['handle']>) =>
    handled.response.kind === 'reply' ? handled.response.reply.status : 0;

  it('with one URL for all (by hand), gives a late retry to the scenario that first saw its event_id', () => {
    const recorder = new Recorder({ interface: 'B', shared: true });
    const first = recorder.open(opening('reject-400', ''), 0);
    recorder.handle(arrival('/events', 'evt-a'));
    recorder.close(first, 1);
    const second = recorder.open(opening('accept', ''), 2);
    recorder.handle(arrival('/events', 'evt-b'));
    const late = recorder.handle(arrival('/events', 'evt-a'));
    expect(status(late)).toBe(400);
    expect(first.attempts.map((entry) => [entry.number, entry.late])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(second.attempts).toHaveLength(1);
  });

  it('with a path per scenario, routes by path, answers a repeat of an accepted event as a duplicate (§2.13), and 404s the rest', () => {
    const recorder = new Recorder({ interface: 'B', shared: false });
    recorder.open(opening('accept', '/accept'), 0);
    expect(body(recorder.handle(arrival('/accept/events', 'evt-a')))).toBe('{"ok":true}');
    expect(body(recorder.handle(arrival('/accept/events', 'evt-a')))).toBe('{"ok":true,"duplicate":true}');
    expect(recorder.handle(arrival('/elsewhere', 'evt-a')).response).toMatchObject({
      kind: 'reply',
      reply: { status: 404 },
    });
    expect(recorder.strays).toEqual(['POST /elsewhere']);
  });

  it('scripts every new document from the start: each gets five 5xx (503, 504, 502, 503, 501), then 202', () => {
    const recorder = new Recorder({ interface: 'B', shared: false });
    recorder.open(opening('retry-5xx', '/retry-5xx'), 0);
    const answers = (eventId: string) =>
      Array.from({ length: 6 }, () => status(recorder.handle(arrival('/retry-5xx/events', eventId))));
    expect(answers('evt-a')).toEqual([503, 504, 502, 503, 501, 202]);
    expect(answers('evt-b')).toEqual([503, 504, 502, 503, 501, 202]);
  });

  it('scripts at most three documents alike but for their event_id: a sender renaming every retry comes to an end', () => {
    const recorder = new Recorder({ interface: 'B', shared: false });
    recorder.open(opening('retry-5xx', '/retry-5xx'), 0);
    // arrival() sends {"event":"job.closed","event_id":…}: alike but for the event_id.
    expect(
      ['evt-1', 'evt-2', 'evt-3', 'evt-4', 'evt-5'].map((id) =>
        status(recorder.handle(arrival('/retry-5xx/events', id))),
      ),
    ).toEqual([503, 503, 503, 202, 202]);
  });

  it('scripts only the first document where the scenario says so (the callbacks), and accepts the rest', () => {
    const recorder = new Recorder({ interface: 'B', shared: false });
    recorder.open({ ...opening('callback-503', '/j'), scenario: scenario('callback-503') }, 0);
    // Two events of a conversation: other documents, not one alike but for its event_id.
    const event = (eventId: string) => ({
      ...arrival('/j/events', eventId),
      body: Buffer.from(JSON.stringify({ event: 'conversation.message', event_id: eventId, text: eventId })),
    });
    expect([
      status(recorder.handle(event('evt-a'))),
      status(recorder.handle(event('evt-b'))),
      status(recorder.handle(event('evt-a'))),
    ]).toEqual([503, 202, 202]);
  });

  it('answers jobs (A) with the §2.3 acknowledgment, one provider_job_id per job, the same for its repeat', () => {
    const recorder = new Recorder({ interface: 'A', shared: false });
    recorder.open(
      {
        scenario: scenario('accept'),
        id: 'accept',
        prefix: '/accept',
        targetUrl: 'http://127.0.0.1:1/accept',
        expectedPath: '/accept/contact-jobs',
      },
      0,
    );
    const ack = (eventId: string) =>
      JSON.parse(body(recorder.handle(arrival('/accept/contact-jobs', eventId))) ?? '') as Record<string, unknown>;
    expect(ack('evt-a')).toEqual({ provider_job_id: 'cai-job-accept-1', assigned_number_e164: '+447700900123' });
    expect(ack('evt-b').provider_job_id).toBe('cai-job-accept-2');
    expect(ack('evt-a').provider_job_id).toBe('cai-job-accept-1');
  });
});

describe('what a sender sent, quoted in a judgement', () => {
  it('is cut to a line: a 10 000-character path, identity or Content-Type; control characters JSON-escaped', () => {
    const long = `/x\u001b[31m${'a'.repeat(10_000)}`;
    const attempts = [
      attempt('accept', 1, 100, {
        path: long,
        headers: {
          ...attempt('accept', 1, 100).headers,
          'x-cai-provider': `\u001b]0;t\u0007${'p'.repeat(10_000)}`,
          'content-type': `text/${'c'.repeat(10_000)}`,
        },
      }),
    ];
    const judged = (id: string) => check(id).judge(evidence([{ id: 'accept', attempts }]));
    for (const id of ['BS-HTTP-001', 'BS-HDR-001', 'BS-HDR-002']) {
      const outcome = judged(id);
      expect(outcome.verdict, id).toBe('failed');
      expect(outcome.actual.length, id).toBeLessThan(400);
    }
    expect(judged('BS-HDR-001').actual).toContain('\\u001b]0;t\\u0007ppp');
  });
});
