/**
 * §8 and §7: the 256 KB body limit on Interface B, over it 413. The spec does not say whether KB is 1000 or 1024
 * bytes (src/spec/constants.ts): a body of 256 000 bytes must pass, one of 262 145 must be refused (also when it
 * is text of multi-byte characters, fewer than 262 144 of them: the limit counts bytes), and one of exactly
 * 262 144 is only a `should`.
 */
import { MAX_BODY_BYTES, SURELY_ALLOWED_BODY_BYTES } from '../../../spec/constants.js';
import { bodyOfSize } from '../../probe/bodies.js';
import { defineProbe } from '../../probe/define.js';
import { ACCEPTED, TOO_LARGE } from '../../probe/expectations.js';
import { event } from './receivers.js';

const eventsSize = [
  defineProbe({
    id: 'B-SIZE-001', interface: 'B', level: 'must', sections: ['§8', '§7'], clauses: ['§8-1', '§7-5'], tags: ['size', 'limits'],
    title: `a correctly signed body of ${MAX_BODY_BYTES + 1} bytes (256 KiB + 1) is rejected with 413`,
    send: (scope) => ({ body: bodyOfSize(event(scope), 'text', MAX_BODY_BYTES + 1) }),
    expect: TOO_LARGE,
  }),
  defineProbe({
    id: 'B-SIZE-002', interface: 'B', level: 'must', sections: ['§8', '§4.2'], clauses: ['§8-1'], tags: ['size', 'limits', 'acceptance'],
    title: `a valid body of ${SURELY_ALLOWED_BODY_BYTES} bytes (256 kB) is accepted`,
    send: (scope) => ({ body: bodyOfSize(event(scope), 'text', SURELY_ALLOWED_BODY_BYTES) }),
    expect: ACCEPTED,
  }),
  // A receiver that reads KiB accepts this too; refusing it is a defensible reading of the limit.
  defineProbe({
    id: 'B-SIZE-003', interface: 'B', level: 'should', sections: ['§8', '§4.2'], clauses: ['§8-1'], tags: ['size', 'limits', 'acceptance'],
    title: `a valid body of exactly ${MAX_BODY_BYTES} bytes (256 KiB) is accepted`,
    send: (scope) => ({ body: bodyOfSize(event(scope), 'text', MAX_BODY_BYTES) }),
    expect: ACCEPTED,
  }),
  // §8's limit is on the body, in bytes: text of two-byte characters is over it at half as many characters.
  defineProbe({
    id: 'B-SIZE-004', interface: 'B', level: 'must', sections: ['§8', '§7'], clauses: ['§8-1', '§7-5'], tags: ['size', 'limits'],
    title: `a correctly signed body of ${MAX_BODY_BYTES + 1} bytes of two-byte UTF-8 text (about ${Math.ceil(MAX_BODY_BYTES / 2)} characters) is rejected with 413`,
    send: (scope) => ({ body: bodyOfSize(event(scope), 'text', MAX_BODY_BYTES + 1, 'é') }),
    expect: TOO_LARGE,
  }),
];

export const size = { B: eventsSize };
