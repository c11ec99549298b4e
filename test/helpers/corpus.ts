import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export const CORPUS = join(ROOT, 'fixtures/corpus');
export const CORPUS_KINDS = ['job', 'event', 'ack', 'duplicate-ack', 'catalog'] as const;
export type CorpusKind = (typeof CORPUS_KINDS)[number];

export interface Label {
  /** Path relative to the repository root. */
  file: string;
  kind: CorpusKind;
  valid: boolean;
  /** For invalid files: the one error. For valid `warns--` files: the one warning. */
  issue?: { path: string; code: string };
}

/** File names are the labels: invalid/PATH--CODE--NAME.json, valid/warns--PATH--CODE--NAME.json, valid/NAME.json. */
export function corpusLabels(): Label[] {
  const labels: Label[] = [];
  for (const kind of CORPUS_KINDS) {
    for (const validity of ['valid', 'invalid'] as const) {
      for (const name of readdirSync(join(CORPUS, kind, validity))
        .filter((n) => n.endsWith('.json'))
        .sort()) {
        const file = `fixtures/corpus/${kind}/${validity}/${name}`;
        const parts = name.replace(/\.json$/, '').split('--');
        const labelled = validity === 'invalid' ? parts : parts[0] === 'warns' ? parts.slice(1) : undefined;
        if (labelled && labelled.length < 3) throw new Error(`corpus file ${file} is not labelled PATH--CODE--NAME`);
        const label: Label = { file, kind, valid: validity === 'valid' };
        if (labelled)
          label.issue = {
            path: labelled[0] === 'document' ? '' : (labelled[0] as string),
            code: labelled[1] as string,
          };
        labels.push(label);
      }
    }
  }
  return labels;
}
