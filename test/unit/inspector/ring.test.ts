import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Ring } from '../../../src/inspector/ring.js';

const item =
  (bytes = 1) =>
  (id: number) => ({ id, bytes });

describe('Ring: the inspector buffer', () => {
  it('keeps the newest items up to the count, ids consecutive from 1, the dropped ones unknown', () => {
    const ring = new Ring<{ id: number; bytes: number }>(3);
    for (let n = 0; n < 5; n++) ring.push(item());
    expect(ring.size).toBe(3);
    expect(ring.evicted).toBe(2);
    expect(ring.next).toBe(6);
    expect([...ring.newestFirst()].map((kept) => kept.id)).toEqual([5, 4, 3]);
    expect([...ring.oldestFirst()].map((kept) => kept.id)).toEqual([3, 4, 5]);
    expect(ring.get(2)).toBeUndefined();
    expect(ring.get(3)?.id).toBe(3);
    expect(ring.get(6)).toBeUndefined();
    expect(ring.get(3.5)).toBeUndefined();
  });

  it('drops the oldest past the byte bound, but always keeps the newest', () => {
    const ring = new Ring<{ id: number; bytes: number }>(100, 10);
    ring.push(item(4));
    ring.push(item(4));
    expect(ring.size).toBe(2);
    ring.push(item(4));
    expect([...ring.oldestFirst()].map((kept) => kept.id)).toEqual([2, 3]);
    expect(ring.bytes).toBe(8);
    ring.push(item(50));
    expect([...ring.oldestFirst()].map((kept) => kept.id)).toEqual([4]);
    expect(ring.bytes).toBe(50);
  });

  it('pages below and above an id, whatever was dropped (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: -5, max: 210 }),
        (max, pushes, at) => {
          const ring = new Ring<{ id: number; bytes: number }>(max);
          for (let n = 0; n < pushes; n++) ring.push(item());
          const kept = [...ring.oldestFirst()].map((kept) => kept.id);
          expect(kept).toEqual(
            Array.from({ length: Math.min(max, pushes) }, (_, index) => pushes - Math.min(max, pushes) + 1 + index),
          );
          expect([...ring.newestFirst(at)].map((kept) => kept.id)).toEqual(kept.filter((id) => id < at).reverse());
          expect([...ring.newerThan(at)].map((kept) => kept.id)).toEqual(kept.filter((id) => id > at));
          for (const id of kept) expect(ring.get(id)?.id).toBe(id);
        },
      ),
    );
  });

  it('stays compact over many pushes (the array does not grow with the items dropped)', () => {
    const ring = new Ring<{ id: number; bytes: number }>(10);
    for (let n = 0; n < 50_000; n++) ring.push(item());
    expect(ring.size).toBe(10);
    expect((ring as unknown as { items: unknown[] }).items.length).toBeLessThan(2100);
    expect(ring.get(50_000)?.id).toBe(50_000);
  });
});
