import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { CORPUS_KINDS, corpusLabels, type Label } from '../helpers/corpus.js';

interface JsonReport {
  valid: boolean;
  documents: {
    source: string;
    kind: string;
    valid: boolean;
    errors: { path: string; code: string }[];
    warnings: { path: string; code: string }[];
  }[];
}

const labels = corpusLabels();

describe('the labelled fixture corpus through the built binary', () => {
  it('has at least 40 documents, valid and invalid, and every invalid one names its rule', () => {
    expect(labels.length).toBeGreaterThanOrEqual(40);
    expect(labels.filter((l) => l.valid).length).toBeGreaterThanOrEqual(15);
    expect(labels.filter((l) => !l.valid).length).toBeGreaterThanOrEqual(25);
    expect(labels.filter((l) => !l.valid).every((l) => l.issue)).toBe(true);
  });

  it.each(CORPUS_KINDS)('cai validate agrees with every label of fixtures/corpus/%s', async (kind) => {
    const mine = labels.filter((label) => label.kind === kind);
    const kindArg = kind === 'catalog' ? 'auto' : kind;
    const extra = kind === 'catalog' ? ['--catalog', 'fixtures/corpus/catalog.json'] : [];
    const result = await spawnCli(['--json', 'validate', kindArg, ...extra, ...mine.map((label) => label.file)]);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(result.code).toBe(mine.every((label) => label.valid) ? 0 : 1);
    expect(report.documents.map((d) => d.source)).toEqual(mine.map((label) => label.file));
    mine.forEach((label: Label, index) => {
      const document = report.documents[index];
      const seen = {
        file: label.file,
        valid: document?.valid,
        errors: document?.errors.map(({ path, code }) => ({ path, code })),
        warnings: document?.warnings.map(({ path, code }) => ({ path, code })),
      };
      expect(seen).toEqual({
        file: label.file,
        valid: label.valid,
        errors: label.valid ? [] : [label.issue],
        warnings: label.valid && label.issue ? [label.issue] : label.valid ? [] : seen.warnings,
      });
    });
  });

  it('auto-detection reaches the same verdicts for jobs and events', async () => {
    const mine = labels.filter((label) => label.kind === 'job' || label.kind === 'event');
    const result = await spawnCli(['--json', 'validate', ...mine.map((label) => label.file)]);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.documents.map((d) => d.valid)).toEqual(mine.map((label) => label.valid));
    expect(report.valid).toBe(false);
  });
});
