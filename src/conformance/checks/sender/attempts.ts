/**
 * What every attempt of a sender must carry, judged by the model on every attempt of every stage (retries and late
 * ones included): a POST to the right address (§4.1, §4.2), the identity header and the JSON content type, a
 * signature over the raw bytes (§5.2–§5.3) with a timestamp in unix seconds (§4) inside the §5.5 window at the moment
 * it arrives, and a valid document within the §8 limits (src/spec/model/sender-attempts.ts). The same checks run on a
 * `--role sender` run and on the events an Interface A provider sends back (their former ids, A-CB-00n, are aliases).
 */
import { HeaderNames, MAX_BODY_BYTES, SURELY_ALLOWED_BODY_BYTES, type InterfaceId } from '../../../spec/constants.js';
import { EVENT_TYPES, type EventType } from '../../../spec/constants.js';
import { eventTypeSpec } from '../../../spec/event-types.js';
import { interfaceSpec } from '../../../spec/interfaces.js';
import { isObject } from '../../../spec/json.js';
import { validateDocument, type ValidationIssue } from '../../../spec/validate.js';
import { attemptTerm, type AttemptTerm, type AttemptTermId } from '../../../spec/model/sender-attempts.js';
import { defineSenderCheck, notJudged, type Outcome, type SenderCheck, type SenderCheckSpec } from '../../check.js';
import { allAttempts, attemptEventId, documentOf, type SenderEvidence } from '../../evidence.js';
import { attemptFindings, findingOn, stagesText, verdictOf } from './judging.js';
import { plural } from '../../../text.js';

