/**
 * The receiver of either interface as an executable model: its state is what it has accepted (Interface B: the
 * event_ids per provider, §6.1; Interface A: the jobs by event_id with their acknowledgment, §2.2, §2.3), and for any
 * request in any state it says which answers the spec allows (`expect`), then learns what the answer did to the
 * state (`observe`). Every expectation of the receiver checks, named or generated, is asked of it: the checks keep
 * scenarios, never expected answers of their own.
 *
 * A request cai cannot tell the fate of (no answer came; one of several sent at once) leaves its event_id "maybe"
 * accepted: a later repeat may then be answered either way. A refused request leaves no trace (§6.1, §7).
 */
import type { InterfaceId } from '../constants.js';
import { interfaceSpec } from '../interfaces.js';
import {
  acknowledgmentTerm,
  allowsAcceptance,
  assignedNumberOf,
  claimsDuplicate,
  duplicateTerm,
  inSet,
  isDuplicateAnswer,
  is2xx,
  jsonLabelTerm,
  newJobTerm,
  notDuplicateTerm,
  outcomeTerm,
  providerJobIdOf,
  refusalStatuses,
  retryAfterTerm,
  sameJobTerm,
  statusTerm,
  unknownFirstJobTerm,
  unionOf,
  type ModelAnswer,
  type StatusSet,
  type Term,
} from './answers.js';
import type { FaultKind, RequestFacts } from './facts.js';
import { OPEN_POINTS, type OpenPointRule } from './latitude.js';

/** What the model knows of one event_id (of one provider on B). */
interface Known {
  certainty: 'accepted' | 'maybe';
  /** A: the acknowledgment's provider_job_id and assigned_number_e164, when the answer carried them. */
  providerJobId?: unknown;
  assignedNumber?: unknown;
}

/** Where a request stands against the state: the fate the spec gives it. */
export type Standing = 'refused' | 'new' | 'repeat' | 'new-or-repeat' | 'either';

export interface Expectation {
  facts: RequestFacts;
  standing: Standing;
  /** The statuses allowed at the level of a `must`, and at the level of a `should` (the answer the suite prefers). */
  must: StatusSet;
  should: StatusSet;
  /** Every term the answer is judged by, `must` and `should`. */
  terms: Term[];
  /** A new event_id sent several times at once: 'new-or-repeat' only because none of them comes first. */
  together?: true;
}

const ACCEPT: StatusSet = { any2xx: true };

/** A refusal's reason, as an expected line says it. */
const FAULT_WORDS: Record<FaultKind, string> = {
  authentication: 'rejected: authentication',
  header: 'rejected: a header',
  schema: 'rejected: invalid schema',
  'too-large': 'body too large',
};

/** The clauses of a receiver's rules, by interface: the duplicate answer (§2.13, §6.1 on B; §2.2 on A), acceptance. */
const CLAUSES = {
  B: {
    repeat: ['§6.1-2', '§6.1-3', '§2.13-1'],
    accept: ['§4.2-1', '§6.5-1'],
    status: ['§4.2-5'],
    label: ['§2-3'],
    refusal: ['§7-1', '§7-3', '§7-5'],
  },
  A: {
    repeat: ['§2.2-5'],
    accept: ['§4.1-1', '§4.1-4'],
    status: ['§4.1-4'],
    label: ['§4.1-4', '§2.3-1'],
    refusal: ['§4.1-6'],
  },
} as const satisfies Record<InterfaceId, Record<string, readonly string[]>>;

export class ReceiverModel {
  readonly interface: InterfaceId;
  private readonly known = new Map<string, Known>();
  /** Open points the receiver has shown its one choice on: it accepted a request that had them (OpenPointRule.oneChoice). */
  private readonly takes = new Set<string>();

  constructor(iface: InterfaceId) {
    this.interface = iface;
  }

