/**
 * §5: who may send. The signature (another secret, another body, another timestamp, truncated, malformed,
 * missing; each part of the signed string and of the header changed in turn, from the mutation catalogue), for both
 * interfaces; then the sender's identity, which each interface carries its own way (X-CAI-Provider and the
 * registered origin on B, §5.6–§5.7; X-CAI-Source on A, §4.1), compared exactly; then what the signature binds at
 * its edges: the timestamp header exactly as sent (§5.2, §5.4), and on A the secret of its own direction (§5.1).
 */
import { compact } from '../../probe/bodies.js';
import { identityVariants, DIGEST, DIGEST_LENGTH, SIGNATURE_SPELLING, SIGNED_STRING } from '../../probe/mutations.js';
import { claimedOriginHeaders, usualSourceAddress } from '../../probe/origin.js';
import { OTHER_TIMESTAMP_SKEW_SECONDS } from '../../tolerances.js';
import { mutationCheck, tamperingChecks, type Tampering } from './mutated.js';
import { anotherSecret, event, EVENTS_RECEIVER, job, JOBS_RECEIVER, joined, probeOn } from './receivers.js';

/** §4.1, §4.2: a header the signature rides in, refused as a bad header; its rule's section and first clause. */
export const onHeader = (id: string, section: string): Pick<Tampering, 'id' | 'answer' | 'sections' | 'clauses'> => ({
  id,
  answer: 'header',
  sections: { A: ['§4.1', section], B: ['§4.2', section, '§7'] },
  clauses: [`${section}-1`],
});

/** A request without one of those headers. */
function withoutHeader(id: string, header: string, section: string, tamper: Tampering['tamper']): Tampering {
  return {
    ...onHeader(id, section),
    tags: ['headers'],
    what: (receiver) => `${receiver.spec.aRequest} without ${header}`,
    tamper,
  };
}

/** Each interface's own id; the rule's sections, then where each states the refusal: §4.1's check on A, §7 on B. */
const ownIds = (B: string, A: string, ...rule: string[]) => ({
  id: { B, A },
  sections: { A: [...rule, '§4.1'], B: [...rule, '§7'] },
});

const SIGNATURE_ROWS: readonly Tampering[] = [
  {
    id: 'AUTH-001',
    answer: 'authentication',
    tags: ['signature'],
    sections: { A: ['§4.1', '§5.1', '§5.3'], B: ['§5.3', '§7'] },
    clauses: ['§5.1-1', '§5.3-1'],
    what: 'a signature made with another secret',
    tamper: (body) => ({ body, signature: { kind: 'wrong-secret', secret: anotherSecret() } }),
  },
  {
    id: 'AUTH-002',
    answer: 'authentication',
    tags: ['signature'],
    sections: { A: ['§5.2', '§5.3'], B: ['§5.2', '§5.3', '§7'] },
    clauses: ['§5.2-1'],
    what: 'the valid signature of another body',
    tamper: (body, scope, receiver) => ({
      body,
      signature: { kind: 'other-body', body: compact(receiver.document(scope)) },
    }),
  },
  {
    id: 'AUTH-003',
    answer: 'authentication',
    tags: ['signature'],
    sections: { A: ['§5.2', '§5.4'], B: ['§5.2', '§5.4', '§7'] },
    clauses: ['§5.2-1', '§5.4-1'],
    what: 'a signature over another timestamp than the one sent',
    tamper: (body, scope) => ({
      body,
      signature: {
        kind: 'other-timestamp',
        timestamp: scope.session.targetNowSeconds() - OTHER_TIMESTAMP_SKEW_SECONDS,
      },
    }),
  },
  withoutHeader('AUTH-004', 'X-CAI-Signature', '§5.3', (body) => ({ body, signature: { kind: 'none' } })),
  withoutHeader('AUTH-005', 'X-CAI-Timestamp', '§5.4', (body) => ({ body, timestamp: { kind: 'none' } })),
  {
    id: 'AUTH-006',
    answer: 'header',
    tags: ['headers', 'signature'],
    sections: { A: ['§5.3', '§5.5'], B: ['§5.3', '§5.5', '§7'] },
    clauses: ['§5.3-1'],
    what: 'a truncated signature (63 or 32 hex digits)',
    mutations: DIGEST_LENGTH,
  },
  {
    ...onHeader('AUTH-007', '§5.3'),
    tags: ['headers', 'signature'],
    what: 'a signature header that is not sha256=<hex>',
    tamper: (body) => ({ body, signature: { kind: 'literal', value: 'sha256=not-a-hex-digest' } }),
  },
  // §5.3 writes the header one way: the right MAC spelled another way is not that header. Accepting it lets no forged
  // request in (a `should`), but a verifier that decodes, folds or splits the header before comparing it does.
  {
    ...ownIds('B-AUTH-018', 'A-AUTH-017', '§5.3'),
    answer: 'header',
    level: 'should',
    tags: ['headers', 'signature'],
    clauses: ['§5.3-1'],
    what: 'the valid digest spelled otherwise than sha256=<lowercase hex> (upper case, another or no prefix, base64, a digit more, two values)',
    mutations: SIGNATURE_SPELLING,
  },
  {
    ...ownIds('B-AUTH-019', 'A-AUTH-018', '§5.2'),
    answer: 'authentication',
    tags: ['signature'],
    clauses: ['§5.2-1'],
    what: 'an HMAC over the signed string with one part left out, replaced or moved',
    mutations: SIGNED_STRING,
  },
  {
    ...ownIds('B-AUTH-020', 'A-AUTH-019', '§5.3', '§5.5'),
    answer: 'authentication',
    tags: ['signature'],
    clauses: ['§5.3-1'],
    what: 'the valid digest with one hex digit changed (its last, its first or a middle one)',
    mutations: DIGEST,
  },
];

