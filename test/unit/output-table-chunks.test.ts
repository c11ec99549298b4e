/**
 * A long table is drawn in chunks (cli-table3's layout is quadratic in its rows): the text must be the very text
 * one cli-table3 table gives, with cells of every width the two measures could disagree on (CJK, emoji, combining
 * marks, several lines in a cell, a widest cell in the last chunk only), piped and on a terminal.
 */
import Table from 'cli-table3';
import { describe, expect, it } from 'vitest';
import { visibleWidth } from '../../src/output/layout.js';
import { Output } from '../../src/output/output.js';
import { fakeIo } from '../helpers/cli.js';
import { ttyIo } from '../helpers/tty.js';

const SAMPLES = ['a', 'branch-7', '東京支店', 'café', 'e\u0301t\u00e9', '🙂 ok', 'two\nlines', '', '〈x〉', '︐'];

function rowsOf(count: number): string[][] {
  return Array.from({ length: count }, (_, index) => [
    `BR-${index}`,
    SAMPLES[index % SAMPLES.length] as string,
    String(index * 7),
  ]);
}

/** One cli-table3 table, with the options Output gives it when nothing has to fit a terminal. */
function oneTable(head: string[], rows: string[][]): string {
  const table = new Table({
    head,
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of rows) table.push(row);
  return table.toString();
}

describe('a long table', () => {
  const head = ['branch', 'name', 'count'];

  it('is the same text as one table, piped, for row counts around the chunk size', async () => {
    for (const count of [199, 200, 201, 399, 400, 401, 1234]) {
      const rows = rowsOf(count);
      if (count === 1234) rows[1233] = ['BR-last', 'the widest cell, in the last chunk only', '1'];
      const drawn = await new Output(fakeIo(), { json: false, quiet: false, debug: false }).table(head, rows);
      expect(drawn, `${count} rows`).toBe(oneTable(head, rows));
    }
  });

  it('on a terminal, keeps one set of fitted widths across its chunks, with one top and one bottom border', async () => {
    const rows = rowsOf(450);
    rows[449] = ['BR-last', 'a long name that has to wrap on a narrow terminal, in the last chunk only', '1'];
    const output = new Output(ttyIo({ columns: 40 }), { json: false, quiet: false, debug: false });
    const lines = (await output.table(head, rows)).split('\n');
    expect(lines.filter((line) => line.startsWith('┌'))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('└'))).toHaveLength(1);
    expect(new Set(lines.map((line) => visibleWidth(line))).size).toBe(1);
    expect(visibleWidth(lines[0] as string)).toBeLessThanOrEqual(40);
    expect(lines.filter((line) => /│ BR-\d+ /.test(line))).toHaveLength(449);
    expect(lines.join(' ')).toMatch(/in the/);
  });

  it('of 3 000 rows is drawn whole', async () => {
    const rows = rowsOf(3_000);
    const drawn = await new Output(fakeIo(), { json: false, quiet: false, debug: false }).table(head, rows);
    const lines = drawn.split('\n');
    expect(lines.filter((line) => /│ BR-\d+ /.test(line))).toHaveLength(3_000);
    expect(lines.at(-1)?.startsWith('└')).toBe(true);
  });
});
