/**
 * A check never passes on no evidence. Every receiver check's judgement is given its evidence with every piece
 * removed (what a run interrupted while the check gathered would leave), and then with each piece removed in turn
 * from evidence gathered against the reference receiver: it must say "not judged" (or fail), never "passed".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/conformance/catalogue.js';
import type { ReceiverCheck } from '../../src/conformance/check.js';
import { ProbeScope } from '../../src/conformance/probe/scope.js';
import { Session } from '../../src/conformance/probe/session.js';
import { createDispatcher } from '../../src/http/client.js';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock/platform.js';

const receivers = CATALOGUE.filter((check): check is ReceiverCheck => check.role === 'receiver');

describe('no receiver check passes without evidence', () => {
  it.each(receivers.map((check) => [check.id, check] as const))(
    '%s, judged on nothing, is not passed',
    (_id, check) => {
      const outcome = check.judge({});
      expect(outcome.verdict).not.toBe('passed');
      expect(outcome.actual.length).toBeGreaterThan(5);
    },
  );
});

describe('nor with any one piece of its evidence missing', () => {
  const secret = 'whsec_no_evidence_0123456789';
  let platform: RunningMockPlatform;
  let session: Session;
  beforeAll(async () => {
    platform = await startMockPlatform({ providerCode: 'acme', secrets: [secret], keepRecords: false });
    session = new Session({
      interface: 'B',
      url: platform.url,
      identity: 'acme',
      secrets: [secret],
      timeoutMs: 5_000,
      dispatcher: createDispatcher({}),
    });
  });
  afterAll(async () => {
    await session.config.dispatcher.close();
    await platform.close();
  });

  // Interface B's checks that gather more than one piece, against the reference receiver (each passes whole).
  const multi = receivers.filter((check) => check.interface === 'B' && !check.optional && /DEDUP|CLOCK/.test(check.id));
  it.each(multi.map((check) => [check.id, check] as const))('%s', async (_id, check) => {
    const evidence = (await check.gather(new ProbeScope(session, check))) as Record<string, unknown>;
    expect(check.judge(evidence).verdict).toBe(check.id === 'B-CLOCK-001' ? 'failed' : 'passed');
    for (const key of Object.keys(evidence)) {
      const { [key]: _removed, ...rest } = evidence;
      expect(check.judge(rest).verdict, `${check.id} without ${key}`).not.toBe('passed');
    }
  });
});
