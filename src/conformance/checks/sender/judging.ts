/**
 * How a sender check asks the model (src/spec/model/sender.ts, sender-attempts.ts) for its verdict. The model finds,
 * in every delivery of every stage the check reads, what each answer led to, each retry and each pair of attempts
 * (findings: kept, broken or undecided), and judges every attempt on its own terms; a check keeps the findings of its
 * term and its answers. It passes only on findings kept, fails on any broken, and is not judged without them, or when
 * cai's own lag left every one undecided (the run plays such a scenario again first: run-sender.ts).
 */
import {
  deliveriesOf,
  documentsIn,
  judgeDelivery,
  judgeIdentity,
  signingLagOf,
  type Finding,
} from '../../../spec/model/sender.js';
import type { AttemptTerm } from '../../../spec/model/sender-attempts.js';
import { failed, notJudged, passed, type Outcome } from '../../check.js';
import {
  allAttempts,
  label,
  type Attempt,
  type SenderEvidence,
  type StageRecord,
  type UnrepeatedBreach,
} from '../../evidence.js';
import { GROWTH_BREACH_PLAYS } from '../../../spec/model/sender-latitude.js';
import { plural } from '../../../text.js';

export type SenderFinding = Finding<Attempt>;

const SHOWN_PROBLEMS = 3;

const cache = new WeakMap<readonly StageRecord[], SenderFinding[]>();

/**
 * The terms of the model whose verdict is a measure of time, or rests on which came first (an attempt, or the answer
 * that ended its delivery): cai's own lag, or the sender's, may leave them open.
 */
export const TIMED_TERMS = new Set(['growth', 'retry-after', 'fresh', 'stops']);

/**
 * The terms whose breach a sender held up by a busy machine fakes, unseen by cai: held between drawing a wait and
 * sending, its jittered waits look steady (growth); held between signing and sending, a fresh signature arrives
 * seconds old and looks sent again (fresh). A hold is a moment: a sender that breaks the term every time it is judged
 * on it, as often as playsToConfirm asks, is consistent, and that is the verdict; one judged on it fewer times, or
 * that also keeps it, may have been held where it broke it, and its breach is confirmed by plays again before it
 * counts.
 */
const LAG_FAKED_TERMS = new Set(['growth', 'fresh']);

/**
 * How many plays in a row must break a term before the breach counts: a jittered backoff draws waits that hold
 * steady now and then (GROWTH_BREACH_PLAYS), a hold of the sender fakes either term once.
 */
export function playsToConfirm(term: string): number {
  return term === 'growth' ? GROWTH_BREACH_PLAYS : 2;
}

/** The terms a held-up sender fakes whose breaches in `run` are not yet consistent: kept too, or judged too few times. */
function breachesToConfirm(run: SenderEvidence): string[] {
  return [...LAG_FAKED_TERMS].filter((term) => {
    const verdicts = findingsOf(run).flatMap((finding) => (finding.term === term ? [finding.verdict] : []));
    const broken = verdicts.filter((verdict) => verdict === 'broken').length;
    return broken > 0 && (verdicts.includes('kept') || broken < playsToConfirm(term));
  });
}

const brokeTerm = (evidence: SenderEvidence, term: string) =>
  findingsOf(evidence).some((finding) => finding.verdict === 'broken' && finding.term === term);

/**
 * Whether a scenario is worth playing again, given its plays so far (the last is the one judged): cai's own lag left
 * a timing verdict of the last open, or every play broke a term a held-up sender fakes, not consistently across `run`
 * (the first plays of the whole run; by default the first play alone), fewer times than playsToConfirm asks.
 */
export function worthPlayingAgain(plays: readonly SenderEvidence[], run = plays[0]): boolean {
  const current = plays.at(-1);
  if (current === undefined || run === undefined) return false;
  if (findingsOf(current).some((finding) => finding.verdict === 'undecided' && TIMED_TERMS.has(finding.term)))
    return true;
  return breachesToConfirm(run).some(
    (term) => plays.length < playsToConfirm(term) && plays.every((play) => brokeTerm(play, term)),
  );
}

/**
 * The terms a held-up sender or a jittered backoff's draw fakes that the last of a scenario's plays broke and an
 * earlier play did not (it kept the term, or left it open): a breach not every play shows is no consistent one.
 */
