/**
 * §7: over the request cap, 429 with a `Retry-After` (its form judged by src/spec/retry-after.ts). The cap
 * itself is not shown (§8), so the check pushes a bounded burst and judges the first 429, if any. Optional
 * and run alone: it would slow every other check.
 */
import { Headers } from '../../spec/constants.js';
import { isWellFormedRetryAfter } from '../../spec/retry-after.js';
import { classifyStatus } from '../../spec/statuses.js';
import { compact } from '../bodies.js';
import { defineCheck } from '../define.js';
import { isAccepted } from '../expectations.js';
import { describeAnswer, fail, pass, skip } from '../outcomes.js';
import { RATE_BURST_LIMIT, RATE_WAVE_SIZE } from '../settings.js';
import { event } from './receivers.js';

const eventsRate = [
  defineCheck({
    id: 'B-RATE-001', interface: 'B', level: 'must', sections: ['§7', '§8'], tags: ['rate-limit'], optional: true, exclusive: true,
    title: 'over the request cap: 429 with a well-formed Retry-After',
    run: async (scope) => {
      // A paced, bounded burst: waves of concurrent valid events until the first 429.
      for (let sent = 0; sent < RATE_BURST_LIMIT; sent += RATE_WAVE_SIZE) {
        const answers = await scope.sendAll(Array.from({ length: RATE_WAVE_SIZE }, () => ({ body: compact(event(scope)), raw429: true })));
        const limited = answers.find((answer) => answer.status !== undefined && classifyStatus(answer.status) === 'rate-limited');
        if (limited) {
          const retryAfter = limited.headers[Headers.retryAfter];
          const expected = '429 with Retry-After: <seconds> or an HTTP date';
          const actual = `429 after ${sent + answers.indexOf(limited) + 1} requests, Retry-After: ${retryAfter ?? '(missing)'}`;
          return isWellFormedRetryAfter(retryAfter) ? pass(expected, actual) : fail(expected, actual, limited);
        }
        const wrong = answers.find((answer) => !isAccepted(answer));
        if (wrong) return fail('202 until the cap, then 429', describeAnswer(wrong), wrong);
      }
      return skip(`no 429 within ${RATE_BURST_LIMIT} requests: the cap is higher (or absent); nothing to judge`);
    },
  }),
];

export const rate = { B: eventsRate };
