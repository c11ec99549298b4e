/**
 * One generated conversation with a receiver, run for real: each step (./receiver-steps.ts) becomes requests, sent
 * through a probe scope of its own (so each request gets the model's expectation in the state the conversation's
 * earlier requests left: probe/scope.ts), and every answer is judged on every `must` term the model gives it. Each
 * breach is put under the relation it breaks (src/spec/model/relations.ts); what each request bore on is counted,
 * so a relation passes only on evidence. A conversation uses ids of its own: runs, replays and shrinks never meet.
 */
import { breachesOf, retryAfterTerm, undecidedTermsOf, type Breach } from '../../spec/model/answers.js';
import { concurrentBreach, type Expectation } from '../../spec/model/receiver.js';
import type { ReceiverRelationId } from '../../spec/model/relations.js';
import { MAX_BODY_BYTES } from '../../spec/constants.js';
import { formatDuration } from '../../duration.js';
import type { Exchange } from '../evidence.js';
import { describeAnswer } from '../evidence.js';
import { eventIdFor, materialise } from '../generate/documents.js';
import { bodyOfSize, compact } from '../probe/bodies.js';
import type { RequestRecipe } from '../probe/recipe.js';
import { ProbeScope } from '../probe/scope.js';
import { pause, type Session } from '../probe/session.js';
import { answerOf, isAccepted, undecidedWhy } from '../probe/verdict.js';
import {
  bodyIn,
  documentName,
  forge,
  FORGERY_TEXT,
  FORM_TEXT,
  malformedBody,
  MALFORMED_TEXT,
  transformed,
  TRANSFORM_TEXT,
} from './receiver-requests.js';
import type { IdChoice, SingleStep, Step } from './receiver-steps.js';

/** Documents of a crowd sent at once (as many as the named checks' concurrent repeats). */
const CROWD_WAVE = 8;

/** A breach of a relation, at one step of a conversation (`step`: the step's 1-based place in it). */
export interface RelationBreach extends Pick<Breach, 'expected' | 'actual' | 'clauses'> {
  relation: ReceiverRelationId;
  step: number;
}

/** One step as it ran: what it sent, in words, and its exchanges. */
export interface StepRecord {
  text: string;
  exchanges: Exchange[];
}

export interface Conversation {
  steps: StepRecord[];
  breaches: RelationBreach[];
  /** Requests that bore on each relation (the evidence a relation's verdict rests on). */
  evidence: Partial<Record<ReceiverRelationId, number>>;
  requests: number;
}

/** An event_id the conversation has used, with the step that first used it. */
interface Known {
  id: string;
  step: number;
}

/** Thrown to end a conversation at a breach of a relation being hunted (a fast-check property fails on it). */
export class RelationBroken extends Error {
  constructor(readonly breach: RelationBreach) {
    super(`${breach.relation} broken at step ${breach.step}: expected ${breach.expected}; actual ${breach.actual}`);
  }
}

export interface ConversationOptions {
  session: Session;
  /** Names the conversation's ids (unique within the run). */
  name: string;
  /** The valid document's free-text field, for a body over the limit. */
  textField: string;
  /** Stop at the first breach of one of these relations (shrinking hunts one). */
  stopAt?: ReadonlySet<ReceiverRelationId>;
  /** The exploring's deadline (epoch ms): a crowd sends no wave past it. */
  until?: number;
}

export class ConversationRunner {
  readonly scope: ProbeScope;
  readonly result: Conversation = { steps: [], breaches: [], evidence: {}, requests: 0 };
  private readonly known: Known[] = [];
  /** Event_ids a refusal left behind, never accepted since: a valid delivery of one bears on "no trace". */
  private readonly refused = new Set<string>();
  /** Event_ids every run sends alike (object built-ins and the ids made from them): the receiver may know them. */
  private readonly shared = new Set<string>();

  constructor(private readonly options: ConversationOptions) {
    this.scope = new ProbeScope(options.session, { id: options.name });
  }

