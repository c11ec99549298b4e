/**
 * The answers a receiver may give, as sets of statuses, and the terms an answer is judged by: the status, and the
 * contract of what it carries (§2.3 the acknowledgment, §2.13 the duplicate answer, §2 the JSON label, §7's
 * Retry-After). A term is pure data plus one small function: the model (./receiver.ts) picks the terms that apply
 * to a request in a state, and a check or the stateful phase asks which of them an answer breaks.
 */
import { checkJobAck, isDuplicateAck, isJsonMediaType, type Answer } from '../acknowledgment.js';
import { Headers, type InterfaceId } from '../constants.js';
import { interfaceSpec } from '../interfaces.js';
import { objectOf, parseJson } from '../json.js';
import { isWellFormedRetryAfter } from '../retry-after.js';
import { isRejection } from '../statuses.js';
import type { FaultKind } from './facts.js';

/** An answer as the model reads it; no status when none came (a cut connection, a time-out). */
export interface ModelAnswer extends Omit<Answer, 'status'> {
  status?: number;
  /** Why no answer came, when none did. */
  error?: string;
}

/** A set of statuses: any 2xx (§6.5), any 4xx rejection (§4.1), and single ones. */
export interface StatusSet {
  any2xx?: boolean;
  any4xx?: boolean;
  statuses?: readonly number[];
}

export function inSet(set: StatusSet, status: number | undefined): boolean {
  if (status === undefined) return false;
  if (set.any2xx && status >= 200 && status < 300) return true;
  if (set.any4xx && isRejection(status)) return true;
  return (set.statuses ?? []).includes(status);
}

export function unionOf(...sets: readonly StatusSet[]): StatusSet {
  const statuses = [...new Set(sets.flatMap((set) => set.statuses ?? []))].sort((a, b) => a - b);
  return {
    ...(sets.some((set) => set.any2xx) ? { any2xx: true } : {}),
    ...(sets.some((set) => set.any4xx) ? { any4xx: true } : {}),
    ...(statuses.length ? { statuses } : {}),
  };
}

export function allowsAcceptance(set: StatusSet): boolean {
  return set.any2xx === true || (set.statuses ?? []).some((status) => status >= 200 && status < 300);
}

