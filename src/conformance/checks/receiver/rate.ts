/**
 * §7: over the request cap, 429 with a `Retry-After` (its form judged by src/spec/retry-after.ts). The cap
 * itself is not shown (§8), so the check pushes a bounded burst and judges the first 429, if any. Optional
 * and run alone: it would slow every other check.
 */
import { Headers } from '../../../spec/constants.js';
import { classifyStatus } from '../../../spec/statuses.js';
import { notJudged } from '../../check.js';
import type { Exchange } from '../../evidence.js';
import { compact } from '../../probe/bodies.js';
import { isAccepted, judgeAnswer } from '../../probe/verdict.js';
import { RATE_BURST_LIMIT, RATE_WAVE_SIZE } from '../../tolerances.js';
import { checkOn, event, EVENTS_RECEIVER } from './receivers.js';

const isLimited = (answer: Exchange) => answer.status !== undefined && classifyStatus(answer.status) === 'rate-limited';

interface Burst {
  /** Every answer of the burst, in order, up to the first wave with a 429 or a refusal. */
  answers: Exchange[];
  /** The burst ran to its end (no 429 within it). */
  exhausted: boolean;
}

const eventsRate = [
  checkOn<Burst>(EVENTS_RECEIVER, 'B-RATE-001', {
    sections: ['§7', '§8'],
    clauses: ['§7-7'],
    tags: ['rate-limit'],
    optional: true,
    exclusive: true,
    title: 'over the request cap: 429 with a well-formed Retry-After',
    gather: async (scope) => {
      // A paced, bounded burst: waves of concurrent valid events until the first 429 or refusal.
      const answers: Exchange[] = [];
      for (let sent = 0; sent < RATE_BURST_LIMIT; sent += RATE_WAVE_SIZE) {
        const wave = await scope.sendAll(
          Array.from({ length: RATE_WAVE_SIZE }, () => ({ body: compact(event(scope)), raw429: true })),
        );
        answers.push(...wave);
        if (wave.some((answer) => isLimited(answer) || !isAccepted(answer)) || scope.session.signal.aborted)
          return { answers, exhausted: false };
      }
      return { answers, exhausted: true };
    },
    judge: ({ answers, exhausted }) => {
      if (!answers || answers.length === 0) return notJudged('no request was sent');
      const limited = answers.findIndex(isLimited);
      // The first 429 carries what the model asks of one (a Retry-After, §7); until it, every answer is an acceptance.
      if (limited >= 0) {
        const answer = answers[limited] as Exchange;
        const outcome = judgeAnswer(answer, { level: 'must', terms: ['retry-after'] });
        return {
          ...outcome,
          actual: `429 after ${limited + 1} requests, Retry-After: ${answer.headers[Headers.retryAfter] ?? '(missing)'}`,
        };
      }
      const wrong = answers.find((answer) => judgeAnswer(answer, { level: 'must' }).verdict === 'failed');
      if (wrong) return judgeAnswer(wrong, { level: 'must' });
      return notJudged(
        exhausted
          ? `no 429 within ${RATE_BURST_LIMIT} requests: the cap is higher (or absent); nothing to judge`
          : 'the burst was cut short before a 429',
      );
    },
  }),
];

export const rate = { B: eventsRate };