  async run(step: Step): Promise<void> {
    const place = this.result.steps.length + 1;
    const record: StepRecord = { text: '', exchanges: [] };
    this.result.steps.push(record);
    if (step.kind === 'pause') {
      record.text = `a pause of ${formatDuration(step.ms)}`;
      await pause(step.ms, this.options.session.signal);
      return;
    }
    if (step.kind === 'crowd') {
      record.text = `${step.count} other new documents, ${CROWD_WAVE} at once`;
      const past = () => this.options.session.signal.aborted || Date.now() >= (this.options.until ?? Infinity);
      for (let sent = 0; sent < step.count && !past(); sent += CROWD_WAVE) {
        const wave = Array.from({ length: Math.min(CROWD_WAVE, step.count - sent) }, () => ({
          body: compact(materialise(step.draft, this.scope.eventId())),
        }));
        const exchanges = await this.scope.sendAll(wave);
        record.exchanges.push(
          ...exchanges
            .filter(
              (exchange) =>
                breachesOf((exchange.expected as Expectation).terms, answerOf(exchange), { level: 'must' }).length > 0,
            )
            .slice(0, 2),
        );
        this.result.requests += exchanges.length;
        this.judge(place, exchanges, { learn: false });
      }
      return;
    }
    const built = step.kind === 'together' ? step.steps.map((each) => this.build(each)) : [this.build(step)];
    const recipes =
      step.kind === 'burst'
        ? Array.from({ length: step.copies }, () => (built[0] as Built).recipe)
        : built.map((each) => each.recipe);
    record.text =
      step.kind === 'burst'
        ? `${step.copies} copies at once of: ${(built[0] as Built).text}`
        : step.kind === 'together'
          ? `at once: ${built.map((each) => each.text).join('; ')}`
          : (built[0] as Built).text;
    const exchanges =
      recipes.length === 1 ? [await this.scope.send(recipes[0] as RequestRecipe)] : await this.scope.sendAll(recipes);
    record.exchanges = exchanges;
    this.result.requests += exchanges.length;
    this.judge(place, exchanges);
  }

  /** Every answer on every `must` term, each breach under its relation; the evidence counted; the ids learned. */
  private judge(place: number, exchanges: readonly Exchange[], options: { learn?: boolean } = {}): void {
    const breaches: RelationBreach[] = [];
    for (const exchange of exchanges) {
      const expected = exchange.expected as Expectation;
      const id = expected.facts.eventId;
      const wasRefused = id !== undefined && this.refused.has(id);
      // A body cut before a term of it was decided is no evidence for that term's relation.
      const unjudged = new Set(
        undecidedTermsOf(expected.terms, answerOf(exchange), { level: 'must' }).map(({ term }) =>
          relationOf({ ...term, term: term.id, actual: '' }, expected, wasRefused),
        ),
      );
      for (const relation of bearsOn(expected, wasRefused))
        if (!unjudged.has(relation)) this.result.evidence[relation] = (this.result.evidence[relation] ?? 0) + 1;
      if (undecidedWhy(exchange) === undefined) {
        for (const breach of breachesOf(expected.terms, answerOf(exchange), { level: 'must' }))
          breaches.push(toRelation(breach, expected, wasRefused, place, exchange));
      }
      for (const limited of exchange.honoured429 ?? []) {
        const breach = breachesOf([retryAfterTerm()], {
          status: 429,
          headers: limited.retryAfter !== undefined ? { 'retry-after': limited.retryAfter } : {},
          body: Buffer.alloc(0),
        })[0];
        if (breach) breaches.push(toRelation(breach, expected, wasRefused, place, exchange));
      }
      if (options.learn !== false) this.learn(id, expected, exchange, place);
    }
    for (const group of sameIdGroups(exchanges)) {
      const breach = concurrentBreach(
        this.scope.session.config.interface,
        group.map((exchange) => exchange.expected as Expectation),
        group.map(answerOf),
      );
      if (breach !== undefined)
        breaches.push({
          relation: 'repeat',
          step: place,
          expected: 'exactly one new of the deliveries of one event_id at once (one acknowledgment)',
          actual: breach,
          clauses: ['§6.1-2', '§6.1-3', '§2.2-5'],
        });
    }
    this.result.breaches.push(...breaches);
    const hunted = breaches.find((breach) => this.options.stopAt?.has(breach.relation));
    if (hunted) throw new RelationBroken(hunted);
  }

