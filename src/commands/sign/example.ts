/**
 * `cai sign --example` and `cai verify --example`: the worked signature example of §5.10, reproduced step by step
 * on stdout, or as one document with --json. Loaded only when asked for (start-up of plain signing and verifying).
 */
import { resolve } from 'node:path';
import { usageError } from '../../errors.js';
import { readFileInput } from '../../input.js';
import { safeText } from '../../output/safe-text.js';
import { parseSignatureExample, reproduceExample, SHIPPED_EXAMPLE } from '../../signing/example.js';
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
  const { example } = parsed;
  const reproduction = reproduceExample(example);
  if (output.json) {
    output.printJson({ file, ...reproduction });
    return reproduction.reproduced ? 0 : 1;
  }
  // The description and the values come from the example's file: escaped.
  output.resultWrapped(`worked signature example (§5.10): ${safeText(file)}`, '  ');
  if (example.description) output.resultWrapped(safeText(example.description));
  reproduction.steps.forEach((step, index) =>
    output.resultWrapped(`${index + 1}. ${step.label}: ${safeText(step.value)}`, '   '),
  );
  output.resultWrapped(
    reproduction.reproduced
      ? output.color.green('reproduced: the computed signature equals the published one')
      : output.color.red(
          `NOT reproduced: computed ${reproduction.computed}, published ${safeText(reproduction.expected)}`,
        ),
  );
  return reproduction.reproduced ? 0 : 1;
}
