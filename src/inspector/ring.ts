/**
 * A bounded log of items with consecutive ids: the newest kept, the oldest dropped past a count or a byte total.
 * Ids start at 1 and never repeat, so an id names one item for as long as it is kept (and is unknown after).
 */
export interface Sized {
  readonly id: number;
  /** The bytes this item holds, counted against the byte bound. */
  readonly bytes: number;
}

export class Ring<T extends Sized> {
  private items: (T | undefined)[] = [];
  private start = 0;
  private total = 0;
  private nextId = 1;
  private dropped = 0;

  constructor(
    private readonly maxItems: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Builds the item with the next id, keeps it, and drops the oldest until both bounds hold again. */
  push(make: (id: number) => T): T {
    const item = make(this.nextId++);
    this.items.push(item);
    this.total += item.bytes;
    // The newest item is always kept, even alone over the byte bound (its body is itself bounded).
    while (this.size > this.maxItems || (this.total > this.maxBytes && this.size > 1)) this.dropOldest();
    return item;
  }

  get size(): number {
    return this.items.length - this.start;
  }

  /** Bytes held by the items kept. */
  get bytes(): number {
    return this.total;
  }

  /** Items dropped so far to keep the bounds. */
  get evicted(): number {
    return this.dropped;
  }

  /** The id the next item will get (every id below it was given out). */
  get next(): number {
    return this.nextId;
  }

  /** The counts a page of the list and the live stream report: kept, evicted, the next id. */
  counts(): { kept: number; evicted: number; next: number } {
    return { kept: this.size, evicted: this.dropped, next: this.nextId };
  }

  get(id: number): T | undefined {
    const first = this.firstId();
    if (first === undefined || !Number.isInteger(id) || id < first || id >= this.nextId) return undefined;
    return this.items[this.start + (id - first)];
  }

  /** Newest first, starting below `before` (exclusive) when given. */
  *newestFirst(before?: number): Generator<T> {
    const first = this.firstId();
    if (first === undefined) return;
    // Ids are consecutive: the item below `before` sits at a known index.
    const from =
      before === undefined
        ? this.items.length - 1
        : Math.min(this.items.length - 1, this.start + (Math.floor(before) - first) - 1);
    for (let index = from; index >= this.start; index--) yield this.items[index] as T;
  }

  /** Oldest first, starting above `after` (exclusive) when given. */
  *newerThan(after: number): Generator<T> {
    const first = this.firstId();
    if (first === undefined) return;
    for (
      let index = Math.max(this.start, this.start + (Math.floor(after) - first) + 1);
      index < this.items.length;
      index++
    )
      yield this.items[index] as T;
  }

  /** Oldest first. */
  *oldestFirst(): Generator<T> {
    for (let index = this.start; index < this.items.length; index++) yield this.items[index] as T;
  }

  private firstId(): number | undefined {
    return this.items[this.start]?.id;
  }

  private dropOldest(): void {
    const item = this.items[this.start];
    if (item === undefined) return;
    this.items[this.start] = undefined;
    this.start++;
    this.total -= item.bytes;
    this.dropped++;
    // Compact now and then, so the array does not grow without bound (amortised O(1)).
    if (this.start > 1024 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
  }
}
