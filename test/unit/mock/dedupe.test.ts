import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DedupeIndex } from '../../../src/mock/dedupe.js';
import { IdTable } from '../../../src/mock/id-table.js';

/** What the table must behave as: a Map in insertion order, the oldest deleted first past a capacity. */
class Model<T> {
  readonly entries = new Map<string, T>();
  set(key: string, value: T, capacity: number): void {
    this.entries.set(key, value);
    while (this.entries.size > capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}

const ids = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  // Lone surrogates: UTF-8 would make both U+FFFD, the same bytes.
  fc.constantFrom('\ud800', '\udfff', '\ufffd', 'a\ud800', 'a\ufffd', '\ud83d\ude00', ''),
  fc.nat({ max: 300 }).map((n) => `evt_${n}`),
  // Over 1 024 bytes: kept as a SHA-256.
  fc.nat({ max: 5 }).map((n) => `${'long'.repeat(300)}${n}`),
);

describe('the id table of the dedupe memory', () => {
  it('holds exactly what a Map would, in any order of inserts, repeats and evictions', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ set: ids, value: fc.oneof(fc.constant(true), fc.nat()) }),
            fc.record({ evict: fc.constant(true) }),
          ),
          { maxLength: 3000 },
        ),
        fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 200 })),
        (operations, capacity) => {
          // Chunks of 2 KiB: ids cross from one to the next, and forgotten ones are dropped, within a test.
          const table = new IdTable<true | number>(undefined, 11);
          const model = new Model<true | number>();
          for (const operation of operations) {
            if ('set' in operation) {
              table.set(operation.set, operation.value);
              while (table.size > capacity) table.evictOldest();
              model.set(operation.set, operation.value, capacity);
            } else {
              table.evictOldest();
              const oldest = model.entries.keys().next();
              if (!oldest.done) model.entries.delete(oldest.value);
            }
            expect(table.size).toBe(model.entries.size);
          }
          for (const [key, value] of model.entries) expect(table.get(key)).toBe(value);
          for (const operation of operations)
            if ('set' in operation && !model.entries.has(operation.set))
              expect(table.get(operation.set)).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps many ids through its rebuilds, and forgets the oldest past its byte bound', () => {
    const table = new IdTable<true>(64 * 1024, 12);
    // ASCII (copied and hashed in one pass) and not (encoded by the runtime) alike, 13 bytes each.
    const id = (n: number) =>
      n % 2 ? `evt_${n.toString(36).padStart(9, '0')}` : `é${n.toString(36).padStart(11, '0')}`;
    for (let n = 0; n < 20_000; n += 1) table.set(id(n), true);
    // 13 bytes an id: about 5 000 fit in 64 KiB, the newest.
    expect(table.size).toBeGreaterThan(4000);
    expect(table.size).toBeLessThanOrEqual((64 * 1024) / 13);
    expect(table.get(id(19_999))).toBe(true);
    expect(table.get(id(20_000 - table.size))).toBe(true);
    expect(table.get(id(20_000 - table.size - 1))).toBeUndefined();
    expect(table.get(id(0))).toBeUndefined();
  });
});

describe('the dedupe index', () => {
  it('claims a key once: concurrent repeats are duplicates of the stored first copy', async () => {
    const index = new DedupeIndex<true>();
    let stores = 0;
    const store = async () => {
      stores += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return true as const;
    };
    const claims = await Promise.all(Array.from({ length: 10 }, () => index.claim('evt_1', store)));
    expect(stores).toBe(1);
    expect(claims.map((claim) => claim.verdict).sort()).toEqual(['accepted', ...Array(9).fill('duplicate')]);
    expect(index.size).toBe(1);
  });

  it('forgets a key whose first copy could not be stored: the next copy is new, once', async () => {
    const index = new DedupeIndex<true>();
    const failing = async (): Promise<true> => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error('disk full');
    };
    const first = index.claim('evt_2', failing);
    // A repeat sent while the first copy is written waits for it, and takes its place when it fails.
    const repeat = index.claim('evt_2', async () => true);
    await expect(first).rejects.toThrow('disk full');
    expect(await repeat).toEqual({ verdict: 'accepted', value: true });
    expect(await index.claim('evt_2', async () => true)).toEqual({ verdict: 'duplicate', value: true });
    expect(index.size).toBe(1);
  });

  it('keeps the value of each key (the provider: its acknowledgment), and forgets the oldest past its capacity', async () => {
    const index = new DedupeIndex<{ job: number }>(2);
    index.remember('a', { job: 1 });
    await index.claim('b', async () => ({ job: 2 }));
    await index.claim('c', async () => ({ job: 3 }));
    expect(index.has('a')).toBe(false);
    expect(await index.claim('b', async () => ({ job: 9 }))).toEqual({ verdict: 'duplicate', value: { job: 2 } });
    expect(await index.claim('a', async () => ({ job: 4 }))).toEqual({ verdict: 'accepted', value: { job: 4 } });
  });
});
