/**
 * The stateful phase sends ids made near earlier ones (a character more or less, a leading zero, another case: what
 * a receiver that conflates identifiers would take for a repeat, §6.1). Such an id is expected new by the
 * conversation that made it, so it must never be an id another conversation of the run sent as fresh, nor one made
 * from a name every run sends (an object built-in): a correct receiver would rightly call it a duplicate.
 */
import { describe, expect, it } from 'vitest';
import { transformed } from '../../src/conformance/explore/receiver-requests.js';
import { ID_TRANSFORMS } from '../../src/conformance/explore/receiver-requests.js';
import { conformanceEventId } from '../../src/conformance/probe/session.js';

describe('ids made near fresh ones', () => {
  it('are never another fresh id of the run, whatever the transform and the counter', () => {
    const fresh = Array.from({ length: 1200 }, (_, index) => conformanceEventId('0a1b2c3d', 'b-state-003', index + 1));
    const issued = new Set(fresh);
    const clashes: string[] = [];
    for (const [index, id] of fresh.entries()) {
      for (const transform of ID_TRANSFORMS) {
        const near = transformed(id, transform, fresh[(index + 1) % fresh.length] as string);
        if (near !== id && issued.has(near)) clashes.push(`${transform}: ${id} -> ${near}`);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('differ from the id they are made from', () => {
    const id = conformanceEventId('0a1b2c3d', 'b-state-003', 12);
    for (const transform of ID_TRANSFORMS)
      expect(transformed(id, transform, conformanceEventId('0a1b2c3d', 'b-state-003', 13)), transform).not.toBe(id);
  });
});