  /** The answers the spec allows to a request with these facts, in the present state. */
  expect(facts: RequestFacts): Expectation {
    const rules = facts.open
      .filter((point) => !this.takes.has(point.id))
      .map((point) => OPEN_POINTS[point.id] as OpenPointRule);
    // §4.1 shows the provider no error statuses: on A every refusal is any 4xx.
    const any4xx = interfaceSpec(this.interface).refusals === 'any-4xx';
    const refusal = (rule: OpenPointRule): StatusSet =>
      any4xx || rule.mayRefuseWith === 'any-4xx' ? { any4xx: true } : { statuses: rule.mayRefuseWith ?? [] };
    const faultRefusals = unionOf(...facts.faults.map((fault) => refusalStatuses(this.interface, fault.kind)));
    const openRefusals = unionOf(...rules.filter((rule) => rule.mayRefuseWith !== undefined).map(refusal));
    const clauses = CLAUSES[this.interface];
    if (facts.faults.length > 0) {
      const must = unionOf(faultRefusals, openRefusals);
      const why = [...new Set(facts.faults.map((fault) => FAULT_WORDS[fault.kind]))].join(', ');
      const cited = [...new Set([...facts.faults.flatMap((fault) => fault.clauses), ...clauses.refusal])];
      const terms = [outcomeTerm(must, 'must', cited, why), retryAfterTerm()];
      return { facts, standing: 'refused', must, should: must, terms };
    }
    const must = rules.some((rule) => rule.mayRefuseWith !== undefined) ? unionOf(ACCEPT, openRefusals) : ACCEPT;
    const refusePreferred = rules.filter((rule) => rule.should === 'refuse');
    const should = refusePreferred.length > 0 ? unionOf(...refusePreferred.map(refusal)) : ACCEPT;
    const standing = this.standingOf(facts);
    const terms: Term[] = [outcomeTerm(must, 'must', clauses.accept), retryAfterTerm()];
    if (!sameSet(must, should)) terms.push(outcomeTerm(should, 'should', clauses.accept));
    terms.push(...this.acceptanceTerms(facts, standing));
    return {
      facts,
      standing: rules.some((rule) => rule.mayAccept) && standing === 'new' ? 'either' : standing,
      must,
      should,
      terms,
    };
  }

  /** What an acceptance must carry, by where the event_id stands: a new one, a repeat, or one cai cannot tell. */
  private acceptanceTerms(facts: RequestFacts, standing: Standing): Term[] {
    const clauses = CLAUSES[this.interface];
    const jobs = interfaceSpec(this.interface).document === 'job';
    const known = this.knownOf(facts);
    const terms = jobs
      ? [statusTerm(202, 'must', clauses.status), acknowledgmentTerm(['§2.3-1', '§2.3-2'])]
      : [statusTerm(202, 'should', clauses.status)];
    // A body the model cannot read an event_id from (not JSON) that a receiver takes anyway: which event it read is
    // the receiver's guess, so neither its newness nor its being a repeat is judged.
    if (facts.eventId === undefined) return terms;
    if (jobs) {
      terms.push(jsonLabelTerm('must', clauses.label, { required: true }));
      if (standing === 'repeat')
        return [
          ...terms,
          known?.providerJobId !== undefined ? sameJobTerm(known, clauses.repeat) : unknownFirstJobTerm(clauses.repeat),
        ];
      if (standing === 'new') return [...terms, newJobTerm(this.otherJobIds(facts), clauses.repeat)];
      return terms;
    }
    if (standing === 'repeat')
      return [...terms, duplicateTerm(clauses.repeat), jsonLabelTerm('must', clauses.label, { required: true })];
    if (standing === 'new') return [...terms, notDuplicateTerm(clauses.repeat), jsonLabelTerm('should', clauses.label)];
    return [...terms, jsonLabelTerm('should', clauses.label)];
  }

  /**
   * The state after the answer: an acceptance records the event_id (a first one, with its provider_job_id on A); no
   * answer leaves it maybe accepted; a refusal leaves no trace.
   */
  observe(expectation: Expectation, answer: ModelAnswer): void {
    if (answer.status !== undefined && inSet(ACCEPT, answer.status)) {
      for (const point of expectation.facts.open)
        if ((OPEN_POINTS[point.id] as OpenPointRule).oneChoice) this.takes.add(point.id);
    }
    const key = this.keyOf(expectation.facts);
    if (key === undefined) return;
    const before = this.known.get(key);
    if (answer.status === undefined) {
      if (before?.certainty !== 'accepted' && allowsAcceptance(expectation.must))
        this.known.set(key, { ...before, certainty: 'maybe' });
      return;
    }
    // An acceptance the rules did not allow is a breach of them, reported where it happened; the receiver has the
    // event_id all the same, and the model follows it, so that one fault is not counted again at every later step.
    if (!inSet(ACCEPT, answer.status)) return;
    if (before?.certainty === 'accepted') return;
    // Answered as a repeat while the model was not sure: it was accepted before; its acknowledgment is this one.
    const providerJobId = providerJobIdOf(answer);
    const ack =
      providerJobId !== undefined
        ? { providerJobId, assignedNumber: assignedNumberOf(answer) }
        : { providerJobId: before?.providerJobId, assignedNumber: before?.assignedNumber };
    this.known.set(key, { certainty: 'accepted', ...ack });
  }

