/**
 * `cai sign --example` and `cai verify --example`: the worked signature example of §5.10, reproduced step by step.
 * Loaded only when asked for (start-up of plain signing and verifying).
 */
import { resolve } from 'node:path';
import { usageError } from '../../errors.js';
import { readFileInput } from '../../input.js';
import { renderExample } from './example-view.js';
import { parseSignatureExample, SHIPPED_EXAMPLE } from '../../signing/example.js';
import type { CommandContext } from '../common/runner.js';

/**
 * Reproduces the shipped example, or a deployment's own file in the same format (`--example FILE`), and returns
 * the exit code: 0 reproduced, 1 not.
 */
export async function showSignatureExample(option: string | boolean, { io, output }: CommandContext): Promise<number> {
  const file = typeof option === 'string' ? resolve(io.cwd, option) : SHIPPED_EXAMPLE;
  const text = (await readFileInput(file, io, 'example')).toString('utf8');
  const parsed = parseSignatureExample(text);
  if (!parsed.ok) {
    throw usageError(
      'bad_example',
      `signature example ${file} is not usable: ${parsed.message}`,
      'see fixtures/signature-example.json for the expected shape',
    );
  }
  return renderExample(parsed.example, file, output).reproduced ? 0 : 1;
}
