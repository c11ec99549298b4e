/**
 * §5.5: the window only works if both clocks agree. The target's clock is read once, from the `Date` header of
 * the unsigned probe sent before the checks (run-receiver.ts); this check judges that reading.
 */
import { SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { defineCheck, failed, notJudged, passed } from '../../check.js';
import type { ClockReading } from '../../probe/session.js';
import { CLOCK_TOLERANCE_SECONDS } from '../../tolerances.js';

const eventsClock = [
  defineCheck<{ reading: ClockReading }>({
    id: 'B-CLOCK-001',
    interface: 'B',
    level: 'should',
    sections: ['§5.5'],
    clauses: ['§5.5-1', '§8-3'],
    tags: ['clock'],
    title: `the target sends a Date header and its clock is within ${CLOCK_TOLERANCE_SECONDS} s of ours`,
    gather: async (scope) => ({ reading: scope.session.clock }),
    judge: ({ reading }) => {
      if (!reading) return notJudged('the target was not probed');
      if (reading.dateHeader === null)
        return failed('a Date header', 'no Date header: the clock offset cannot be measured');
      if (reading.offsetSeconds === null)
        return failed('a Date header in HTTP-date form', `Date: ${reading.dateHeader}`);
      const actual = `offset ${reading.offsetSeconds >= 0 ? '+' : ''}${reading.offsetSeconds} s`;
      const expected = `|offset| ≤ ${CLOCK_TOLERANCE_SECONDS} s`;
      return Math.abs(reading.offsetSeconds) <= CLOCK_TOLERANCE_SECONDS
        ? passed(expected, actual)
        : failed(`${expected} (the window is ±${SIGNATURE_WINDOW_SECONDS} s)`, actual);
    },
  }),
];

export const clock = { B: eventsClock };
