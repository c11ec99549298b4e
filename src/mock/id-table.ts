import { MOCK_LOG_CAPS } from '../bounds.js';

/**
 * A set of ids (strings) kept as their bytes, for the dedupe memory of a reference receiver (§6.1): one growing
 * Buffer holds the ids one after another, a Uint32Array where each ends, and an open-addressing hash index
 * (linear probing, at most half full) the entry numbers. Per id that is its UTF-8 bytes and about 12–20 bytes,
 * where a Map of strings costs a V8 string (16 bytes of header, the characters, rounded up to 8) and a Map entry
 * (about 30–60 bytes as the table grows): bench/mock-restart.bench.js measures both, at 13- and 110-character ids.
 *
 * Entries are numbered in insertion order, and forgotten oldest first (`evictOldest`): a forgotten entry stays
 * in the index as a tombstone (its number is below `first`) until the table is rebuilt, which happens when the
 * index would be over half full or when the forgotten entries are the larger part.
 */
export class IdTable<T> {
  private bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  /** `ends[n]`: where entry n's bytes end; entry n starts where entry n − 1 ends (0 for the first). */
  private ends = new Uint32Array(INITIAL_ENTRIES);
  /** Entry numbers + 1; 0 is an empty slot. The length is a power of two. */
  private slots = new Uint32Array(INITIAL_ENTRIES * 2);
  /** Entries added since the last rebuild (live and forgotten); the live ones are `first` to `count` − 1. */
  private count = 0;
  private first = 0;
  /**
   * The value of each entry, only once a value other than `true` is stored: the platform mock stores `true`
   * for every event (no memory at all), the provider mock the acknowledgment of each job.
   */
  private values: T[] | undefined;
  private scratch = Buffer.allocUnsafe(1024);
  /** The hash of the key in `scratch` (encode), and the slot `find` stopped at. */
  private hash = 0;
  private slot = 0;
  private rebuilds = 0;

  constructor(private readonly maxBytes = MAX_ID_BYTES) {}

  /** Live entries. */
  get size(): number {
    return this.count - this.first;
  }

  /** The value stored for `key`, or undefined when it is not here. */
  get(key: string): T | undefined {
    const entry = this.find(this.encode(key), this.hash);
    if (entry < 0) return undefined;
    return this.values === undefined ? (true as T) : this.values[entry];
  }

  /** Stores `value` for `key` (replacing the value of a key already here, which keeps its place in the order). */
  set(key: string, value: T): void {
    const length = this.encode(key);
    const hash = this.hash;
    const entry = this.find(length, hash);
    if (entry >= 0) return this.setValue(entry, value);
    if (length > this.maxBytes) throw new RangeError(`an id of ${length} bytes is over the table's ${this.maxBytes}`);
    const rebuilds = this.rebuilds;
    // Past the bound, the oldest are forgotten first.
    while (this.size > 0 && this.liveBytes() + length > this.maxBytes) this.evictOldest();
    if ((this.count + 1) * 2 > this.slots.length || this.count === this.ends.length || this.endOfBytes() + length > this.bytes.length) this.rebuild(length);
    // A rebuild (here, or by an eviction) renumbers the entries and moves the slots.
    if (this.rebuilds !== rebuilds) this.find(length, hash);
    const at = this.endOfBytes();
    this.scratch.copy(this.bytes, at, 0, length);
    this.ends[this.count] = at + length;
    this.slots[this.slot] = this.count + 1;
    this.count += 1;
    this.setValue(this.count - 1, value);
  }

  private endOfBytes(): number {
    return this.count === 0 ? 0 : (this.ends[this.count - 1] as number);
  }

  /** Forgets the oldest live entry. */
  evictOldest(): void {
    if (this.size === 0) return;
    if (this.values !== undefined) this.values[this.first] = undefined as T;
    this.first += 1;
    // Mostly forgotten entries: drop them, their bytes and tombstones (amortised: once per half of the entries).
    if (this.first > 1024 && this.first * 2 > this.count) this.rebuild(0);
  }

  private setValue(entry: number, value: T): void {
    if (this.values === undefined) {
      if (value === true) return;
      this.values = new Array<T>(this.count).fill(true as T);
    }
    this.values[entry] = value;
  }

  private liveBytes(): number {
    if (this.size === 0) return 0;
    const start = this.first === 0 ? 0 : (this.ends[this.first - 1] as number);
    return (this.ends[this.count - 1] as number) - start;
  }

