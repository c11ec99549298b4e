import { describe, expect, it } from 'vitest';
import { describeIssue } from '../../src/spec/issues.js';
import { validateDocument } from '../../src/spec/validate.js';
import { sampleEvent } from '../../src/spec/sample.js';

describe('describeIssue', () => {
  it('writes path: message, with what was expected and what came', () => {
    expect(
      describeIssue({
        path: 'outcome',
        message: 'not one of the allowed values',
        expected: 'one of: a, b',
        received: '"c"',
      }),
    ).toBe('outcome: not one of the allowed values (expected one of: a, b, got "c")');
    expect(describeIssue({ path: 'text', message: 'is required' })).toBe('text: is required');
    expect(describeIssue({ path: '', message: 'not JSON', received: '"}"' })).toBe('(document): not JSON (got "}")');
  });

  it('describes the issues the validator finds', () => {
    const verdict = validateDocument({ ...sampleEvent('job.closed'), attempts: -2 }, { kind: 'event' });
    expect(verdict.errors.map(describeIssue)).toEqual(['attempts: must be 0 or more (expected >= 0, got -2)']);
  });

  it('names a number past the range of a double as written so, not as the Infinity JSON.parse made of it', () => {
    for (const attempts of [JSON.parse('3e400'), JSON.parse('-1e999'), JSON.parse('1e400')]) {
      const verdict = validateDocument({ ...sampleEvent('job.closed'), attempts }, { kind: 'event' });
      const texts = verdict.errors.map(describeIssue);
      expect(texts).toHaveLength(1);
      expect(texts[0]).toMatch(/^attempts: .*got a number beyond the range of a double\)$/);
      expect(texts[0]).not.toMatch(/Infinity/);
    }
  });
});