  private learn(id: string | undefined, expected: Expectation, exchange: Exchange, place: number): void {
    if (id === undefined) return;
    if (!this.known.some((entry) => entry.id === id)) this.known.push({ id, step: place });
    if (isAccepted(exchange)) this.refused.delete(id);
    else if (expected.standing === 'refused' && exchange.status !== undefined) this.refused.add(id);
  }

  private idOf(choice: IdChoice): { id: string; said: string } {
    if (choice.kind === 'builtin') {
      this.mayBeKnown(choice.name);
      return {
        id: choice.name,
        said: `the event_id ${JSON.stringify(choice.name)} (a name objects have before anything is stored)`,
      };
    }
    // A slot below 0 counts from the last id used (the fixed conversations name "the one just refused" so).
    const place =
      choice.kind === 'fresh'
        ? 0
        : choice.slot < 0
          ? this.known.length + choice.slot
          : choice.slot % Math.max(1, this.known.length);
    const earlier = choice.kind !== 'fresh' ? this.known[place] : undefined;
    if (choice.kind === 'fresh' || earlier === undefined) {
      const fresh = this.scope.eventId();
      return { id: choice.kind === 'fresh' ? eventIdFor(fresh, choice.shape) : fresh, said: 'a new event_id' };
    }
    if (choice.kind === 'earlier') return { id: earlier.id, said: `the event_id of step ${earlier.step}` };
    const id = transformed(earlier.id, choice.transform, this.scope.eventId());
    // An id made from a shared one is as shared: another run (a reproduction's, a shrink's) made the same one.
    if (this.shared.has(earlier.id)) this.mayBeKnown(id);
    return { id, said: `a new event_id made from step ${earlier.step}'s (${TRANSFORM_TEXT[choice.transform]})` };
  }

  private mayBeKnown(id: string): void {
    this.shared.add(id);
    this.scope.model.mayKnow(id, this.scope.session.config.identity);
  }

  private build(step: SingleStep): Built {
    const { id, said } = this.idOf(step.id);
    const doc = step.draft.id ? { ...step.draft.doc, event_id: id } : materialise(step.draft, id);
    const what = documentName(doc);
    switch (step.kind) {
      case 'send': {
        const { wire } = step;
        const recipe: RequestRecipe = {
          body: bodyIn(doc, wire.form, this.options.textField),
          ...(wire.chunked
            ? { chunked: true, ...(wire.wholeCharacters ? { chunkCut: 'between-characters' as const } : {}) }
            : {}),
          ...(wire.charset ? { contentType: 'application/json; charset=utf-8' } : {}),
          ...(wire.secret > 0 ? { signature: { kind: 'rotation', index: wire.secret } } : {}),
        };
        const how = [
          wire.form !== 'compact' ? FORM_TEXT[wire.form] : '',
          wire.chunked ? 'chunked' : '',
          wire.charset ? 'charset=utf-8' : '',
          wire.secret > 0 && this.scope.session.config.secrets.length > 1
            ? `signed with secret ${(wire.secret % this.scope.session.config.secrets.length) + 1}`
            : '',
        ].filter(Boolean);
        return { recipe, text: `${what}, ${said}${how.length ? ` (${how.join(', ')})` : ''}` };
      }
      case 'invalid': {
        // A change of the event_id itself keeps the document's own; any other change carries the chosen one.
        const body = compact(step.draft.id ? doc : materialise(step.draft, id));
        return {
          recipe: { body },
          text: `${what.replace(/^an? /, 'an invalid ')} (${step.draft.mutation ?? 'changed'}), ${step.draft.id ? said : 'its own event_id'}`,
        };
      }
      case 'malformed':
        return {
          recipe: { body: malformedBody(compact(doc), step.how, step.at) },
          text: `${what}, ${said}, its body ${MALFORMED_TEXT[step.how]}`,
        };
      case 'forged':
        return {
          recipe: { body: compact(doc), ...forge(step.forgery, this.scope, doc) },
          text: `${what}, ${said}, ${FORGERY_TEXT[step.forgery]}`,
        };
      case 'oversize': {
        const size = MAX_BODY_BYTES + 1 + (id.length % 64);
        // Over the limit in bytes as sent, whatever makes it so: a long text, or white space around a small document.
        const body =
          step.padding === 'whitespace'
            ? Buffer.concat([compact(doc), Buffer.alloc(Math.max(0, size - compact(doc).length), ' ')])
            : bodyOfSize(doc, this.options.textField, size);
        return {
          recipe: { body },
          text: `${what} of ${body.length} bytes (over 256 KB${step.padding === 'whitespace' ? ', most of them white space after the JSON' : ''}), ${said}`,
        };
      }
      case 'burst':
        return { recipe: { body: compact(doc) }, text: `${what}, ${said}` };
    }
  }
}

