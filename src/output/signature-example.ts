import { reproduceExample, type ExampleReproduction, type SignatureExample } from '../signing/example.js';
import type { Output } from './output.js';

/** The reproduction of a worked signature example (§5.10): its steps on stdout, or one document with --json. */
export function renderExample(example: SignatureExample, file: string, output: Output): ExampleReproduction {
  const reproduction = reproduceExample(example);
  if (output.json) {
    output.printJson({ file, reproduced: reproduction.reproduced, expected: reproduction.expected, computed: reproduction.computed, steps: reproduction.steps });
    return reproduction;
  }
  output.resultWrapped(`worked signature example (§5.10): ${file}`, '  ');
  if (example.description) output.resultWrapped(example.description);
  reproduction.steps.forEach((step, index) => output.resultWrapped(`${index + 1}. ${step.label}: ${step.value}`, '   '));
  output.resultWrapped(
    reproduction.reproduced
      ? output.color.green('reproduced: the computed signature equals the published one')
      : output.color.red(`NOT reproduced: computed ${reproduction.computed}, published ${reproduction.expected}`),
  );
  return reproduction;
}
