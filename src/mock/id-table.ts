import { createHash } from 'node:crypto';
import { MOCK_LOG_CAPS } from '../bounds.js';

/**
 * A set of ids (strings) kept as their bytes, for the dedupe memory of a reference receiver (§6.1): the ids one
 * after another in chunks of 2^CHUNK_BITS bytes, a Uint32Array where each ends, and an open-addressing hash index
 * (linear probing, at most half full) of the entry numbers, with a byte of each one's hash. Per id that is its
 * UTF-8 bytes and 15–35 bytes more (its end: 4 bytes, with room to grow by half; the index: 10 to 25), where a
 * Map of strings costs a V8 string (16 bytes of header, the characters, rounded up to 8) and a Map entry (about
 * 30–60 bytes as the table grows): bench/mock-restart.bench.js measures both, at 13- and 110-character ids.
 * Chunks, not one growing buffer: no room left empty past the last chunk, and nothing copied as the table grows.
 *
 * Entries are numbered in insertion order, and forgotten oldest first (`evictOldest`): a forgotten entry stays
 * in the index as a tombstone (its number is below `first`) until the table is rebuilt, which happens when the
 * index would be over half full, when the entries' ends fill their array, or when the forgotten entries are the
 * larger part. A rebuild drops the chunks of forgotten entries and indexes the rest afresh; no id is copied.
 *
 * Positions are offsets in one virtual range, chunk k holding [k × 2^CHUNK_BITS, (k + 1) × 2^CHUNK_BITS): an id
 * never straddles two chunks (one that would starts the next chunk), so where an entry starts follows from the
 * ends (see startOf) and needs no array of its own.
 */
export class IdTable<T> {
  private chunks: Buffer[] = [];
  /** `ends[n]`: where entry n's bytes end (a virtual offset). */
  private ends = new Uint32Array(INITIAL_ENTRIES);
  /** Where entry 0 starts (the rest: see startOf). */
  private origin = 0;
  /** Entry numbers + 1; 0 is an empty slot. The length is a power of two. */
  private slots = new Uint32Array(INITIAL_ENTRIES * 2);
  /** The top byte of each slot's hash: most other keys met while probing are passed over without reading their bytes. */
  private tags = new Uint8Array(INITIAL_ENTRIES * 2);
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

  /** log2 of the chunk size: offsets are split with shifts (they are below 2^32). */
  private readonly shift: number;
  private readonly chunkBytes: number;

