/**
 * The last steps of the receive pipeline (../pipeline.ts): dedupe (§6.1, §2.2), persist (on disk before the 202),
 * answer.
 */
import { errorMessage } from '../../errors.js';
import type { Reply } from '../../http/server.js';
import type { Admitted, MockRequestEntry, ReceiverProfile } from './profile.js';

// racy-dedupe: the gap between its check and its insert.
const RACY_WINDOW_MS = 50;

/** Dedupe (§6.1, §2.2), persist (on disk before the 202), answer. */
export async function dedupeAndPersist<Ack>(profile: ReceiverProfile<Ack>, admitted: Admitted): Promise<Reply> {
  const store = (verdict: 'accepted' | 'duplicate', ack: Ack) => profile.store.persist(profile.recordHead(admitted, verdict, ack), admitted.document, admitted.body);
  const storeNew = async () => {
    const ack = profile.acknowledge(admitted);
    await store('accepted', ack);
    return ack;
  };
  const key = profile.dedupeKey(admitted);
  const index = profile.indexFor(admitted);
  const claim =
    profile.dedupe === 'none'
      ? { verdict: 'accepted' as const, value: await storeNew() }
      : profile.dedupe === 'racy'
        ? await index.claimRacily(key, storeNew, RACY_WINDOW_MS)
        : await index.claim(key, storeNew);
  if (claim.verdict === 'duplicate') {
    await noteDuplicate(admitted.entry, () => store('duplicate', claim.value));
    profile.afterDuplicate?.(admitted, claim.value);
  } else profile.afterAccept?.(admitted, claim.value);
  admitted.entry.verdict = claim.verdict;
  return profile.answer(admitted, claim.verdict, claim.value);
}

/**
 * A repeat's own record is a note for `cai report`: the event is the first copy's record, already on disk. So a
 * log that cannot take the note does not make the answer a 503 (issue 14: re-sending stored events while the disk
 * is full must still get the §2.13 answer); the entry says the note is missing.
 */
async function noteDuplicate(entry: MockRequestEntry, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    entry.reason = 'log_unavailable';
    entry.message = `answered as a duplicate; its own record could not be written: ${errorMessage(error)}`;
  }
}
