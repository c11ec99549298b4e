/**
 * Interface A, §2.2: a repeated event_id is ignored, so a job sent again starts no second conversation, whether the
 * repeat comes after the first acknowledgment (a retry whose answer was lost) or beside the first delivery (a retry
 * racing it). Judged on what only the provider's callbacks show: how often the conversation ends.
 */
import { failed, notJudged, passed, type Outcome } from '../../check.js';
import { describeAnswer, ms } from '../../evidence.js';
import { eventTypeOf, type JobStage } from '../../probe/callbacks.js';
import { secondConversation } from '../../../spec/model/job-events.js';
import { isAccepted } from '../../probe/verdict.js';
import { jobStage } from './callback-jobs.js';
import { preamble } from './callbacks.js';
import { checkOn, JOBS_RECEIVER } from './receivers.js';

/** How many copies of the job are sent at once: enough for a check-then-record race to start two. */
const COPIES_AT_ONCE = 3;

/** appointment.booked and job.closed: the results a conversation ends in (§3 step 5), each once per handling. */
function endingsOf(stage: JobStage): number {
  return stage.record.attempts.filter((attempt) => {
    const type = eventTypeOf(attempt);
    return type === 'appointment.booked' || type === 'job.closed';
  }).length;
}

interface SentOnceAndAgain {
  once: JobStage;
  twice: JobStage;
  together: JobStage;
}

/** The job sent again (after, or at once) against the job sent once: no more endings than it. */
function noSecondEnding(sentOnce: JobStage, again: JobStage, how: string): Outcome {
  if (endingsOf(again) === 0)
    return notJudged(`the job ${how} got no ending event within the callback wait (see A-CB-006)`);
  const baseline = endingsOf(sentOnce);
  const expected = `at most ${baseline} ending event(s) (appointment.booked, job.closed), as for the same job sent once`;
  const endings = endingsOf(again);
  const actual = `the job ${how}: ${endings} ending event(s) among ${again.record.attempts.length} events in ${ms(again.waitedMs)}`;
  const breach = secondConversation(baseline, endings);
  return breach === undefined
    ? passed(expected, actual)
    : failed(expected, `${actual}: ${breach}`, { attempts: again.record.attempts });
}

/**
 * Both conversations of each pair are gathered until they are over and quiet for --observe. The repeat after the
 * acknowledgment is judged first; the copies sent at once then, where a provider that checks its memory of jobs
 * and records the job in two steps lets every copy through.
 */
const repeatStartsNothing = checkOn<SentOnceAndAgain>(JOBS_RECEIVER, 'A-DEDUP-007', {
  sections: ['§2.2', '§3'],
  clauses: ['§2.2-5', '§3-1'],
  tags: ['dedupe', 'callback'],
  needs: 'callback',
  title: 'a repeated job starts no second conversation (no second ending among its events)',
  gather: async (scope) => {
    const [once, twice, together] = await Promise.all([
      jobStage(scope, 'sent-once'),
      jobStage(scope, 'sent-twice', { twice: true }),
      jobStage(scope, 'sent-together', { together: COPIES_AT_ONCE }),
    ]);
    return { once, twice, together } as SentOnceAndAgain;
  },
  judge: ({ once, twice, together }) => {
    const missing = preamble(once) ?? preamble(twice);
    if (missing) return missing;
    const [sentOnce, sentTwice] = [once as JobStage, twice as JobStage];
    if (!sentTwice.repeat) return notJudged('the repeat was not sent');
    if (endingsOf(sentOnce) === 0)
      return notJudged('the job sent once got no ending event to compare with (see A-CB-006)');
    const after = isAccepted(sentTwice.repeat)
      ? noSecondEnding(sentOnce, sentTwice, 'sent twice')
      : passed(
          'the repeat ignored',
          `the repeat was answered ${describeAnswer(sentTwice.repeat)}: nothing started (A-DEDUP-001 judges the answer)`,
        );
    if (after.verdict === 'failed' || together === undefined || preamble(together) !== undefined) return after;
    const atOnce = noSecondEnding(sentOnce, together, `sent ${COPIES_AT_ONCE} times at once`);
    return atOnce.verdict === 'failed' || after.verdict !== 'passed' ? atOnce : after;
  },
});

export const repeatedJob = { A: [repeatStartsNothing] };