  /** `chunkBits` (tests: small chunks, many of them): chunks of 2^chunkBits bytes, which hold any key kept. */
  constructor(
    private readonly maxBytes = MAX_ID_BYTES,
    chunkBits = CHUNK_BITS,
  ) {
    this.shift = chunkBits;
    this.chunkBytes = 2 ** chunkBits;
  }

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
    // Past the bound, the oldest are forgotten first (each may rebuild; find again after).
    let moved = false;
    while (this.size > 0 && this.liveBytes() + length > this.maxBytes) moved = this.evictOldest() || moved;
    let at = this.placeOf(length);
    if ((this.count + 1) * 2 > this.slots.length || this.count === this.ends.length || at + length > MAX_VIRTUAL) {
      this.rebuild();
      moved = true;
      at = this.placeOf(length);
    }
    if (moved) this.find(length, hash);
    const chunk = at >>> this.shift;
    while (this.chunks.length <= chunk) this.chunks.push(Buffer.allocUnsafe(this.chunkBytes));
    this.scratch.copy(this.chunks[chunk] as Buffer, at - chunk * this.chunkBytes, 0, length);
    if (this.count === 0) this.origin = at;
    this.ends[this.count] = at + length;
    this.slots[this.slot] = this.count + 1;
    this.tags[this.slot] = hash >>> 24;
    this.count += 1;
    this.setValue(this.count - 1, value);
  }

  /** Forgets the oldest live entry; true when that rebuilt the table (its slots moved). */
  evictOldest(): boolean {
    if (this.size === 0) return false;
    if (this.values !== undefined) this.values[this.first] = undefined as T;
    this.first += 1;
    // Mostly forgotten entries: drop them (amortised: once per half of the entries).
    if (this.first > INITIAL_ENTRIES && this.first * 2 > this.count) {
      this.rebuild();
      return true;
    }
    return false;
  }

  private setValue(entry: number, value: T): void {
    if (this.values === undefined) {
      if (value === true) return;
      this.values = new Array<T>(this.count).fill(true as T);
    }
    this.values[entry] = value;
  }

  /** Where the next id of `length` bytes goes: after the last one, or at the next chunk when it would straddle two. */
  private placeOf(length: number): number {
    const at = this.endOfBytes();
    const chunk = at >>> this.shift;
    return length > 0 && chunk !== (at + length - 1) >>> this.shift ? (chunk + 1) * this.chunkBytes : at;
  }

  private endOfBytes(): number {
    return this.count === 0 ? this.origin : (this.ends[this.count - 1] as number);
  }

  /** Where entry n starts: where n − 1 ends, or the start of n's chunk when it could not fit in that one. */
  private startOf(n: number): number {
    if (n === 0) return this.origin;
    const end = this.ends[n] as number;
    const previous = this.ends[n - 1] as number;
    if (end === previous) return end;
    const chunkStart = ((end - 1) >>> this.shift) * this.chunkBytes;
    return previous > chunkStart ? previous : chunkStart;
  }

  private liveBytes(): number {
    return this.size === 0 ? 0 : this.endOfBytes() - this.startOf(this.first);
  }

  /**
   * The entry holding the `length` bytes of the scratch buffer (−1 when none); `slot` is left where it is or
   * would go (fields, not an object: this runs for every request).
   */
  private find(length: number, hash: number): number {
    const mask = this.slots.length - 1;
    const tag = hash >>> 24;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const stored = this.slots[slot] as number;
      this.slot = slot;
      if (stored === 0) return -1;
      const entry = stored - 1;
      if (this.tags[slot] === tag && entry >= this.first && this.holds(entry, length)) return entry;
    }
  }

  private holds(entry: number, length: number): boolean {
    const end = this.ends[entry] as number;
    const start = this.startOf(entry);
    if (end - start !== length) return false;
    const chunk = start >>> this.shift;
    const bytes = this.chunks[chunk] as Buffer;
    const from = start - chunk * this.chunkBytes;
    const { scratch } = this;
    for (let i = 0; i < length; i += 1) if (bytes[from + i] !== scratch[i]) return false;
    return true;
  }

  /**
   * Renumbers the live entries from 0, with room for half as many again, drops the chunks that hold only
   * forgotten ones (the offsets move down by whole chunks: no id is copied), and indexes them afresh.
   */
  private rebuild(): void {
    const live = this.size;
    const start = live === 0 ? 0 : this.startOf(this.first);
    const dropped = start >>> this.shift;
    const base = dropped * this.chunkBytes;
    const capacity = Math.max(INITIAL_ENTRIES, Math.ceil((live + 1) * GROWTH));
    const ends = new Uint32Array(capacity);
    for (let i = 0; i < live; i += 1) ends[i] = (this.ends[this.first + i] as number) - base;
    // At most a third full after a rebuild, half full before the next: room for half as many again, at least.
    let slotCount = INITIAL_ENTRIES * 2;
    while (slotCount < (live + 1) * 3) slotCount *= 2;
    const slots = new Uint32Array(slotCount);
    const tags = new Uint8Array(slotCount);
    this.chunks = live === 0 ? [] : this.chunks.slice(dropped);
    this.values = this.values?.slice(this.first, this.count);
    this.ends = ends;
    this.slots = slots;
    this.tags = tags;
    this.origin = live === 0 ? 0 : start - base;
    this.count = live;
    this.first = 0;
    const mask = slotCount - 1;
    for (let i = 0; i < live; i += 1) {
      const from = this.startOf(i);
      const chunk = from >>> this.shift;
      const chunkStart = chunk * this.chunkBytes;
      const hash = hashOf(this.chunks[chunk] as Buffer, from - chunkStart, (ends[i] as number) - chunkStart);
      let slot = hash & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
      tags[slot] = hash >>> 24;
    }
  }

  /**
   * The key's bytes into the scratch buffer; their length. UTF-8, unless the key holds a lone surrogate
   * (JSON's `"\ud800"` gives one): UTF-8 would turn it into U+FFFD, the same bytes as another id, so such a key
   * is kept as a 0xFF byte (never found in UTF-8) and its UTF-16 code units. A key of more than MAX_KEY_BYTES
   * (no valid event_id is: §8, 120 characters) is kept as a 0xFE byte and its SHA-256.
   */
  private encode(key: string): number {
    const length = key.length;
    if (length * 3 + 1 > this.scratch.length) this.scratch = Buffer.allocUnsafe(length * 3 + 1);
    const scratch = this.scratch;
    // ASCII, the usual event_id: copied and hashed in one pass, without a call into the runtime.
    let hash = FNV_OFFSET;
    let i = 0;
    if (length <= MAX_KEY_BYTES) {
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
    }
    let bytes: number;
    if ((key as WellFormedCheck).isWellFormed()) bytes = scratch.write(key, 0, 'utf8');
    else {
      scratch[0] = 0xff;
      bytes = 1 + scratch.write(key, 1, 'utf16le');
    }
    if (bytes > MAX_KEY_BYTES) {
      scratch[0] = 0xfe;
      bytes = 1 + createHash('sha256').update(scratch.subarray(0, bytes)).digest().copy(scratch, 1);
    }
    this.hash = hashOf(scratch, 0, bytes);
    return bytes;
  }
}

/** ES2024 (Node 20 has it; the TypeScript lib here is ES2023). */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** The bound on the bytes of the ids one table holds: past it, the oldest are forgotten. */
const MAX_ID_BYTES = MOCK_LOG_CAPS.dedupeIdBytes;
/** Ids are kept in chunks of 2^CHUNK_BITS bytes (a quarter of a MiB: a few thousand ids). */
const CHUNK_BITS = 18;
/** A longer id is kept as its SHA-256 (well inside a chunk). */
const MAX_KEY_BYTES = 1024;
/** The offsets are 32-bit: past this, a rebuild moves the live ids' offsets down. */
const MAX_VIRTUAL = 2 ** 32 - 1;
const INITIAL_ENTRIES = 1024;
/** How much room a rebuild leaves in the ends: half as much again as what is live. */
const GROWTH = 1.5;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over `bytes[from, end)` (encode computes the same over ASCII as it copies). */
function hashOf(bytes: Buffer, from: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = from; i < end; i += 1) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}
