/**
 * A config file's problems in the words of the others ("expected an absolute http(s) URL"), never zod's raw ones
 * ("Invalid input: expected string, received undefined"); and a branch_code given twice refused whatever else is
 * wrong with the branches (docs/operations.md: codes unique).
 */
import { describe, expect, it } from 'vitest';
import { CaiError } from '../../src/errors.js';
import { parseConfig } from '../../src/config/load.js';

function messageOf(config: unknown): string {
  try {
    parseConfig(JSON.stringify(config), 'c.json');
  } catch (error) {
    if (error instanceof CaiError && error.code === 'invalid_config') return error.message;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('parseConfig: the words of a refusal', () => {
  it('two branches of one code and no name: both problems, in the file’s words', () => {
    const message = messageOf({
      version: 1,
      environments: { test: { branches: [{ branch_code: 'A' }, { branch_code: 'A' }] } },
    });
    expect(message).toBe(
      'c.json is invalid: environments.test.branches.0.name: missing: expected a string; environments.test.branches.1.name: missing: expected a string; environments.test.branches: branch_code "A" is given twice (branches 0 and 1): branch codes must be unique',
    );
  });

  it('a code given three times among valid branches is named with its places', () => {
    const branch = (code: string) => ({ branch_code: code, name: code });
    const message = messageOf({
      version: 1,
      environments: { test: { branches: [branch('A'), branch('B'), branch('A'), branch('A')] } },
    });
    expect(message).toBe(
      'c.json is invalid: environments.test.branches: branch_code "A" is given 3 times (branches 0, 2 and 3): branch codes must be unique',
    );
  });

  it.each([
    [
      { version: 1, environments: { test: { provider_code: 5 } } },
      'environments.test.provider_code: expected a string, got a number',
    ],
    [
      { version: 1, environments: { test: { branches: 'BR-1' } } },
      'environments.test.branches: expected a list, got a string',
    ],
    [
      { version: 1, environments: { test: { branches: [null] } } },
      'environments.test.branches.0: expected an object, got null',
    ],
    [{ version: 1 }, 'environments: missing: expected an object'],
  ])('%j: %s', (config, words) => {
    const message = messageOf(config);
    expect(message).toContain(words);
    expect(message).not.toMatch(/Invalid input|received/);
  });
});
