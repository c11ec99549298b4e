/** The sections behind a validation issue (src/spec/sections.ts), for any field name a sender may use. */
import { describe, expect, it } from 'vitest';
import { sectionsOf } from '../../src/spec/sections.js';

describe('sectionsOf', () => {
  it("names a field's own sections, and an unknown field's §9.2", () => {
    expect(sectionsOf({ path: 'outcome', code: 'invalid_value' }, 'event')).toEqual(['§2.7', '§2.12']);
    expect(sectionsOf({ path: 'brief.intent', code: 'invalid_value' }, 'job')).toEqual(['§2.2', '§2.9']);
    expect(sectionsOf({ path: 'x_extra', code: 'unknown_field' }, 'event')).toEqual(['§2.4', '§9.2']);
  });

  it('takes a field named like a property of every object (constructor, toString, __proto__) as unknown', () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__']) {
      expect(sectionsOf({ path: name, code: 'unknown_field' }, 'event')).toEqual(['§2.4', '§9.2']);
      expect(sectionsOf({ path: name, code: 'unknown_field' }, 'job')).toEqual(['§2.2', '§9.2']);
      expect(sectionsOf({ path: '', code: name }, 'event')).toEqual(['§2.4']);
    }
  });
});
