/**
 * §5.4–§5.5: the timestamp. Its form (an integer of seconds: not an ISO date, a plus sign, a fraction, an exponent,
 * hexadecimal or milliseconds), the 300 s window on both sides (60 s clear of the edge and one second past it:
 * rejected; 60 s clear and on the edge itself: accepted, a `should`, since a receiver with a narrower tolerance is
 * defensible), and the clock it is measured against: X-CAI-Timestamp's, not the document's date-time nor a `Date`
 * header. The cases come from the mutation catalogue (probe/mutations.ts). Both interfaces.
 */
import { SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import {
  INSIDE,
  OUTSIDE,
  TIMESTAMP_FORM,
  WINDOW_FUTURE_INSIDE,
  WINDOW_FUTURE_OUTSIDE,
  WINDOW_PAST_INSIDE,
  WINDOW_PAST_OUTSIDE,
  WINDOW_SOURCE,
  type Mutation,
} from '../../probe/mutations.js';
import { onHeader } from './authentication.js';
import { mutationCheck, tamperingChecks, type Tampering } from './mutated.js';
import { checkId, forBoth, joined } from './receivers.js';

const EDGE = SIGNATURE_WINDOW_SECONDS;

/** §5.5: the window on both sides of the receiver's clock, the past then the future, each with its own cases. */
function bothSides(
  ids: readonly [string, string],
  mutations: readonly [readonly Mutation[], readonly Mutation[]],
  row: Omit<Tampering, 'id' | 'tags' | 'what' | 'mutations'> & { what: (side: string) => string },
): Tampering[] {
  return (['past', 'future'] as const).map((side, index) => ({
    ...row,
    id: ids[index] as string,
    tags: ['window', 'clock'],
    what: row.what(side),
    mutations: mutations[index],
  }));
}

const WINDOW_ROWS: readonly Tampering[] = [
  {
    ...onHeader('AUTH-008', '§5.4'),
    tags: ['headers', 'window'],
    what: 'a timestamp that is not an integer of seconds (an ISO date, a plus sign, a fraction, an exponent, hexadecimal)',
    mutations: TIMESTAMP_FORM,
  },
  {
    ...onHeader('AUTH-009', '§5.5'),
    tags: ['window'],
    clauses: ['§5.4-1', '§5.5-1'],
    what: 'a timestamp in milliseconds (correctly signed)',
    tamper: (body) => ({ body, timestamp: { kind: 'milliseconds' } }),
  },
  ...bothSides(['AUTH-010', 'AUTH-011'], [WINDOW_PAST_OUTSIDE, WINDOW_FUTURE_OUTSIDE], {
    answer: 'authentication',
    sections: { A: ['§5.5', '§8'], B: ['§5.5', '§7'] },
    clauses: ['§5.5-1', '§8-3'],
    what: (side) => `a timestamp ${OUTSIDE} s or ${EDGE + 1} s in the ${side} (correctly signed)`,
  }),
  ...bothSides(['AUTH-012', 'AUTH-013'], [WINDOW_PAST_INSIDE, WINDOW_FUTURE_INSIDE], {
    answer: 'accepted',
    level: 'should',
    sections: { A: ['§5.5'], B: ['§5.5'] },
    clauses: ['§5.5-2'],
    what: (side) => `a timestamp ${INSIDE} s or ${EDGE} s in the ${side}`,
  }),
];

/** §5.4: the window is measured against X-CAI-Timestamp, whatever the document's date-time or a `Date` header say. */
const source = forBoth((receiver) => [
  mutationCheck(receiver, checkId(receiver, { B: 'B-AUTH-021', A: 'A-AUTH-020' }), WINDOW_SOURCE, {
    sections: ['§5.4', '§5.5', receiver.spec.refusalSection],
    tags: ['auth', 'window', 'clock'],
    title:
      'the window is measured from X-CAI-Timestamp alone: a stale date-time in the document or a stale Date header does not refuse a fresh request, a fresh one does not let a stale request in',
  }),
]);

export const timestampWindow = joined(tamperingChecks(WINDOW_ROWS), source);