interface Built {
  recipe: RequestRecipe;
  text: string;
}

/** What a refusal was for, as relations, the one a wrong answer to it breaks first (none: the document's schema). */
function refusalRelations(expected: Expectation): ReceiverRelationId[] {
  const kinds = new Set(expected.facts.faults.map((fault) => fault.kind));
  return [
    ...(kinds.has('authentication') || kinds.has('header') ? (['authentication'] as const) : []),
    ...(kinds.has('too-large') ? (['size'] as const) : []),
    ...(kinds.has('schema') ? (['schema'] as const) : []),
  ];
}

/** The relations a request bore on: what its answer is evidence of. */
function bearsOn(expected: Expectation, wasRefused: boolean): ReceiverRelationId[] {
  if (expected.standing === 'refused') return ['answer', ...refusalRelations(expected)];
  const relations: ReceiverRelationId[] = ['answer'];
  if (expected.facts.open.some((point) => point.id === 'job-schema')) relations.push('schema');
  if (expected.standing === 'repeat') relations.push('repeat');
  if (expected.standing === 'new') relations.push('accept', wasRefused ? 'no-trace' : 'distinct');
  return relations;
}

/** The relation a breached term belongs to, for a request where it stood. */
function toRelation(
  breach: Breach,
  expected: Expectation,
  wasRefused: boolean,
  step: number,
  exchange: Exchange,
): RelationBreach {
  const relation = relationOf(breach, expected, wasRefused);
  const actual = breach.term === 'outcome' ? describeAnswer(exchange) : breach.actual;
  return { relation, step, expected: breach.expected, actual, clauses: breach.clauses };
}

function relationOf(breach: Breach, expected: Expectation, wasRefused: boolean): ReceiverRelationId {
  if (breach.term === 'repeat') return 'repeat';
  if (breach.term === 'new') return wasRefused ? 'no-trace' : 'distinct';
  if (breach.term !== 'outcome') return 'answer';
  if (expected.standing === 'refused') return refusalRelations(expected)[0] ?? 'schema';
  if (expected.facts.open.some((point) => point.id === 'job-schema')) return 'schema';
  return expected.standing === 'repeat' ? 'repeat' : 'accept';
}

/** Exchanges sent at once that carry one event_id, grouped (groups of two or more). */
function sameIdGroups(exchanges: readonly Exchange[]): Exchange[][] {
  const groups = new Map<string, Exchange[]>();
  for (const exchange of exchanges) {
    const id = exchange.expected?.facts.eventId;
    if (id !== undefined) groups.set(id, [...(groups.get(id) ?? []), exchange]);
  }
  return [...groups.values()].filter((group) => group.length > 1);
}