  /**
   * The entry holding the `length` bytes of the scratch buffer (−1 when none); `slot` is left where it is or
   * would go (fields, not an object: this runs for every request).
   */
  private find(length: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const stored = this.slots[slot] as number;
      this.slot = slot;
      if (stored === 0) return -1;
      const entry = stored - 1;
      if (entry >= this.first && this.holds(entry, length)) return entry;
    }
  }

  private holds(entry: number, length: number): boolean {
    const end = this.ends[entry] as number;
    const start = entry === 0 ? 0 : (this.ends[entry - 1] as number);
    if (end - start !== length) return false;
    const { bytes, scratch } = this;
    for (let i = 0; i < length; i += 1) if (bytes[start + i] !== scratch[i]) return false;
    return true;
  }

  /**
   * Copies the live entries into arrays sized for them and one more id of `extraBytes` (growing by half), and
   * indexes them afresh: forgotten entries and their tombstones are gone.
   */
  private rebuild(extraBytes: number): void {
    const live = this.size;
    const start = this.first === 0 ? 0 : (this.ends[this.first - 1] as number);
    const used = this.liveBytes();
    const entries = Math.max(INITIAL_ENTRIES, Math.ceil((live + 1) * GROWTH));
    // Room for half as much again, past the bound too (at most 1.5 times it): at the bound, each rebuild makes
    // room for many more ids, not one.
    const bytes = Buffer.allocUnsafe(Math.max(INITIAL_BYTES, Math.ceil((used + extraBytes) * GROWTH)));
    this.bytes.copy(bytes, 0, start, start + used);
    const ends = new Uint32Array(entries);
    for (let i = 0; i < live; i += 1) ends[i] = (this.ends[this.first + i] as number) - start;
    let slotCount = INITIAL_ENTRIES * 2;
    while (slotCount < entries * 2) slotCount *= 2;
    const slots = new Uint32Array(slotCount);
    const mask = slotCount - 1;
    for (let i = 0; i < live; i += 1) {
      const from = i === 0 ? 0 : (ends[i - 1] as number);
      let slot = hashOf(bytes, ends[i] as number, from) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
    }
    this.bytes = bytes;
    this.ends = ends;
    this.slots = slots;
    this.values = this.values?.slice(this.first, this.count);
    this.count = live;
    this.first = 0;
    this.rebuilds += 1;
  }

  /**
   * The key's bytes into the scratch buffer; their length. UTF-8, unless the key holds a lone surrogate
   * (JSON's `"\ud800"` gives one): UTF-8 would turn it into U+FFFD, the same bytes as another id, so such a key
   * is kept as a 0xFF byte (never found in UTF-8) and its UTF-16 code units.
   */
  private encode(key: string): number {
    const length = key.length;
    if (length * 3 + 1 > this.scratch.length) this.scratch = Buffer.allocUnsafe(length * 3 + 1);
    const scratch = this.scratch;
    // ASCII, the usual event_id: copied and hashed in one pass, without a call into the runtime.
    let hash = FNV_OFFSET;
    let i = 0;
    for (; i < length; i += 1) {
      const code = key.charCodeAt(i);
      if (code >= 0x80) break;
      scratch[i] = code;
      hash = Math.imul(hash ^ code, FNV_PRIME);
    }
    if (i === length) {
      this.hash = hash >>> 0;
      return length;
    }
    let bytes: number;
    if ((key as WellFormedCheck).isWellFormed()) bytes = scratch.write(key, 0, 'utf8');
    else {
      scratch[0] = 0xff;
      bytes = 1 + scratch.write(key, 1, 'utf16le');
    }
    this.hash = hashOf(scratch, bytes);
    return bytes;
  }
}

/** ES2024 (Node 20 has it; the TypeScript lib here is ES2023). */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** The bound on the bytes of the ids one table holds: past it, the oldest are forgotten. */
const MAX_ID_BYTES = MOCK_LOG_CAPS.dedupeIdBytes;
const INITIAL_BYTES = 16 * 1024;
const INITIAL_ENTRIES = 1024;
/** How much room a rebuild leaves: half as much again as what is live. */
const GROWTH = 1.5;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over `bytes[from, end)` (encode computes the same over ASCII as it copies). */
function hashOf(bytes: Buffer, end: number, from = 0): number {
  let hash = FNV_OFFSET;
  for (let i = from; i < end; i += 1) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}
