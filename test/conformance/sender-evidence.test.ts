/**
 * Each sender check passes only on the evidence it names. A correct sender's run of every scenario, built by hand
 * (documents of every kind, each delivery answered by its scenario's script, waits that grow, Retry-After honoured),
 * passes every check; with the evidence a check names removed — every retry, for the checks of retries; every
 * attempt of its scenarios, for the others — it fails or is not judged, never passes. And the misses the issue
 * names, on evidence built by hand: a sender that gives up at its second 5xx, that takes a 200 for a failure, that
 * renames every retry, that sends while an answer is awaited.
 */
import { describe, expect, it, vi } from 'vitest';
import { recordedAttempt } from '../helpers/attempts.js';
import { SENDER_CATALOGUE } from '../../src/conformance/catalogue.js';
import type { SenderCheck } from '../../src/conformance/check.js';
import { findingsOf } from '../../src/conformance/checks/sender/judging.js';
import type { Attempt, SenderEvidence, StageRecord } from '../../src/conformance/evidence.js';
import { retryAfterOf } from '../../src/conformance/listen/recorder.js';
import { scenariosOf, type Scenario, type ScriptedAnswer } from '../../src/conformance/listen/scenarios.js';
import { EVENT_TYPES, type InterfaceId } from '../../src/spec/constants.js';
import { interfaceSpec } from '../../src/spec/interfaces.js';
import { deliveriesOf, isFinal } from '../../src/spec/model/sender.js';
import { sampleEvent, sampleJob } from '../../src/spec/sample.js';

const SECRET = 'evidence-secret-0123456789';
const NOW = 1_767_225_600_000;
const IDENTITY = 'acme';

/** An attempt of `doc` arriving `at` ms after the stage's start, answered `answer` 5 ms later. */
function attemptOf(
  stage: string,
  number: number,
  at: number,
  doc: object,
  answer: ScriptedAnswer,
  iface: InterfaceId,
): Attempt {
  const spec = interfaceSpec(iface);
  const path = `/${stage}${spec.path === '' ? '/events' : spec.path}`;
  const identity: [string, string] = [spec.identityHeader, IDENTITY];
  return {
    ...recordedAttempt({ stage, number, startedAt: NOW, atMs: at, doc, answer, secret: SECRET, path, identity }),
    slackMs: 2,
  };
}

/** A correct sender's deliveries of `docs` through a scenario: one after the other, each through the whole script. */
function correctStage(entry: Scenario, docs: object[], iface: InterfaceId): StageRecord {
  const attempts: Attempt[] = [];
  let at = 0;
  for (const doc of docs) {
    for (let nth = 0; ; nth += 1) {
      const answer = entry.script[Math.min(nth, entry.script.length - 1)] as ScriptedAnswer;
      const attempt = attemptOf(entry.id, attempts.length + 1, at, doc, answer, iface);
      attempts.push(attempt);
      if (isFinal(answer)) break;
      const retryAfter = attempt.retryAfter;
      // Backoff doubling from 100 ms; after a 429, its Retry-After and a little more.
      const wait = retryAfter
        ? (retryAfter.dateMono ?? (attempt.answeredMono as number) + retryAfter.seconds * 1000) -
          (attempt.answeredMono as number) +
          50
        : 100 * 2 ** nth;
      at += 5 + wait;
    }
    at += 100;
  }
  const spec = interfaceSpec(iface);
  return {
    scenario: entry,
    id: entry.id,
    targetUrl: `http://127.0.0.1:1/${entry.id}`,
    expectedPath: `/${entry.id}${spec.path === '' ? '/events' : spec.path}`,
    startedAt: NOW,
    startedMono: 1_000,
    endedMono: 1_000 + at + 30_000,
    attempts,
  };
}

/** Every kind of document (B: each event type; A: a bare job and a full one) in `accept`; one in every other scenario. */
function documentsFor(iface: InterfaceId, entry: Scenario): object[] {
  if (iface === 'B')
    return entry.id === 'accept' ? EVENT_TYPES.map((type) => sampleEvent(type)) : [sampleEvent('conversation.message')];
  const full = sampleJob();
  const { origin: _o, brief: _b, city: _c, ...bare } = full;
  return entry.id === 'accept'
    ? [{ ...bare, contact: { name: 'Ana', phone_e164: '+351912345678' }, event_id: 'bare-job' }, full]
    : [sampleJob()];
}

function correctRun(iface: InterfaceId): SenderEvidence {
  return {
    interface: iface,
    identity: IDENTITY,
    secrets: [SECRET],
    waitMs: 10_000,
    observeMs: 1_000,
    records: scenariosOf(iface).map((entry) => correctStage(entry, documentsFor(iface, entry), iface)),
  };
}

