import { resolve } from 'node:path';
import { readFileInput } from '../input.js';
import { DEFAULT_SIGNATURE_EXAMPLE, packageFile } from '../cli/paths.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import type { Output } from '../output/output.js';
import { parseSignatureExample, reproduceExample, type ExampleReproduction, type SignatureExample } from '../signing/example.js';

/** Loads the worked example (§5.10): the shipped fixture, or a deployment's own file in the same format. */
export async function loadExample(option: string | boolean, io: Io): Promise<{ example: SignatureExample; file: string }> {
  const file = typeof option === 'string' ? resolve(io.cwd, option) : packageFile(DEFAULT_SIGNATURE_EXAMPLE);
  const text = (await readFileInput(file, io, 'signature example')).toString('utf8');
  const parsed = parseSignatureExample(text);
  if (!parsed.ok) {
    throw usageError('bad_example', `signature example ${file} is not usable: ${parsed.message}`, 'see fixtures/signature-example.json for the expected shape');
  }
  return { example: parsed.example, file };
}

/** Prints the reproduction: steps on stdout for humans, one document for --json. */
export function renderExample(example: SignatureExample, file: string, output: Output): ExampleReproduction {
  const reproduction = reproduceExample(example);
  if (output.json) {
    output.printJson({ file, reproduced: reproduction.reproduced, expected: reproduction.expected, computed: reproduction.computed, steps: reproduction.steps });
    return reproduction;
  }
  output.result(`worked signature example (§5.10): ${file}`);
  if (example.description) output.result(example.description);
  reproduction.steps.forEach((step, index) => output.result(`${index + 1}. ${step.label}: ${step.value}`));
  output.result(
    reproduction.reproduced
      ? output.color.green('reproduced: the computed signature equals the published one')
      : output.color.red(`NOT reproduced: computed ${reproduction.computed}, published ${reproduction.expected}`),
  );
  return reproduction;
}
