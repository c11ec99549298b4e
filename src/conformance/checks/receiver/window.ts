/**
 * §5.4–§5.5: the timestamp. Its form (an integer of seconds: not an ISO date, a plus sign, a fraction, an exponent,
 * hexadecimal or milliseconds), the 300 s window on both sides (60 s clear of the edge and one second past it:
 * rejected; 60 s clear and on the edge itself: accepted, a `should`, since a receiver with a narrower tolerance is
 * defensible), and the clock it is measured against: X-CAI-Timestamp's, not the document's date-time nor a `Date`
 * header. The cases come from the mutation catalogue (probe/mutations-timestamp.ts). Both interfaces.
 */
import { SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import {
  TIMESTAMP_FORM,
  WINDOW_FUTURE_INSIDE,
  WINDOW_FUTURE_OUTSIDE,
  WINDOW_PAST_INSIDE,
  WINDOW_PAST_OUTSIDE,
  WINDOW_SOURCE,
} from '../../probe/mutations-timestamp.js';
import { WINDOW_MARGIN_SECONDS } from '../../tolerances.js';
import { mutationCheck } from './mutated.js';
import { checkId, forBoth } from './receivers.js';
import { tamperingChecks, type Tampering } from './tampering.js';

const OUTSIDE = SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS;
const INSIDE = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;
const EDGE = SIGNATURE_WINDOW_SECONDS;

const WINDOW_ROWS: readonly Tampering[] = [
  {
    id: 'AUTH-008',
    answer: 'header',
    tags: ['headers', 'window'],
    sections: { A: ['§4.1', '§5.4'], B: ['§4.2', '§5.4', '§7'] },
    clauses: ['§5.4-1'],
    what: 'a timestamp that is not an integer of seconds (an ISO date, a plus sign, a fraction, an exponent, hexadecimal)',
    mutations: TIMESTAMP_FORM,
  },
  {
    id: 'AUTH-009',
    answer: 'header',
    tags: ['window'],
    sections: { A: ['§4.1', '§5.5'], B: ['§4.2', '§5.5', '§7'] },
    clauses: ['§5.4-1', '§5.5-1'],
    what: 'a timestamp in milliseconds (correctly signed)',
    tamper: (body) => ({ body, timestamp: { kind: 'milliseconds' } }),
  },
  {
    id: 'AUTH-010',
    answer: 'authentication',
    tags: ['window', 'clock'],
    sections: { A: ['§5.5', '§8'], B: ['§5.5', '§7'] },
    clauses: ['§5.5-1', '§8-3'],
    what: `a timestamp ${OUTSIDE} s or ${EDGE + 1} s in the past (correctly signed)`,
    mutations: WINDOW_PAST_OUTSIDE,
  },
  {
    id: 'AUTH-011',
    answer: 'authentication',
    tags: ['window', 'clock'],
    sections: { A: ['§5.5', '§8'], B: ['§5.5', '§7'] },
    clauses: ['§5.5-1', '§8-3'],
    what: `a timestamp ${OUTSIDE} s or ${EDGE + 1} s in the future (correctly signed)`,
    mutations: WINDOW_FUTURE_OUTSIDE,
  },
  {
    id: 'AUTH-012',
    answer: 'accepted',
    level: 'should',
    tags: ['window', 'clock'],
    sections: { A: ['§5.5'], B: ['§5.5'] },
    clauses: ['§5.5-2'],
    what: `a timestamp ${INSIDE} s or ${EDGE} s in the past`,
    mutations: WINDOW_PAST_INSIDE,
  },
  {
    id: 'AUTH-013',
    answer: 'accepted',
    level: 'should',
    tags: ['window', 'clock'],
    sections: { A: ['§5.5'], B: ['§5.5'] },
    clauses: ['§5.5-2'],
    what: `a timestamp ${INSIDE} s or ${EDGE} s in the future`,
    mutations: WINDOW_FUTURE_INSIDE,
  },
];

const rows = tamperingChecks(WINDOW_ROWS);

/** §5.4: the window is measured against X-CAI-Timestamp, whatever the document's date-time or a `Date` header say. */
const source = forBoth((receiver) => [
  mutationCheck(
    receiver,
    {
      id: checkId(receiver, { B: 'B-AUTH-021', A: 'A-AUTH-020' }),
      sections: ['§5.4', '§5.5', receiver.spec.refusalSection],
      tags: ['auth', 'window', 'clock'],
      title:
        'the window is measured from X-CAI-Timestamp alone: a stale date-time in the document or a stale Date header does not refuse a fresh request, a fresh one does not let a stale request in',
    },
    WINDOW_SOURCE,
  ),
]);

export const timestampWindow = {
  B: [...(rows.B ?? []), ...(source.B ?? [])],
  A: [...(rows.A ?? []), ...(source.A ?? [])],
};