  /**
   * Requests sent at once cannot be ordered: each may be the first. Their expectations say "new or repeat", and the
   * group is judged together (`concurrentBreach`): of concurrent deliveries of one new event_id, exactly one is new (B),
   * or all get one provider_job_id (A).
   */
  expectTogether(facts: readonly RequestFacts[]): Expectation[] {
    const keys = facts.map((each) => this.keyOf(each));
    const shared = (key: string | undefined) => key !== undefined && keys.filter((other) => other === key).length > 1;
    return facts.map((each, index) => {
      const expectation = this.expect(each);
      return expectation.standing === 'new' && shared(keys[index])
        ? {
            ...expectation,
            standing: 'new-or-repeat',
            terms: expectation.terms.filter((term) => term.id !== 'new'),
            together: true,
          }
        : expectation;
    });
  }

  /**
   * An event_id the receiver may have had before cai's requests (a name another run sent too, or one a receiver's
   * store holds from the start): until the receiver answers it, a repeat and a new acceptance are both allowed.
   */
  mayKnow(eventId: string, identity: string | undefined): void {
    const key = this.keyFor(eventId, identity);
    if (!this.known.has(key)) this.known.set(key, { certainty: 'maybe' });
  }

  /** Whether an event_id has been accepted (or may have been), for a generator choosing what to repeat. */
  knownIds(): string[] {
    return [...this.known.keys()].map((key) => key.slice(key.indexOf('\u0000') + 1));
  }

  private standingOf(facts: RequestFacts): Standing {
    const known = this.knownOf(facts);
    if (known === undefined) return 'new';
    return known.certainty === 'accepted' ? 'repeat' : 'new-or-repeat';
  }

  private knownOf(facts: RequestFacts): Known | undefined {
    const key = this.keyOf(facts);
    return key === undefined ? undefined : this.known.get(key);
  }

  /** B: per provider (§5.6 names the credential); A: one platform. */
  private keyOf(facts: RequestFacts): string | undefined {
    return facts.eventId === undefined ? undefined : this.keyFor(facts.eventId, facts.identity);
  }

  private keyFor(eventId: string, identity: string | undefined): string {
    const scope = interfaceSpec(this.interface).identityHeader === 'x-cai-provider' ? (identity ?? '') : '';
    return `${scope}\u0000${eventId}`;
  }

  private otherJobIds(facts: RequestFacts): Set<unknown> {
    const own = this.keyOf(facts);
    return new Set(
      [...this.known.entries()]
        .filter(([key, known]) => key !== own && known.providerJobId !== undefined)
        .map(([, known]) => known.providerJobId),
    );
  }
}

function sameSet(a: StatusSet, b: StatusSet): boolean {
  return JSON.stringify(unionOf(a)) === JSON.stringify(unionOf(b));
}

/** The breach of a group of concurrent deliveries of one event_id (ReceiverModel.expectTogether), or undefined. */
export function concurrentBreach(
  iface: InterfaceId,
  expectations: readonly Expectation[],
  answers: readonly ModelAnswer[],
): string | undefined {
  const accepted = answers.filter((answer, index) => expectations[index]?.standing !== 'refused' && is2xx(answer));
  if (accepted.length === 0) return undefined;
  if (interfaceSpec(iface).document === 'job') {
    const ids = new Set(accepted.map((answer) => JSON.stringify(providerJobIdOf(answer))));
    return ids.size > 1
      ? `${ids.size} different provider_job_ids for ${answers.length} deliveries of one job at once`
      : undefined;
  }
  const fresh = accepted.filter((answer) => !claimsDuplicate(answer)).length;
  const wasKnown = expectations.some((expectation) => expectation.standing === 'repeat');
  if (wasKnown)
    return fresh > 0
      ? `${fresh} of ${answers.length} deliveries of an accepted event_id not answered as a repeat`
      : undefined;
  if (fresh > 1)
    return `${fresh} of ${answers.length} deliveries of one event_id at once not answered as a repeat: more than one taken as new`;
  // Only of an event_id surely new: one the receiver may have had before (maybe accepted) may be a repeat every time.
  const surelyNew = expectations.every(
    (expectation) => expectation.standing === 'refused' || expectation.together === true,
  );
  return surelyNew && fresh === 0 && accepted.every(isDuplicateAnswer)
    ? `all ${answers.length} deliveries of a new event_id answered as repeats: none recorded`
    : undefined;
}