/** A check of one term of the model on every attempt. */
function everyAttempt(model: AttemptTerm, unjudged: string) {
  return (evidence: SenderEvidence): Outcome => {
    if (allAttempts(evidence).length === 0) return notJudged(`no attempt arrived${stagesText(evidence)}`);
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
      judge: everyAttempt(model, unjudged),
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

/**
 * Each kind of document a sender sends, judged on its own rules and only on what arrived: on Interface B each event
 * type of §6 (conversation.message §2.5, the three appointment events §2.6, job.closed §2.7, with the enumerations
 * and formats they carry); on Interface A, whose one document is the contact job, each optional part of it that has
 * rules of its own (origin §2.8, brief §2.9, contact.language §2.1). A kind the sender never sent is not judged:
 * the report says which kinds came, so a run that saw only messages does not vouch for appointments.
 */
/** A kind of document: which documents are of it, and which issues of theirs are its own. */
interface DocumentKind {
  /** `appointment.booked`, `origin`. */
  name: string;
  /** `an appointment.booked event`, `a job that carries origin`. */
  phrase: string;
  sections: readonly string[];
  clauses: readonly string[];
  has(doc: Record<string, unknown>): boolean;
  owns(issue: ValidationIssue): boolean;
  title: string;
}

/** What each event type's section (EVENT_TYPE_SPECS) asks of it, in words, and its clauses. */
const EVENT_RULES: Record<EventType, { clauses: readonly string[]; rules: string }> = {
  'conversation.message': {
    clauses: ['§2.5-1', '§2.4-3', '§2.10-1', '§2.11-1', '§2.1-1', '§2.1-2'],
    rules: 'the envelope fields, with their enumerations and formats',
  },
  'appointment.booked': { clauses: ['§2.6-1', '§2.1-2'], rules: 'strings, scheduled_at in ISO 8601 with offset' },
  'appointment.rescheduled': { clauses: ['§2.6-1', '§2.1-2'], rules: 'strings, scheduled_at in ISO 8601 with offset' },
  'appointment.cancelled': { clauses: ['§2.6-1', '§2.1-2'], rules: 'strings, scheduled_at in ISO 8601 with offset' },
  'job.closed': { clauses: ['§2.7-1', '§2.12-1'], rules: 'outcome of §2.12, attempts an integer' },
};

const EVENT_KINDS: readonly DocumentKind[] = EVENT_TYPES.map((type) => {
  const { clauses, rules } = EVENT_RULES[type];
  const { section } = eventTypeSpec(type);
  return {
    name: type,
    phrase: `a ${type} event`,
    sections: [section, '§6', '§2.1'],
    clauses,
    has: (doc) => doc.event === type,
    // Every issue of an event of its type: the envelope's too, as that type's section names the fields it uses.
    owns: (issue) => issue.code !== 'too_large',
    title: `every ${type} event follows ${section} (${rules})`,
  };
});

/** An optional part of a job at `path` (`contact.language`), with the sections and clauses of its own rules. */
function jobPart(path: string, sections: readonly string[], clauses: readonly string[], title: string): DocumentKind {
  const [head, tail] = path.split('.') as [string, string | undefined];
  return {
    name: path,
    phrase: tail === undefined ? `a job that carries ${head}` : `a job whose ${head} carries ${tail}`,
    sections,
    clauses,
    has: (doc) => (tail === undefined ? doc[head] !== undefined : isObject(doc[head]) && doc[head][tail] !== undefined),
    owns: (issue) => issue.path === path || issue.path.startsWith(`${path}.`),
    title,
  };
}

const JOB_PARTS: readonly DocumentKind[] = [
  jobPart(
    'origin',
    ['§2.2', '§2.8', '§2.1'],
    ['§2.2-2', '§2.8-1', '§2.1-2'],
    'every origin of a job follows §2.2 (channel one of §2.8, source and campaign strings, captured_at in ISO 8601 with offset)',
  ),
  jobPart(
    'brief',
    ['§2.2', '§2.9'],
    ['§2.2-2', '§2.9-1'],
    'every brief of a job follows §2.2 (intent one of §2.9, notes a string)',
  ),
  jobPart(
    'contact.language',
    ['§2.2', '§2.1'],
    ['§2.2-2', '§2.1-3'],
    'every contact.language of a job is a BCP 47 tag (§2.1)',
  ),
];

function kindsOf(iface: InterfaceId): readonly DocumentKind[] {
  return interfaceSpec(iface).document === 'event' ? EVENT_KINDS : JOB_PARTS;
}

/** The documents that arrived, each once (by event_id, else by its bytes), as JSON objects. */
function documentsOf(evidence: Pick<SenderEvidence, 'records'>): Record<string, unknown>[] {
  const seen = new Map<string, Record<string, unknown>>();
  for (const attempt of allAttempts(evidence)) {
    const doc = documentOf(attempt);
    if (!isObject(doc)) continue;
    const key = attemptEventId(attempt) ?? attempt.key;
    if (!seen.has(key)) seen.set(key, doc);
  }
  return [...seen.values()];
}

/**
 * The kinds of document that came, with how many documents each: `conversation.message ×12, job.closed ×2` (B),
 * `3 jobs: origin ×2, brief ×1` (A). What a report shows as the evidence of which rules were exercised.
 */
export function kindsSeen(evidence: Pick<SenderEvidence, 'records' | 'interface'>): string {
  const docs = documentsOf(evidence);
  const counted = kindsOf(evidence.interface)
    .map((kind) => [kind.name, docs.filter((doc) => kind.has(doc)).length] as const)
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${name} ×${count}`);
  if (interfaceSpec(evidence.interface).document === 'event') {
    const other = docs.filter((doc) => !EVENT_KINDS.some((kind) => kind.has(doc))).length;
    return [...counted, ...(other > 0 ? [`of no type of §6 ×${other}`] : [])].join(', ') || 'no event';
  }
  const jobs = plural(docs.length, 'job');
  return counted.length > 0 ? `${jobs}, with ${counted.join(', ')}` : `${jobs}, none with an optional part`;
}

/** Judges every attempt of one kind on that kind's own rules (the spec's validators); not judged when none came. */
function judgeKind(kind: DocumentKind, evidence: SenderEvidence): Outcome {
  const term = { id: 'document', relation: 'well-formed', level: 'must', clauses: kind.clauses } as const;
  const findings = allAttempts(evidence).flatMap((attempt) => {
    const doc = documentOf(attempt);
    if (!isObject(doc) || !kind.has(doc)) return [];
    const issues = validateDocument(doc, { kind: interfaceSpec(evidence.interface).document }).errors.filter((issue) =>
      kind.owns(issue),
    );
    const actual =
      issues.length === 0
        ? undefined
        : issues
            .slice(0, 2)
            .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
            .join('; ');
    return [findingOn(attempt, term, actual)];
  });
  const documents = () => documentsOf(evidence).filter((doc) => kind.has(doc)).length;
  return verdictOf(findings, {
    expected: `${kind.phrase} that follows ${kind.sections[0]}`,
    unit: ['attempt', 'attempts'],
    unjudged: `no ${kind.phrase.replace(/^an? /, '')} arrived (what came: ${kindsSeen(evidence)})`,
    passedText: (kept) =>
      `${plural(kept.length, 'attempt')} of ${kind.name} (${plural(documents(), 'document')}), all right`,
  });
}

function documentKindChecks(iface: InterfaceId): SenderCheck[] {
  const p = interfaceSpec(iface).senderCheckPrefix;
  const area = interfaceSpec(iface).document === 'event' ? 'TYPE' : 'PART';
  return kindsOf(iface).map((kind, index) =>
    defineSenderCheck({
      id: `${p}-${area}-${String(index + 1).padStart(3, '0')}`,
      interface: iface,
      level: 'must',
      sections: kind.sections,
      clauses: kind.clauses,
      tags: ['document', 'schema', area === 'TYPE' ? 'event-type' : 'job-part'],
      scenarios: ['accept'],
      title: kind.title,
      judge: (evidence) => judgeKind(kind, evidence),
    }),
  );
}

export const documentKindChecksB = documentKindChecks('B');
export const documentKindChecksA = documentKindChecks('A');