export function unconfirmedBreaches(plays: readonly SenderEvidence[]): string[] {
  const last = plays.at(-1);
  if (last === undefined) return [];
  return [...LAG_FAKED_TERMS].filter(
    (term) => brokeTerm(last, term) && plays.slice(0, -1).some((play) => !brokeTerm(play, term)),
  );
}

/** The breaches of `first` on the terms a held-up sender fakes that `replay` did not break again. */
export function unrepeatedBreaches(first: SenderEvidence, replay: SenderEvidence): UnrepeatedBreach[] {
  return findingsOf(first)
    .filter(
      (finding) =>
        finding.verdict === 'broken' && LAG_FAKED_TERMS.has(finding.term) && !brokeTerm(replay, finding.term),
    )
    .map((finding) => ({ term: finding.term, actual: `${label(finding.attempt)}: ${finding.actual ?? ''}` }));
}

/** Every finding of the model on the deliveries of the evidence, and on its documents' identities across them. */
export function findingsOf(evidence: SenderEvidence): SenderFinding[] {
  const known = cache.get(evidence.records);
  if (known) return known;
  const documentsPerRun = evidence.documentsPerRun ?? documentsPerRunOf(evidence.records);
  const deliveries = evidence.records.map((record) => ({
    record,
    deliveries: deliveriesOf(record.attempts, documentsPerRun),
  }));
  const all = deliveries.flatMap((entry) => entry.deliveries);
  const signingLagMs = signingLagOf(all);
  const findings = [
    ...deliveries.flatMap(({ record, deliveries: list }) =>
      list.flatMap((delivery) =>
        judgeDelivery(delivery, {
          interface: evidence.interface,
          waitMs: evidence.waitMs,
          complete: !record.interrupted,
          endedMono: record.endedMono ?? Number.POSITIVE_INFINITY,
          signingLagMs,
          ...(evidence.senderInProcess ? { senderInProcess: true } : {}),
        }).map((finding) => leftOpen(finding, record)),
      ),
    ),
    ...judgeIdentity(evidence.interface, allAttempts(evidence), all),
  ];
  cache.set(evidence.records, findings);
  return findings;
}

/** A breach the play broke and an earlier play of its scenario did not (unconfirmedBreaches): undecided. */
function leftOpen(finding: SenderFinding, record: StageRecord): SenderFinding {
  if (finding.verdict !== 'broken' || !record.unconfirmed?.includes(finding.term)) return finding;
  return {
    ...finding,
    verdict: 'undecided',
    actual: `${finding.actual ?? ''}, but an earlier play of the scenario did not show it (a jittered backoff's draw, or a sender held up by a busy machine), which leaves it open`,
  };
}

/**
 * The documents a sender sends in one run: the fewest any of its stages brought (a stage renaming some has more).
 * Unknown from one stage alone: it is compared with itself.
 */
export function documentsPerRunOf(records: readonly StageRecord[]): number | undefined {
  const counts = records
    .filter((record) => record.attempts.length > 0 && !record.interrupted)
    .map((record) => documentsIn(record.attempts));
  return counts.length > 1 ? Math.min(...counts) : undefined;
}

/** The model's judgement of every attempt (late ones too: a stale signature on a late retry is still one) on one term. */
export function attemptFindings(evidence: SenderEvidence, term: AttemptTerm): SenderFinding[] {
  return evidence.records.flatMap((record) =>
    record.attempts.flatMap((attempt) => {
      const actual = term.judge(attempt, {
        identity: evidence.identity,
        secrets: evidence.secrets,
        expectedPath: record.expectedPath,
      });
      return actual === null ? [] : [findingOn(attempt, term, actual)];
    }),
  );
}

/** The finding of one attempt judged on its own on `term`: kept, or broken as `actual` says. */
export function findingOn(
  attempt: Attempt,
  term: Pick<AttemptTerm, 'id' | 'relation' | 'level' | 'clauses'>,
  actual: string | undefined,
): SenderFinding {
  return {
    term: term.id,
    relation: term.relation,
    level: term.level,
    clauses: term.clauses,
    verdict: actual === undefined ? 'kept' : 'broken',
    attempt,
    ...(actual !== undefined ? { actual } : {}),
    shown: [attempt],
  };
}

