import { reproduceExample, type ExampleReproduction, type SignatureExample } from '../../signing/example.js';
import type { Output } from '../../output/output.js';
import { safeText } from '../../output/safe-text.js';

/** The reproduction of a worked signature example (§5.10): its steps on stdout, or one document with --json. */
export function renderExample(example: SignatureExample, file: string, output: Output): ExampleReproduction {
  const reproduction = reproduceExample(example);
  if (output.json) {
    output.printJson({ file, ...reproduction });
    return reproduction;
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
  return reproduction;
}
