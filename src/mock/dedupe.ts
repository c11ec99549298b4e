import { sleep } from '../http/server.js';

/** What the dedupe step concluded: the first copy (now stored) or a repeat of a stored one, with its value. */
export interface Claim<T> {
  verdict: 'accepted' | 'duplicate';
  value: T;
}

/**
 * The dedupe index of a reference receiver (§6.1, §2.2): key → the value its first copy was stored with (the
 * platform keeps `true`, the provider the job acknowledgment), or the promise of that value while the first copy
 * is being written (undefined when it could not be stored).
 *
 * Memory: one Map entry per event, keyed by the event_id string itself (no per-event object for the platform):
 * about 80 bytes for a 28-character event_id (bench/mock-restart.bench.js measures it). With a `capacity`, the
 * index holds at most that many events: past it, the oldest one (first stored, or first read back from the log)
 * is forgotten, and a repeat of it is then accepted as new (a second accepted record in the log): §6.1 holds
 * for the last `capacity` events only. Without one, it grows with the log.
 */
export class DedupeIndex<T> {
  private readonly entries = new Map<string, T | Promise<T | undefined>>();

  constructor(private readonly capacity = Number.POSITIVE_INFINITY) {}

  get size(): number {
    return this.entries.size;
  }

  /** A key already stored (restart: read back from the log). */
  remember(key: string, value: T): void {
    this.insert(key, value);
  }

  private insert(key: string, value: T | Promise<T | undefined>): void {
    this.entries.set(key, value);
    // A Map iterates in insertion order: its first key is the oldest event.
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * Atomic: the first copy of a key is stored by `store`, and any repeat, even concurrent, waits for it and is a
   * duplicate of it. The pending entry is set before any await, so concurrent repeats can never both be new;
   * a repeat of a copy that could not be stored takes its place. A failed `store` rejects with its error.
   */
  async claim(key: string, store: () => Promise<T>): Promise<Claim<T>> {
    for (;;) {
      const prior = this.entries.get(key);
      if (prior === undefined) break;
      // A repeat of an event still being written waits for it, so "duplicate" always means "stored".
      const value = await prior;
      if (value !== undefined) return { verdict: 'duplicate', value };
      // The first copy could not be stored: this one takes its place.
      if (this.entries.get(key) === prior) this.entries.delete(key);
    }
    let failure: unknown;
    const pending = store().then(
      (value) => value,
      (error: unknown) => {
        failure = error;
        return undefined;
      },
    );
    this.insert(key, pending);
    const value = await pending;
    if (value === undefined) {
      if (this.entries.get(key) === pending) this.entries.delete(key);
      throw failure;
    }
    // Settled: the plain value is all a repeat needs (no promise kept per event).
    if (this.entries.get(key) === pending) this.entries.set(key, value);
    return { verdict: 'accepted', value };
  }

  /**
   * The `racy-dedupe` defect: check, then wait, then store and insert; concurrent repeats all pass the check.
   * The wait stands for the round trip to a database that a real racy receiver makes between the two.
   */
  async claimRacily(key: string, store: () => Promise<T>, windowMs: number): Promise<Claim<T>> {
    const prior = this.entries.get(key);
    if (prior !== undefined) {
      const value = await prior;
      if (value !== undefined) return { verdict: 'duplicate', value };
    }
    await sleep(windowMs);
    const value = await store();
    this.insert(key, value);
    return { verdict: 'accepted', value };
  }
}
