/**
 * §8 and §7: the 256 KB body limit on Interface B, over it 413. The spec does not say whether KB is 1000 or 1024
 * bytes (src/spec/constants.ts): a body of 256 000 bytes must pass, one of 262 145 must be refused (also when it
 * is text of multi-byte characters, fewer than 262 144 of them: the limit counts bytes), and one of exactly
 * 262 144 is only a `should`. The limit and one byte past it are sent in every framing HTTP/1.1 allows
 * (probe/mutations.ts). §8 states the limit for Interface B only: a provider's jobs are not probed for it.
 */
import { MAX_BODY_BYTES, SURELY_ALLOWED_BODY_BYTES } from '../../../spec/constants.js';
import { bodyOfSize } from '../../probe/bodies.js';
import { AT_THE_LIMIT, OVER_THE_LIMIT } from '../../probe/mutations.js';
import { mutationCheck } from './mutated.js';
import { event, EVENTS_RECEIVER, probeOn } from './receivers.js';

const eventsSize = [
  // §8 counts the body in bytes whatever its framing: one declared by Content-Length (and announced before the body
  // with Expect: 100-continue) and one sent chunked, whose length only the bytes that arrive tell.
  mutationCheck(EVENTS_RECEIVER, 'B-SIZE-001', OVER_THE_LIMIT, {
    sections: ['§8', '§7'],
    tags: ['size', 'limits'],
    title: `a correctly signed body of ${MAX_BODY_BYTES + 1} bytes (256 KiB + 1) is rejected with 413, with Content-Length, chunked or with Expect: 100-continue`,
  }),
  probeOn(EVENTS_RECEIVER, 'B-SIZE-002', {
    sections: ['§8', '§4.2'],
    clauses: ['§8-1'],
    tags: ['size', 'limits', 'acceptance'],
    title: `a valid body of ${SURELY_ALLOWED_BODY_BYTES} bytes (256 kB) is accepted`,
    send: (scope) => ({ body: bodyOfSize(event(scope), 'text', SURELY_ALLOWED_BODY_BYTES) }),
  }),
  // A receiver that reads KiB accepts this too; refusing it is a defensible reading of the limit.
  mutationCheck(EVENTS_RECEIVER, 'B-SIZE-003', AT_THE_LIMIT, {
    level: 'should',
    sections: ['§8', '§4.2'],
    tags: ['size', 'limits', 'acceptance'],
    title: `a valid body of exactly ${MAX_BODY_BYTES} bytes (256 KiB) is accepted, with Content-Length, chunked or with Expect: 100-continue`,
  }),
  // §8's limit is on the body, in bytes: text of two-byte characters is over it at half as many characters.
  probeOn(EVENTS_RECEIVER, 'B-SIZE-004', {
    sections: ['§8', '§7'],
    clauses: ['§8-1', '§7-5'],
    tags: ['size', 'limits'],
    title: `a correctly signed body of ${MAX_BODY_BYTES + 1} bytes of two-byte UTF-8 text (about ${Math.ceil(MAX_BODY_BYTES / 2)} characters) is rejected with 413`,
    send: (scope) => ({ body: bodyOfSize(event(scope), 'text', MAX_BODY_BYTES + 1, 'é') }),
  }),
];

export const size = { B: eventsSize };