export const signatures = tamperingChecks(SIGNATURE_ROWS);

const eventsIdentity = [
  // §5.6: the code is compared exactly; another code, or the right one in another case or length, is unrecognised.
  mutationCheck(EVENTS_RECEIVER, 'B-AUTH-014', identityVariants('X-CAI-Provider', ['§5.6-1'], 'authentication'), {
    sections: ['§5.6', '§7'],
    tags: ['auth', 'provider'],
    title:
      'an unrecognised X-CAI-Provider (another code; the right one in another case, a character longer or shorter), correctly signed, is rejected with 401',
  }),
  probeOn(EVENTS_RECEIVER, 'B-AUTH-015', {
    sections: ['§4.2', '§5.6', '§7'],
    clauses: ['§4.2-2', '§5.6-1'],
    tags: ['auth', 'provider', 'headers'],
    title: 'a request without X-CAI-Provider is rejected',
    send: (scope) => ({ body: compact(event(scope)), identity: { kind: 'none' } }),
  }),
  probeOn(EVENTS_RECEIVER, 'B-AUTH-016', {
    sections: ['§5.7', '§7'],
    clauses: ['§5.7-1', '§7-3'],
    tags: ['origin', 'auth'],
    optional: true,
    needs: 'source-address',
    title: 'a request from an origin the platform has not registered is rejected with 401',
    // The plan skips it without --source-address (`needs`).
    send: (scope) => ({
      body: compact(event(scope)),
      ...(scope.session.config.sourceAddress ? { sourceAddress: scope.session.config.sourceAddress } : {}),
    }),
  }),
  // The origin is the connection's: a receiver that reads it from a header the client writes lets any address in that
  // names a registered one. The address claimed is the one the run's other requests, accepted, come from.
  probeOn(EVENTS_RECEIVER, 'B-AUTH-022', {
    sections: ['§5.7', '§7'],
    clauses: ['§5.7-1', '§7-3'],
    tags: ['origin', 'auth', 'headers'],
    optional: true,
    needs: 'source-address',
    title:
      'a request from an unregistered origin that claims the registered one in X-Forwarded-For, Forwarded and X-Real-IP is rejected with 401',
    send: async (scope) => {
      const claimed = (await usualSourceAddress(scope)) ?? '127.0.0.1';
      return {
        body: compact(event(scope)),
        headers: claimedOriginHeaders(claimed),
        ...(scope.session.config.sourceAddress ? { sourceAddress: scope.session.config.sourceAddress } : {}),
      };
    },
  }),
];

const jobsIdentity = [
  probeOn(JOBS_RECEIVER, 'A-AUTH-014', {
    level: 'should',
    sections: ['§4.1'],
    clauses: ['§4.1-2'],
    tags: ['auth', 'headers', 'source'],
    title: 'a job without X-CAI-Source is rejected',
    send: (scope) => ({ body: compact(job(scope)), identity: { kind: 'none' } }),
  }),
  // §4.1: a fixed value identifying the platform; nothing says the provider must check it (a `should`, as A-AUTH-014).
  mutationCheck(JOBS_RECEIVER, 'A-AUTH-021', identityVariants('X-CAI-Source', ['§4.1-2'], 'header'), {
    level: 'should',
    sections: ['§4.1'],
    tags: ['auth', 'headers', 'source'],
    title:
      'a job whose X-CAI-Source is not the platform id (another id; the right one in another case, a character longer or shorter) is rejected',
  }),
];

export const identity = { B: eventsIdentity, A: jobsIdentity };

/**
 * What the signature binds (§5.2–§5.4): the timestamp exactly as the header carries it. A verifier that parses the
 * header to a number and signs the number's digits accepts a header that is not the signed text. A receiver may
 * refuse a leading zero as a malformed timestamp, or verify it as sent; either way the request is refused.
 */
const BINDING_ROWS: readonly Tampering[] = [
  {
    ...ownIds('B-AUTH-017', 'A-AUTH-015', '§5.2', '§5.4'),
    answer: 'header',
    tags: ['signature', 'window'],
    clauses: ['§5.2-1', '§5.4-1'],
    what: 'a timestamp written with a leading zero but signed over the digits without it',
    tamper: (body) => ({ body, timestamp: { kind: 'now', prefix: '0' }, signature: { kind: 'bare-timestamp' } }),
  },
];

/** §5.1: a separate secret for each direction; the jobs endpoint does not take the events secret. */
const otherDirection = probeOn(JOBS_RECEIVER, 'A-AUTH-016', {
  sections: ['§5.1', '§4.1', '§5.3'],
  clauses: ['§5.1-2', '§4.1-6'],
  tags: ['auth', 'signature'],
  needs: 'callback',
  title: 'a job signed with the events secret (the other direction of the pair) is rejected',
  // The plan skips it without the events secret (`needs: 'callback'`).
  send: (scope) => ({
    body: compact(job(scope)),
    signature: { kind: 'wrong-secret', secret: scope.session.callback?.secrets[0] ?? anotherSecret() },
  }),
});

export const signatureBinding = joined(tamperingChecks(BINDING_ROWS), { A: [otherDirection] });