/** `2xx (accepted)`, `401`, `400 or 401`, `any 4xx`, `2xx, or 411`. */
export function describeSet(set: StatusSet): string {
  const parts = [
    ...(set.any2xx ? ['2xx (accepted)'] : []),
    ...(set.statuses ?? []).map(String),
    ...(set.any4xx ? ['4xx'] : []),
  ];
  if (parts.length <= 1) return parts[0] ?? 'nothing';
  return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

export type TermId = 'outcome' | 'status' | 'repeat' | 'new' | 'acknowledgment' | 'json-label' | 'retry-after';
export type TermLevel = 'must' | 'should';

/** One thing an answer (or an event) must or should be, with the clauses it rests on. */
export interface Term<Id extends string = TermId, Input = ModelAnswer> {
  id: Id;
  level: TermLevel;
  clauses: readonly string[];
  expected: string;
  /** The breach in words, or undefined when the answer keeps the term. Terms of a 2xx apply only to a 2xx. */
  breach(answer: Input): string | undefined;
  /**
   * Why the term cannot be judged on this answer although it is not breached, when it cannot: a term of a 2xx's
   * body on a body cut at the size cai reads, unless the part read decides it (a body that cannot be a JSON object
   * has no provider_job_id however long it is).
   */
  undecided?(answer: Input): string | undefined;
}

export type Breach = Pick<Term, 'level' | 'clauses' | 'expected'> & { term: TermId; actual: string };

export const is2xx = (answer: Pick<ModelAnswer, 'status'>) =>
  answer.status !== undefined && answer.status >= 200 && answer.status < 300;

function term(
  id: TermId,
  level: TermLevel,
  clauses: readonly string[],
  expected: string,
  breach: Term['breach'],
  decidedOnCutBody?: (answer: ModelAnswer) => boolean,
): Term {
  if (decidedOnCutBody === undefined) return { id, level, clauses, expected, breach };
  const undecided = (answer: ModelAnswer) =>
    is2xx(answer) && answer.bodyTruncated && !decidedOnCutBody(answer) ? CUT_BODY_WHY : undefined;
  return { id, level, clauses, expected, breach, undecided };
}

/** Why a term of the body is not judged on a body cut short, unless what was read decides it. */
export const CUT_BODY_WHY =
  'the body is over the size cai reads of an answer, and the part read does not decide it: not judged';

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The first byte of a body past JSON's whitespace, or undefined when the part read is all whitespace. */
function firstByte(body: Buffer): number | undefined {
  for (const byte of body) if (!JSON_WHITESPACE.has(byte)) return byte;
  return undefined;
}

/** The part of a cut body read already shows it is no JSON object (so it carries no field of one), however long. */
function cutBodyIsNoObject(answer: ModelAnswer): boolean {
  const first = firstByte(answer.body);
  return first !== undefined && first !== 0x7b;
}

/** A `must` term of a 2xx's body: a cut body decides it only when it cannot be a JSON object. */
function objectTerm(id: TermId, clauses: readonly string[], expected: string, breach: Term['breach']): Term {
  return term(id, 'must', clauses, expected, breach, cutBodyIsNoObject);
}

/** The part of a cut body read already shows it is no JSON value at all. */
function cutBodyIsNoJson(answer: ModelAnswer): boolean {
  const first = firstByte(answer.body);
  return first !== undefined && !/[[{"\-0-9tfn]/.test(String.fromCharCode(first));
}

/**
 * The answer's status in a set. No answer at all is never in one (a cut connection is no refusal). A 429 is always
 * allowed (§7, §8: the request cap is not shown): what it must carry is the Retry-After term's. Expected: `2xx
 * (accepted)` (describeSet says so already), or a refusal and why: `401 (rejected: authentication)`, `any 4xx (rejected)`.
 */
export function outcomeTerm(set: StatusSet, level: TermLevel, clauses: readonly string[], why?: string): Term {
  const expected = allowsAcceptance(set) ? describeSet(set) : `${describeSet(set)} (${why ?? 'rejected'})`;
  return term('outcome', level, clauses, expected, (answer) => {
    if (answer.status === 429 || inSet(set, answer.status)) return undefined;
    return answer.status === undefined ? `no answer (${answer.error ?? 'the connection ended'})` : `${answer.status}`;
  });
}

/** The exact status of an acceptance (§4.1, §4.2: 202). */
export function statusTerm(status: number, level: TermLevel, clauses: readonly string[]): Term {
  return term('status', level, clauses, String(status), (answer) =>
    !is2xx(answer) || answer.status === status ? undefined : `${answer.status}`,
  );
}

/** The body of a 2xx read as a JSON object, when it is one. */
function jsonObjectOf(answer: ModelAnswer): Record<string, unknown> | undefined {
  return answer.bodyTruncated ? undefined : objectOf(answer.body);
}

/** §2.13: 202 with `ok: true` and `duplicate: true`, in a body read whole. */
export function isDuplicateAnswer(answer: ModelAnswer): boolean {
  return !answer.bodyTruncated && isDuplicateAck(answer);
}

/** A 2xx whose body claims the event a duplicate (`duplicate: true`, whatever the rest). */
export function claimsDuplicate(answer: ModelAnswer): boolean {
  return is2xx(answer) && jsonObjectOf(answer)?.duplicate === true;
}

/** The provider_job_id of an acknowledgment, as sent (any JSON value). */
export function providerJobIdOf(answer: ModelAnswer): unknown {
  return jsonObjectOf(answer)?.provider_job_id;
}

const excerpt = (answer: ModelAnswer) => {
  const text = answer.body.toString('utf8').replace(/\s+/g, ' ').trim();
  return text === ''
    ? `${answer.status} (empty body)`
    : `${answer.status} ${text.length > 120 ? `${text.slice(0, 120)}…` : text}`;
};

/** B, §2.13, §6.1: a repeat is answered 202 `{"ok":true,"duplicate":true}`. */
export function duplicateTerm(clauses: readonly string[]): Term {
  const expected = '202 {"ok":true,"duplicate":true}';
  return objectTerm('repeat', clauses, expected, (answer) =>
    !is2xx(answer) || isDuplicateAnswer(answer) || (answer.bodyTruncated && !cutBodyIsNoObject(answer))
      ? undefined
      : `${excerpt(answer)}: not answered as a repeat`,
  );
}

/**
 * A, §2.2: a repeated job is ignored: it gets the acknowledgment of the job's first delivery, the same
 * provider_job_id and the same assigned_number_e164 (§2.3: the number attributes the contact's later messages).
 */
export function sameJobTerm(
  first: { providerJobId?: unknown; assignedNumber?: unknown },
  clauses: readonly string[],
): Term {
  const expected = `2xx with the acknowledgment of the first delivery (provider_job_id ${JSON.stringify(first.providerJobId)}${first.assignedNumber !== undefined ? `, assigned_number_e164 ${JSON.stringify(first.assignedNumber)}` : ''})`;
  return objectTerm('repeat', clauses, expected, (answer) => {
    if (!is2xx(answer)) return undefined;
    if (answer.bodyTruncated)
      return cutBodyIsNoObject(answer) ? `${excerpt(answer)}: no JSON object, so no provider_job_id` : undefined;
    const id = providerJobIdOf(answer);
    if (id !== first.providerJobId) return `provider_job_id ${JSON.stringify(id)}: another job`;
    const number = assignedNumberOf(answer);
    return first.assignedNumber === undefined || number === first.assignedNumber
      ? undefined
      : `assigned_number_e164 ${JSON.stringify(number)}: another acknowledgment`;
  });
}

/**
 * A, §2.2: a repeated job whose first acknowledgment cai could not read (cut at the size cai reads, or with no
 * provider_job_id): what the repeat must carry is unknown, so its answer's body is not judged.
 */
export function unknownFirstJobTerm(clauses: readonly string[]): Term {
  const term: Term = {
    id: 'repeat',
    level: 'must',
    clauses,
    expected: '2xx with the acknowledgment of the first delivery (whose provider_job_id cai could not read)',
    breach: () => undefined,
    undecided: (answer) =>
      is2xx(answer)
        ? "the first delivery's acknowledgment carried no provider_job_id cai could read, so the repeat's cannot be compared with it"
        : undefined,
  };
  return term;
}

/** The assigned_number_e164 of an acknowledgment, as sent (any JSON value). */
export function assignedNumberOf(answer: ModelAnswer): unknown {
  return jsonObjectOf(answer)?.assigned_number_e164;
}

/** B: a first acceptance never claims the event a duplicate (§2.13 is the answer to a repeat, §6.1). */
export function notDuplicateTerm(clauses: readonly string[]): Term {
  return objectTerm('new', clauses, 'an acceptance that does not say duplicate', (answer) =>
    claimsDuplicate(answer) ? `${excerpt(answer)}: answered as a repeat` : undefined,
  );
}

/** A: a new job gets its own provider_job_id, not one another job of the run got (§2.2, §2.3). */
export function newJobTerm(others: ReadonlySet<unknown>, clauses: readonly string[]): Term {
  return objectTerm('new', clauses, 'a provider_job_id of its own', (answer) => {
    if (!is2xx(answer) || answer.bodyTruncated) return undefined;
    const id = providerJobIdOf(answer);
    return id !== undefined && others.has(id)
      ? `provider_job_id ${JSON.stringify(id)}, another job's: answered as a repeat`
      : undefined;
  });
}

/** A, §2.3: the acknowledgment's body: a JSON object with a string provider_job_id and an E.164 assigned_number_e164. */
export function acknowledgmentTerm(clauses: readonly string[]): Term {
  const expected = '{"provider_job_id": string, "assigned_number_e164": E.164}';
  return objectTerm('acknowledgment', clauses, expected, (answer) => {
    if (!is2xx(answer)) return undefined;
    if (answer.bodyTruncated)
      return cutBodyIsNoObject(answer) ? `${excerpt(answer)} — the body is not a JSON object (§2.3)` : undefined;
    // The status and the label are terms of their own: here the body alone.
    const verdict = checkJobAck({
      status: 202,
      headers: { [Headers.contentType]: 'application/json' },
      body: answer.body,
    });
    return verdict.ok ? undefined : `${excerpt(answer)} — ${verdict.problems.join('; ')}`;
  });
}

/**
 * §2, §4.1: a JSON body is labelled application/json, and a body labelled so is JSON. `required`: the answer has a
 * JSON body (the acknowledgment, the duplicate answer), labelled exactly application/json as §4.1 writes it.
 */
export function jsonLabelTerm(
  level: TermLevel,
  clauses: readonly string[],
  { required = false }: { required?: boolean } = {},
): Term {
  const expected = required ? 'Content-Type: application/json' : 'a JSON body labelled Content-Type: application/json';
  return term(
    'json-label',
    level,
    clauses,
    expected,
    (answer) => {
      if (!is2xx(answer) || (answer.body.length === 0 && !required)) return undefined;
      const type = answer.headers[Headers.contentType];
      const shown = type === undefined ? '(no Content-Type)' : JSON.stringify(type);
      // The label alone: decided whatever the length of the body.
      if (required)
        return /^application\/json\s*(;|$)/i.test(type ?? '')
          ? undefined
          : `${answer.status}, Content-Type: ${type ?? '(none)'}`;
      const isJson = answer.bodyTruncated ? (cutBodyIsNoJson(answer) ? false : undefined) : parseJson(answer.body).ok;
      if (isJson === true && !isJsonMediaType(type)) return `a JSON body labelled ${shown}`;
      if (isJson === false && isJsonMediaType(type)) return `labelled ${shown} but not JSON`;
      return undefined;
    },
    required ? undefined : cutBodyIsNoJson,
  );
}

/** §7: a 429 says when to retry, in a Retry-After of seconds or an HTTP-date. */
export function retryAfterTerm(): Term {
  return term('retry-after', 'must', ['§7-7'], '429 with Retry-After: <seconds> or an HTTP-date', (answer) =>
    answer.status !== 429 || isWellFormedRetryAfter(answer.headers[Headers.retryAfter])
      ? undefined
      : `429 with Retry-After: ${answer.headers[Headers.retryAfter] ?? '(missing)'}`,
  );
}

/** The terms an answer breaks, of those asked for (all, by default), at a level (a `must` check reads only musts). */
export function breachesOf(
  terms: readonly Term[],
  answer: ModelAnswer,
  focus: { level?: TermLevel; terms?: readonly TermId[] } = {},
): Breach[] {
  return terms
    .filter(
      (term) =>
        (focus.level === undefined || term.level === focus.level) &&
        (focus.terms === undefined || focus.terms.includes(term.id)),
    )
    .flatMap((term) => {
      const actual = term.breach(answer);
      return actual === undefined
        ? []
        : [{ term: term.id, level: term.level, clauses: term.clauses, expected: term.expected, actual }];
    });
}

/**
 * The terms, of those asked for, that this answer keeps only because its body was cut before they could be
 * decided: a check that rests on one of them is not judged (a verdict never passes without evidence).
 */
export function undecidedTermsOf(
  terms: readonly Term[],
  answer: ModelAnswer,
  focus: { level?: TermLevel; terms?: readonly TermId[] } = {},
): { term: Term; why: string }[] {
  return terms.flatMap((term) => {
    if (focus.level !== undefined && term.level !== focus.level) return [];
    if (focus.terms !== undefined && !focus.terms.includes(term.id)) return [];
    const why = term.breach(answer) === undefined ? term.undecided?.(answer) : undefined;
    return why === undefined ? [] : [{ term, why }];
  });
}

/** §7's statuses of a refusal of each kind (Interface B). */
const REFUSALS: Record<FaultKind, readonly number[]> = {
  authentication: [401],
  header: [400, 401],
  schema: [400],
  'too-large': [413],
};

/** The statuses of a refusal of each kind: §7's on Interface B, any 4xx on A (§4.1 shows none). */
export function refusalStatuses(iface: InterfaceId, kind: FaultKind): StatusSet {
  return interfaceSpec(iface).refusals === 'any-4xx' ? { any4xx: true } : { statuses: REFUSALS[kind] };
}