export interface VerdictWords {
  expected: string;
  /** What one finding is about: `attempt`, `delivery`, `retry`, `pair of attempts`. */
  unit: [one: string, many: string];
  /** Why there is nothing to judge. */
  unjudged: string;
  /** One line of a passed verdict, instead of `N attempts, all right`. */
  passedText?: (kept: readonly SenderFinding[]) => string;
}

/**
 * The verdict on a check's findings: failed with the broken ones, passed on the kept ones, else not judged. Undecided
 * findings (cai's own lag) neither pass nor fail a check; when they are all it has, it is not judged, `undecided`.
 */
export function verdictOf(
  findings: readonly SenderFinding[],
  words: VerdictWords,
  unrepeated: readonly UnrepeatedBreach[] = [],
): Outcome {
  const broken = findings.filter((finding) => finding.verdict === 'broken');
  const kept = findings.filter((finding) => finding.verdict === 'kept');
  const undecided = findings.filter((finding) => finding.verdict === 'undecided');
  const [open] = undecided;
  const [one, many] = words.unit;
  if (broken.length > 0) {
    const judged = broken.length + kept.length;
    const text = broken
      .slice(0, SHOWN_PROBLEMS)
      .map((finding) => `${label(finding.attempt)}: ${finding.actual ?? ''}`)
      .join('; ');
    const more = broken.length > SHOWN_PROBLEMS ? `; and ${broken.length - SHOWN_PROBLEMS} more` : '';
    const actual =
      judged === 1
        ? (broken[0]?.actual ?? '')
        : `${broken.length} of ${plural(judged, one, many)} wrong: ${text}${more}`;
    return failed(words.expected, actual, { attempts: [...new Set(broken.flatMap((finding) => finding.shown))] });
  }
  if (kept.length > 0) {
    const notes = [
      ...(open ? [`${plural(undecided.length, one, many)} not judged: ${open.actual ?? ''}`] : []),
      ...unrepeatedNote(unrepeated),
    ];
    return passed(words.expected, words.passedText?.(kept) ?? `${plural(kept.length, one, many)}, all right`, notes);
  }
  return notJudged(open ? (open.actual ?? 'undecided') : words.unjudged, unrepeatedNote(unrepeated));
}

/** The breaches of a term on a first play that the scenario's second play did not repeat, on the records judged. */
export function unrepeatedOf(evidence: SenderEvidence, term: string): UnrepeatedBreach[] {
  return evidence.records.flatMap((record) => (record.unrepeated ?? []).filter((breach) => breach.term === term));
}

function unrepeatedNote(unrepeated: readonly UnrepeatedBreach[]): string[] {
  const [first] = unrepeated;
  if (first === undefined) return [];
  const more = unrepeated.length > 1 ? ` (and ${unrepeated.length - 1} more)` : '';
  return [
    `broken on a first play and not on the second, which is the evidence: a sender held up by a busy machine looks the same: ${first.actual}${more}`,
  ];
}

/** What the trigger did, for a stage that got no attempt. */
export function triggerText(record: StageRecord): string {
  if (record.attempts.length > 0) return `${plural(record.attempts.length, 'attempt')}`;
  const trigger = record.trigger;
  if (!trigger) return 'nothing came';
  if (trigger.error) return `the trigger could not start: ${trigger.error}`;
  const last = trigger.output.trim().split('\n').at(-1)?.trim();
  const said = last ? `: ${last.length > 200 ? `${last.slice(0, 200)}…` : last}` : '';
  if (trigger.stoppedByCai) return `the trigger was still running when cai stopped it${said}`;
  if (trigger.signal) return `the trigger was stopped by ${trigger.signal}${said}`;
  return `the trigger exited ${trigger.exitCode ?? '?'}${said}`;
}

/** ` (scenario accept: the trigger exited 0)`, for a judgement that found nothing to judge. */
export function stagesText(evidence: SenderEvidence): string {
  const texts = evidence.records.map((record) => `${record.id}: ${triggerText(record)}`);
  return texts.length > 0 ? ` (${texts.slice(0, 3).join('; ')}${texts.length > 3 ? '; …' : ''})` : '';
}
