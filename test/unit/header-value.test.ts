import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerProblem, headerValueProblem, isHeaderName, isHeaderValue } from '../../src/spec/header-value.js';
import { parseConfig } from '../../src/config/load.js';

/** The characters RFC 9110 §5.5 refuses in a field value: C0 controls but HTAB, and DEL. */
const CONTROL = fc
  .integer({ min: 0, max: 0x7f })
  .filter((code) => (code < 0x20 && code !== 0x09) || code === 0x7f)
  .map((code) => String.fromCharCode(code));
const VCHAR = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));

describe('header values (RFC 9110 §5.5), one validator for every header cai builds', () => {
  it('refuses any value holding a control character (CR, LF, NUL, other C0 but HTAB, DEL), wherever it is', () => {
    fc.assert(
      fc.property(fc.string(), CONTROL, fc.string(), (before, control, after) => {
        const problem = headerValueProblem(`${before}${control}${after}`);
        expect(problem?.code === 'control_character' || problem?.code === 'non_ascii').toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts any printable ASCII with inner spaces and tabs', () => {
    fc.assert(
      fc.property(VCHAR, fc.array(fc.oneof(VCHAR, fc.constantFrom(' ', '\t'))), VCHAR, (first, middle, last) => {
        expect(isHeaderValue(`${first}${middle.join('')}${last}`)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('names the character and where it is', () => {
    expect(headerValueProblem('acme\r\nX-Evil: 1')?.message).toBe(
      'holds a carriage return (CR) at character 5: a header value cannot hold control characters (RFC 9110 §5.5)',
    );
    expect(headerValueProblem('a\u0000')?.message).toMatch(/^holds a NUL byte at character 2/);
    expect(headerValueProblem('a\u0007')?.message).toMatch(/^holds the control character U\+0007 at character 2/);
    expect(headerValueProblem('açme')?.code).toBe('non_ascii');
    expect(headerValueProblem(' acme')?.code).toBe('surrounding_whitespace');
    expect(headerValueProblem('')).toBeUndefined();
    expect(headerValueProblem('acme')).toBeUndefined();
  });

  it('header names are tokens (RFC 9110 §5.1)', () => {
    expect(isHeaderName('X-CAI-Provider')).toBe(true);
    expect(isHeaderName('X CAI')).toBe(false);
    expect(isHeaderName('X:CAI')).toBe(false);
    expect(
      headerProblem([
        ['Content-Type', 'application/json'],
        ['X-CAI-Source', 'p\nX: 1'],
      ]),
    ).toEqual({ name: 'X-CAI-Source', problem: expect.stringMatching(/^value holds a line feed \(LF\)/) });
  });

  it('a profile whose provider_code or platform_id cannot be a header is refused when it is read', () => {
    const config = (field: string, value: string) =>
      JSON.stringify({ version: 1, environments: { test: { [field]: value } } });
    expect(() => parseConfig(config('provider_code', 'acme\r\nX-Evil: 1'), 'c.json')).toThrow(
      'c.json is invalid: environments.test.provider_code: sent as a header, and it holds a carriage return (CR) at character 5',
    );
    expect(() => parseConfig(config('platform_id', 'plat\u001b[31m'), 'c.json')).toThrow(
      /environments\.test\.platform_id: sent as a header, and it holds an escape character \(ESC\)/,
    );
    expect(parseConfig(config('provider_code', 'acme'), 'c.json').environments.test?.provider_code).toBe('acme');
  });
});
