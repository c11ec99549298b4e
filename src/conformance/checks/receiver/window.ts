/**
 * §5.4–§5.5: the timestamp. Its form (integer seconds, not an ISO date or milliseconds) and the 300 s window,
 * probed `WINDOW_MARGIN_SECONDS` beyond it (rejected) and within it (accepted: a `should`, since a receiver
 * with a narrower tolerance is defensible). Both interfaces.
 */
import { SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { WINDOW_MARGIN_SECONDS } from '../../tolerances.js';
import { tamperingChecks, type Tampering } from './tampering.js';

const OUTSIDE = SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS;
const INSIDE = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;

const WINDOW_ROWS: readonly Tampering[] = [
  { id: 'AUTH-008', answer: 'header', tags: ['headers', 'window'], sections: { A: ['§4.1', '§5.4'], B: ['§4.2', '§5.4', '§7'] }, clauses: ['§5.4-1'],
    what: 'a timestamp that is not an integer of seconds',
    tamper: (body) => ({ body, timestamp: { kind: 'literal', value: new Date().toISOString() } }) },
  { id: 'AUTH-009', answer: 'header', tags: ['window'], sections: { A: ['§4.1', '§5.5'], B: ['§4.2', '§5.5', '§7'] }, clauses: ['§5.4-1', '§5.5-1'],
    what: 'a timestamp in milliseconds (correctly signed)',
    tamper: (body) => ({ body, timestamp: { kind: 'milliseconds' } }) },
  { id: 'AUTH-010', answer: 'authentication', tags: ['window', 'clock'], sections: { A: ['§5.5', '§8'], B: ['§5.5', '§7'] }, clauses: ['§5.5-1', '§8-3'],
    what: `a timestamp ${OUTSIDE} s in the past (correctly signed)`,
    tamper: (body) => ({ body, timestamp: { kind: 'now', shiftSeconds: -OUTSIDE } }) },
  { id: 'AUTH-011', answer: 'authentication', tags: ['window', 'clock'], sections: { A: ['§5.5', '§8'], B: ['§5.5', '§7'] }, clauses: ['§5.5-1', '§8-3'],
    what: `a timestamp ${OUTSIDE} s in the future (correctly signed)`,
    tamper: (body) => ({ body, timestamp: { kind: 'now', shiftSeconds: OUTSIDE } }) },
  { id: 'AUTH-012', answer: 'accepted', level: 'should', tags: ['window', 'clock'], sections: { A: ['§5.5'], B: ['§5.5'] }, clauses: ['§5.5-2'],
    what: `a timestamp ${INSIDE} s in the past`,
    tamper: (body) => ({ body, timestamp: { kind: 'now', shiftSeconds: -INSIDE } }) },
  { id: 'AUTH-013', answer: 'accepted', level: 'should', tags: ['window', 'clock'], sections: { A: ['§5.5'], B: ['§5.5'] }, clauses: ['§5.5-2'],
    what: `a timestamp ${INSIDE} s in the future`,
    tamper: (body) => ({ body, timestamp: { kind: 'now', shiftSeconds: INSIDE } }) },
];

export const timestampWindow = tamperingChecks(WINDOW_ROWS);