/**
 * The evidence a check names, removed from the whole run: the retries (every attempt after the first of its
 * delivery), for the checks of retries; the attempts answered with a final answer, for the checks of what follows
 * one; all but one document, for the check of distinct event_ids; every attempt, for the checks of every attempt.
 */
function withoutEvidence(check: SenderCheck, evidence: SenderEvidence): SenderEvidence {
  const area = check.id.split('-')[1];
  const keep = (record: StageRecord): Attempt[] => {
    if (area === 'RETRY' || check.id.endsWith('-SIG-004')) {
      const firsts = new Set(deliveriesOf(record.attempts).map((delivery) => delivery.attempts[0]));
      return record.attempts.filter((attempt) => firsts.has(attempt));
    }
    if (area === 'ACK' || area === 'REJECT') return record.attempts.filter((attempt) => !isFinal(attempt.answer));
    if (area === 'ID') return record === evidence.records[0] ? record.attempts.slice(0, 1) : [];
    return [];
  };
  return { ...evidence, records: evidence.records.map((record) => ({ ...record, attempts: keep(record) })) };
}

const named = SENDER_CATALOGUE.filter((check) => !check.id.includes('-STATE-'));

describe('each sender check passes only on the evidence it names', () => {
  it.each(named.map((check) => [check.id, check] as const))(
    "%s: passes on a correct sender's run; without its evidence, fails or is not judged",
    (_id, check) => {
      const run = correctRun(check.interface);
      const outcome = check.judge(run);
      expect(outcome.verdict, outcome.actual).toBe('passed');
      const without = check.judge(withoutEvidence(check, run));
      expect(without.verdict, without.actual).not.toBe('passed');
    },
  );
});

const check = (id: string) => SENDER_CATALOGUE.find((entry) => entry.id === id) as SenderCheck;
const scenarioOf = (iface: InterfaceId, id: string) => scenariosOf(iface).find((entry) => entry.id === id) as Scenario;

describe('the misses the issue names, on evidence built by hand', () => {
  it('a sender that gives up at its second 5xx fails "keeps retrying" (and the retry of a 5xx), not passes it', () => {
    const run = correctRun('B');
    const record = run.records.find((entry) => entry.id === 'retry-5xx') as StageRecord;
    const givenUp = { ...run, records: [{ ...record, attempts: record.attempts.slice(0, 2) }] };
    expect(check('BS-RETRY-009').judge(givenUp).verdict).toBe('failed');
    expect(check('BS-RETRY-001').judge(givenUp)).toMatchObject({
      verdict: 'failed',
      actual: expect.stringContaining(
        'retry-5xx #2: given up after 2 answers asking for a retry in a row, the last 504',
      ),
    });
  });

  it('a sender that takes a 200, 201 or 204 for a failure and sends again fails the check of that answer', () => {
    for (const [id, scenario] of [
      ['BS-ACK-003', 'ok-200'],
      ['BS-ACK-004', 'ok-201'],
      ['BS-ACK-005', 'ok-204'],
    ] as const) {
      const doc = sampleEvent('conversation.message');
      const entry = scenarioOf('B', scenario);
      const first = attemptOf(scenario, 1, 0, doc, entry.script[0] as ScriptedAnswer, 'B');
      const again = attemptOf(scenario, 2, 160, doc, { kind: 'duplicate' }, 'B');
      const record = { ...correctStage(entry, [], 'B'), attempts: [first, again], endedMono: 5_000 };
      expect(check(id).judge({ ...correctRun('B'), records: [record] }), id).toMatchObject({
        verdict: 'failed',
        actual: expect.stringMatching(/^sent again: 1 more attempt, the first 155 ms after the/),
      });
    }
  });

  it('a sender that retries every job under a new event_id: one delivery, renamed, and the event_id check fails', () => {
    const entry = scenarioOf('A', 'retry-5xx');
    const job = sampleJob();
    const attempts = [0, 110, 320, 730, 1_540, 3_150].map((at, index) =>
      attemptOf(
        'retry-5xx',
        index + 1,
        at,
        { ...job, event_id: `job-${index}` },
        entry.script[index] as ScriptedAnswer,
        'A',
      ),
    );
    const evidence = { ...correctRun('A'), records: [{ ...correctStage(entry, [], 'A'), attempts }] };
    expect(deliveriesOf(attempts).map((delivery) => [delivery.attempts.length, delivery.renamed])).toEqual([[6, true]]);
    expect(check('AS-RETRY-002').judge(evidence).verdict).toBe('failed');
  });

  it("a document sent again while its first attempt awaits a slow answer breaks one-at-a-time, not the final answer's rule", () => {
    const entry = scenarioOf('B', 'accept');
    const doc = sampleEvent('conversation.message');
    const first = {
      ...attemptOf('accept', 1, 0, doc, { kind: 'accepted', status: 202, delayMs: 1_500 }, 'B'),
      answeredMono: 2_500,
    };
    const hedge = attemptOf('accept', 2, 300, doc, { kind: 'duplicate' }, 'B');
    const evidence = { ...correctRun('B'), records: [{ ...correctStage(entry, [], 'B'), attempts: [first, hedge] }] };
    expect(check('BS-ACK-001').judge(evidence).verdict).toBe('passed');
    expect(
      findingsOf(evidence).filter((finding) => finding.term === 'one-at-a-time' && finding.verdict === 'broken'),
    ).toHaveLength(1);
  });
});

