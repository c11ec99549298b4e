/**
 * The latitude tables of docs/conformance.md are generated from the model's latitude (scripts/gen-latitude.mjs):
 * here they are rendered from src/spec/model and compared with the committed page, so an open point added, changed
 * or dropped without `npm run docs` fails, with the command that fixes it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANSWER_LATITUDE, OPEN_POINTS } from '../../src/spec/model/latitude.js';
import { SENDER_LATITUDE } from '../../src/spec/model/sender-latitude.js';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { PAGE, REGENERATE, latitudeTables, withLatitude } from '../../scripts/gen-latitude.mjs';

type Tables = Record<string, string[]>;
const tablesOf = latitudeTables as (latitude: unknown) => Tables;
const fill = withLatitude as (text: string, tables: Tables) => string;
const tables = tablesOf({ OPEN_POINTS, ANSWER_LATITUDE, SENDER_LATITUDE });
const committed = readFileSync(join(ROOT, PAGE as string), 'utf8');

describe(`the latitude tables of ${PAGE as string}`, () => {
  it('are what src/spec/model generates', () => {
    expect(
      fill(committed, tables) === committed,
      `${PAGE as string} is out of date: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
  });

  it('are all on the page, one row per open point and per line of latitude', () => {
    for (const key of Object.keys(tables)) expect(committed).toContain(`<!-- latitude:${key} -->`);
    for (const id of Object.keys(OPEN_POINTS)) expect(committed).toContain(`| \`${id}\` |`);
    expect(tables['receiver-answers']).toHaveLength(ANSWER_LATITUDE.length + 2);
    expect(tables.sender).toHaveLength(SENDER_LATITUDE.length + 2);
  });

  it('refill a stale block and refuse an unknown or unclosed one', () => {
    const stale = '<!-- latitude:sender -->\n| old |\n<!-- /latitude -->';
    expect(fill(stale, tables)).toBe(
      ['<!-- latitude:sender -->', ...(tables.sender ?? []), '<!-- /latitude -->'].join('\n'),
    );
    expect(() => fill('<!-- latitude:nowhere -->\n<!-- /latitude -->', tables)).toThrow(
      /no latitude table named nowhere/,
    );
    expect(() => fill('<!-- latitude:sender -->\n| row |', tables)).toThrow(/never closed/);
  });

  it('write a < outside code spans as &lt;, so that no text reads as an HTML tag', () => {
    const row = tablesOf({
      OPEN_POINTS: { x: { clause: '§5.3', text: 'sha256=<hex> and `0<digits>`', mayAccept: true } },
      ANSWER_LATITUDE: [],
      SENDER_LATITUDE: [],
    })['receiver-requests']?.[2];
    expect(row).toBe('| `x` | §5.3 | sha256=&lt;hex> and `0<digits>` | accept it |');
  });
});
