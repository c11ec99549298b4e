/**
 * What every attempt of a sender must carry, judged by the model on every attempt of every stage (retries and late
 * ones included): a POST to the right address (§4.1, §4.2), the identity header and the JSON content type, a
 * signature over the raw bytes (§5.2–§5.3) with a timestamp in unix seconds (§4) inside the §5.5 window at the moment
 * it arrives, and a valid document within the §8 limits (src/spec/model/sender-attempts.ts). The same checks run on a
 * `--role sender` run and on the events an Interface A provider sends back (their former ids, A-CB-00n, are aliases).
 */
import { HeaderNames, MAX_BODY_BYTES, SURELY_ALLOWED_BODY_BYTES, type InterfaceId } from '../../../spec/constants.js';
import { interfaceSpec } from '../../../spec/interfaces.js';
import { attemptTerm, type AttemptTermId } from '../../../spec/model/sender-attempts.js';
import { defineSenderCheck, notJudged, type Outcome, type SenderCheck, type SenderCheckSpec } from '../../check.js';
import { allAttempts, type SenderEvidence } from '../../evidence.js';
import { kindsSeen } from './documents.js';
import { attemptFindings, stagesText, verdictOf } from './judging.js';
import { plural } from '../../../text.js';

/** A check of one term of the model on every attempt. */
function everyAttempt(iface: InterfaceId, term: AttemptTermId, unjudged: string) {
  return (evidence: SenderEvidence): Outcome => {
    if (allAttempts(evidence).length === 0) return notJudged(`no attempt arrived${stagesText(evidence)}`);
    const model = attemptTerm(iface, term);
    const stages = new Set(evidence.records.filter((record) => record.attempts.length > 0).map((record) => record.id))
      .size;
    return verdictOf(attemptFindings(evidence, model), {
      expected: model.expected({ identity: evidence.identity, secrets: [], expectedPath: '' }),
      unit: ['attempt', 'attempts'],
      unjudged,
      passedText: (kept) => `${plural(kept.length, 'attempt')} in ${plural(stages, 'scenario')}, all right`,
    });
  };
}

/** The kinds of document that came, as a note of the document check: the evidence of which rules were exercised. */
function withKindsSeen(outcome: Outcome, evidence: SenderEvidence): Outcome {
  return outcome.verdict === 'not-judged'
    ? outcome
    : { ...outcome, notes: [...(outcome.notes ?? []), `documents received: ${kindsSeen(evidence)}`] };
}

/** What an attempt check says of itself; the rest is its term's. */
type AttemptCheckRow = Omit<SenderCheckSpec, 'id' | 'interface' | 'level' | 'clauses' | 'scenarios' | 'judge'>;

function attemptChecks(iface: InterfaceId): SenderCheck[] {
  const spec = interfaceSpec(iface);
  const own = spec.section;
  const address = spec.path === '' ? spec.targetName : `{provider_endpoint}${spec.path}`;
  /** A check of one attempt term of the model, on every attempt of the `accept` scenario: its level and clauses the term's. */
  const check = (id: string, term: AttemptTermId, row: AttemptCheckRow, unjudged = 'no attempt to judge') => {
    const model = attemptTerm(iface, term);
    return defineSenderCheck({
      id: `${spec.senderCheckPrefix}-${id}`,
      interface: iface,
      level: model.level,
      clauses: model.clauses,
      scenarios: ['accept'],
      ...row,
      judge: everyAttempt(iface, term, unjudged),
    });
  };
  const stated = spec.sizeLimitStated;
  const documentCheck = check(
    'DOC-001',
    'document',
    {
      sections: iface === 'B' ? ['§2.4', '§2', '§6', '§8'] : ['§2.2', '§2'],
      tags: ['document', 'schema'],
      title:
        iface === 'B'
          ? 'every attempt carries a valid event (UTF-8 JSON, event_id of at most 120 characters)'
          : 'every attempt carries a valid contact job (UTF-8 JSON, every required field)',
    },
    'no body small enough to read (see the size check)',
  );
  return [
    check('HTTP-001', 'address', { sections: [own], tags: ['http'], title: `every attempt is a POST to ${address}` }),
    check('HDR-001', 'identity', {
      sections: iface === 'B' ? ['§4.2', '§5.6'] : ['§4.1'],
      tags: ['headers', 'identity'],
      title: `every attempt carries ${spec.identityHeaderName} with the expected ${spec.identityName}`,
    }),
    check('HDR-002', 'content-type', {
      sections: ['§2', own],
      tags: ['headers', 'content-type'],
      title: 'every attempt is sent with Content-Type: application/json',
    }),
    check(
      'SIG-001',
      'signature',
      {
        sections: iface === 'B' ? ['§5.2', '§5.3', '§4.2'] : ['§5.2', '§5.3', '§5.1', '§4.1'],
        tags: ['signature', 'raw-body'],
        title: 'every attempt is signed over its timestamp and its raw body, exactly as sent',
      },
      'no attempt with a timestamp to judge the signature over (see the timestamp check)',
    ),
    check('SIG-002', 'timestamp', {
      sections: [own, '§5.4'],
      tags: ['signature', 'timestamp'],
      title: `every attempt carries ${HeaderNames.timestamp} as an integer of unix seconds`,
    }),
    check(
      'SIG-003',
      'window',
      {
        sections: ['§5.5'],
        tags: ['signature', 'window'],
        title: 'the timestamp of every attempt is within 300 s of the moment it arrives',
      },
      'no attempt with a well-formed timestamp (see the timestamp check)',
    ),
    { ...documentCheck, judge: (evidence) => withKindsSeen(documentCheck.judge(evidence), evidence) },
    check('DOC-004', 'text', {
      sections: ['§2'],
      tags: ['document', 'unicode'],
      title: 'every string of every document is Unicode text: no unpaired surrogate escape (RFC 8259 §8.2)',
    }),
    check('DOC-002', 'size', {
      sections: stated ? ['§8', '§7'] : ['§8'],
      tags: ['document', 'size'],
      title: stated
        ? `every body is at most 256 KiB (${MAX_BODY_BYTES} bytes)`
        : `every job is at most 256 KiB (${MAX_BODY_BYTES} bytes; §8 states the limit for events)`,
    }),
    ...(stated
      ? [
          check('DOC-003', 'size-surely', {
            sections: ['§8'],
            tags: ['document', 'size'],
            title: `every body is at most ${SURELY_ALLOWED_BODY_BYTES} bytes (256 KB read as 1000-byte KB)`,
          }),
        ]
      : []),
  ];
}

export const attemptChecksB = attemptChecks('B');
export const attemptChecksA = attemptChecks('A');