describe("cai's own lag, read against the answer before", () => {
  // A sender that gave up waiting (its time-out) and sent again did right; cai, held up, may get to that attempt only
  // after its own late answer went out. An attempt that may have come before a late answer breaks nothing.
  const entry = scenarioOf('B', 'ok-200');
  const doc = sampleEvent('conversation.message');
  const run = (answeredAfter: number, slackMs: number, openedMono?: number) => {
    const first = {
      ...attemptOf('ok-200', 1, 0, doc, entry.script[0] as ScriptedAnswer, 'B'),
      answeredMono: 1_000 + answeredAfter,
    };
    const again = {
      ...attemptOf('ok-200', 2, answeredAfter + 155, doc, { kind: 'duplicate' }, 'B'),
      slackMs,
      ...(openedMono !== undefined ? { openedMono } : {}),
    };
    const record = { ...correctStage(entry, [], 'B'), attempts: [first, again], endedMono: 9_000 };
    return check('BS-ACK-003').judge({ ...correctRun('B'), records: [record] });
  };

  it('sent again surely after the answer: a breach, however late cai read it', () => {
    expect(run(1_500, 2).verdict).toBe('failed');
    // Its connection opened after the answer went out (2 500): begun after it, whatever the slack.
    expect(run(1_500, 400, 2_550).verdict).toBe('failed');
    // An answer 5 ms after the attempt came before any sender gives up waiting: what came after is a breach.
    expect(run(5, 400).verdict).toBe('failed');
  });

  it('read after a late answer, but cai may have been late enough to it that it came before: not judged', () => {
    expect(run(1_500, 400)).toMatchObject({
      verdict: 'not-judged',
      actual: expect.stringMatching(
        /may have been 400 ms late to it: it may have been sent before the answer, which went out 1\.50 s after/,
      ),
    });
    expect(run(1_500, 400, 2_400).verdict).toBe('not-judged');
  });
});

