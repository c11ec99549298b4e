import { sleep } from '../http/server.js';
import { IdTable } from './id-table.js';

/** The value of a first copy that could not be stored. */
const notStored = () => undefined;

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
 * Memory: the keys stored are kept as their bytes in an IdTable (id-table.ts), the id's UTF-8 length and 15–35
 * bytes more an event, with no per-event object for the platform (bench/mock-restart.bench.js measures it at
 * 13- and 110-character ids); only the keys being written are in a Map. With a `capacity`, the index holds at most
 * that many events: past it, the oldest one (first stored, or first read back from the log) is forgotten, and a
 * repeat of it is then accepted as new (a second accepted record in the log): §6.1 holds for the last `capacity`
 * events only. Without one, it grows with the log, up to MAX_ID_BYTES of ids (then the oldest are forgotten too).
 */
export class DedupeIndex<T> {
  private readonly stored: IdTable<T>;
  /** The keys whose first copy is being written, with the promise of its claim (rejected when it is not stored). */
  private readonly writing = new Map<string, Promise<Claim<T>>>();

  constructor(private readonly capacity = Number.POSITIVE_INFINITY) {
    this.stored = new IdTable<T>();
  }

  get size(): number {
    return this.stored.size + this.writing.size;
  }

  /** A key already stored (restart: read back from the log). */
  remember(key: string, value: T): void {
    this.store(key, value);
  }

  private store(key: string, value: T): void {
    this.stored.set(key, value);
    // The table keeps insertion order: its oldest entry is the oldest event.
    while (this.stored.size > this.capacity) this.stored.evictOldest();
  }

  /** The value stored for a key, or the promise of it while its first copy is written (undefined if it is not stored). */
  private lookup(key: string): T | Promise<T | undefined> | undefined {
    return this.writing.get(key)?.then(({ value }) => value, notStored) ?? this.stored.get(key);
  }

  has(key: string): boolean {
    return this.writing.has(key) || this.stored.get(key) !== undefined;
  }

  /**
   * Atomic: the first copy of a key is stored by `store`, and any repeat, even concurrent, waits for it and is a
   * duplicate of it. The pending entry is set before any await, so concurrent repeats can never both be new;
   * a repeat of a copy that could not be stored takes its place. A failed `store` rejects with its error.
   */
  claim(key: string, store: () => Promise<T>): Promise<Claim<T>> {
    // A first copy is answered by its store's promise, with no async function in between (every new event).
    return this.has(key) ? this.claimRepeat(key, store) : this.claimFirst(key, store);
  }

  private async claimRepeat(key: string, store: () => Promise<T>): Promise<Claim<T>> {
    for (;;) {
      const prior = this.lookup(key);
      if (prior === undefined) return this.claimFirst(key, store);
      // A repeat of an event still being written waits for it, so "duplicate" always means "stored".
      const value = await prior;
      if (value !== undefined) return { verdict: 'duplicate', value };
      // The first copy could not be stored (it is gone from `writing`): this one takes its place.
    }
  }

  private claimFirst(key: string, store: () => Promise<T>): Promise<Claim<T>> {
    const claim = store().then(
      (value): Claim<T> => {
        this.writing.delete(key);
        // Settled: the plain value is all a repeat needs (no promise kept per event).
        this.store(key, value);
        return { verdict: 'accepted', value };
      },
      (error: unknown) => {
        this.writing.delete(key);
        throw error;
      },
    );
    this.writing.set(key, claim);
    return claim;
  }

  /**
   * The `racy-dedupe` defect: check, then wait, then store and insert; concurrent repeats all pass the check.
   * The wait stands for the round trip to a database that a real racy receiver makes between the two.
   */
  async claimRacily(key: string, store: () => Promise<T>, windowMs: number): Promise<Claim<T>> {
    const prior = this.lookup(key);
    if (prior !== undefined) {
      const value = await prior;
      if (value !== undefined) return { verdict: 'duplicate', value };
    }
    await sleep(windowMs);
    const value = await store();
    this.store(key, value);
    return { verdict: 'accepted', value };
  }
}
