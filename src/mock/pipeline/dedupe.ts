/**
 * The last steps of the receive pipeline (../pipeline.ts): dedupe (§6.1, §2.2), persist (on disk before the 202),
 * answer.
 */
import { errorMessage } from '../../errors.js';
import type { Reply } from '../../http/server.js';
import { DEDUPE_EXPIRY_MS, dedupeKeyOf } from '../receiver-faults.js';
import type { Admitted, MockRequestEntry, ReceiverProfile } from './profile.js';

// racy-dedupe: the gap between its check and its insert.
const RACY_WINDOW_MS = 50;

/** Dedupe (§6.1, §2.2), persist (on disk before the 202), answer. */
export async function dedupeAndPersist<Ack>(profile: ReceiverProfile<Ack>, admitted: Admitted): Promise<Reply> {
  const store = (verdict: 'accepted' | 'duplicate', ack: Ack) =>
    profile.store.persist(profile.recordHead(admitted, verdict, ack), admitted.document, admitted.body, ack);
  const storeNew = () => store('accepted', profile.acknowledge(admitted));
  const key = expiring(profile, documentKey(profile, admitted));
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

/** The key of a document in its index: its `event_id` (§6.1, §2.2), as the dedupe faults bend it. */
export function documentKey(profile: ReceiverProfile<unknown>, { document }: Admitted): string {
  return dedupeKeyOf(document.event_id as string, profile.faults);
}

/** `dedupe-expires`: per receiver, when each key was first recorded and how many times it has been forgotten. */
const remembered = new WeakMap<object, Map<string, { since: number; forgotten: number }>>();

/** The key under which a document is claimed: its own, or (`dedupe-expires`) a new one once the old has expired. */
function expiring<Ack>(profile: ReceiverProfile<Ack>, key: string): string {
  if (!profile.faults?.has('dedupe-expires')) return key;
  const keys = remembered.get(profile) ?? new Map<string, { since: number; forgotten: number }>();
  remembered.set(profile, keys);
  const now = profile.now();
  const entry = keys.get(key) ?? { since: now, forgotten: 0 };
  if (now - entry.since > DEDUPE_EXPIRY_MS) {
    entry.since = now;
    entry.forgotten += 1;
  }
  keys.set(key, entry);
  return entry.forgotten === 0 ? key : `${key}\u0000${entry.forgotten}`;
}

/**
 * A repeat's own record is a note for `cai report`: the event is the first copy's record, already on disk. So a
 * log that cannot take the note does not make the answer a 503 (re-sending stored events while the disk
 * is full must still get the §2.13 answer); the entry says the note is missing.
 */
async function noteDuplicate(entry: MockRequestEntry, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    entry.reason = 'log_unavailable';
    entry.message = `answered as a duplicate; its own record could not be written: ${errorMessage(error)}`;
  }
}