describe("a 429's Retry-After, read against cai's lag", () => {
  // A starved cai answered the 429 two seconds late; the sender, tired of waiting, sent the event again meanwhile.
  // Whether it would have waited the Retry-After out is not known: open, in words that say cai was held up.
  const entry = scenarioOf('B', 'retry-429');
  const doc = sampleEvent('conversation.message');
  const run = (answeredAfter: number) => {
    const script = entry.script[0] as ScriptedAnswer & { kind: 'error' };
    const first = {
      ...attemptOf('retry-429', 1, 0, doc, script, 'B'),
      answeredMono: 1_000 + answeredAfter,
      retryAfter: retryAfterOf(script.retryAfter as never, NOW + answeredAfter, 1_000 + answeredAfter),
    };
    const again = attemptOf('retry-429', 2, 1_200, doc, entry.script[1] as ScriptedAnswer, 'B');
    const record = { ...correctStage(entry, [], 'B'), attempts: [first, again], endedMono: 9_000 };
    return check('BS-RETRY-008').judge({ ...correctRun('B'), records: [record] });
  };

  it('sent again while cai, held up, had not answered yet: not judged, and said so', () => {
    expect(run(2_000)).toMatchObject({
      verdict: 'not-judged',
      actual: expect.stringMatching(/went out: cai's loop was held up 2\.00 s before it answered/),
    });
  });

  it('retried too early after an answer on time: a breach', () => {
    expect(run(5).verdict).toBe('failed');
  });
});

describe("waits of backoff, read against cai's lag", () => {
  // A starved cai answered the first attempt 1.5 s late and read the sender's next ones in a burst: those may have
  // been sent before the answers (the sender's time-outs), so they time no backoff; read at once, they would.
  const entry = scenarioOf('B', 'retry-5xx');
  const doc = sampleEvent('conversation.message');
  const run = (slackMs: number) => {
    const attempts = [0, 1_600, 1_620, 1_640, 1_660, 1_680].map((at, index) => ({
      ...attemptOf('retry-5xx', index + 1, at, doc, entry.script[index] as ScriptedAnswer, 'B'),
      ...(index === 0 ? { answeredMono: 2_500 } : {}),
      ...(index === 1 ? { slackMs } : {}),
    }));
    const record = { ...correctStage(entry, [], 'B'), attempts, endedMono: 9_000 };
    return check('BS-RETRY-005').judge({ ...correctRun('B'), records: [record] });
  };

  it('retried at once, with cai on time: no backoff', () => {
    expect(run(2).verdict).toBe('failed');
  });

  it('read in a burst after a late answer, cai held up: open', () => {
    expect(run(2_000)).toMatchObject({
      verdict: 'not-judged',
      actual: expect.stringMatching(/^attempt #2 may have been sent before the answer to #1, which went out 1\.50 s/),
    });
  });
});

describe('documents alike, sent at once, one of them late', () => {
  it("after another's last answer asking for a retry: a rename only when the stage brought more documents than a run sends", () => {
    const entry = scenarioOf('B', 'retry-5xx');
    const doc = sampleEvent('conversation.message');
    const abandoned = attemptOf(
      'retry-5xx',
      1,
      0,
      { ...doc, event_id: 'evt-a' },
      entry.script[0] as ScriptedAnswer,
      'B',
    );
    const late = attemptOf('retry-5xx', 2, 400, { ...doc, event_id: 'evt-b' }, entry.script[0] as ScriptedAnswer, 'B');
    // Alone, the second may be the first sent again under a new event_id: one delivery, renamed.
    expect(deliveriesOf([abandoned, late]).map((delivery) => delivery.renamed)).toEqual([true]);
    // The sender's other stages brought two documents each: these are its two, the second late.
    expect(deliveriesOf([abandoned, late], 2).map((delivery) => delivery.attempts.length)).toEqual([1, 1]);
    expect(deliveriesOf([abandoned, late], 1).map((delivery) => delivery.renamed)).toEqual([true]);
  });
});

describe('text that is not Unicode', () => {
  it.each(['B', 'A'] as InterfaceId[])(
    '%s: a string cut inside an emoji (an unpaired surrogate escape) warns, where the document check passes it',
    (iface) => {
      const entry = scenarioOf(iface, 'accept');
      const base = iface === 'B' ? sampleEvent('conversation.message') : sampleJob();
      const doc =
        iface === 'B'
          ? { ...base, text: 'hola 🙂'.slice(0, 6) }
          : { ...base, contact: { ...(base as { contact: object }).contact, name: 'Ana 🙂'.slice(0, 5) } };
      const attempt = attemptOf('accept', 1, 0, doc, { kind: 'accepted', status: 202 }, iface);
      expect(attempt.body.toString('utf8')).toMatch(/\\ud83d"/);
      const evidence = { ...correctRun(iface), records: [{ ...correctStage(entry, [], iface), attempts: [attempt] }] };
      const prefix = interfaceSpec(iface).senderCheckPrefix;
      expect(check(`${prefix}-DOC-001`).judge(evidence).verdict).toBe('passed');
      expect(check(`${prefix}-DOC-004`).judge(evidence)).toMatchObject({
        verdict: 'failed',
        actual: expect.stringContaining(`${iface === 'B' ? 'text' : 'contact.name'} holds an unpaired surrogate`),
      });
    },
  );
});

describe("a stage's documents are read once, however many pairs of them the model compares", () => {
  it.each(['A', 'B'] as InterfaceId[])(
    'interface %s: 20 documents in each scenario, every check judged, each body parsed once',
    (iface) => {
      const run: SenderEvidence = {
        ...correctRun(iface),
        records: scenariosOf(iface).map((entry) =>
          correctStage(
            entry,
            Array.from({ length: 20 }, (_, n) =>
              documentsFor(iface, entry).map((doc) => ({
                ...doc,
                event_id: `${(doc as { event_id: string }).event_id}-${n}`,
              })),
            ).flat(),
            iface,
          ),
        ),
      };
      const bodies = new Set(
        run.records.flatMap((record) => record.attempts.map((attempt) => attempt.body.toString())),
      );
      const parse = JSON.parse;
      let parsed = 0;
      const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof parse>[1]) => {
        if (bodies.has(text)) parsed += 1;
        return parse(text, reviver);
      });
      try {
        for (const each of named.filter((entry) => entry.interface === iface))
          expect(each.judge(run).verdict, each.id).toBe('passed');
      } finally {
        spy.mockRestore();
      }
      const attempts = run.records.reduce((sum, record) => sum + record.attempts.length, 0);
      // Each body once (26 600 times for B's 520 bodies when every pair read its two again).
      expect(parsed).toBeLessThanOrEqual(attempts);
    },
  );
});
