#!/usr/bin/env node
// Writes the latitude tables of docs/conformance.md from the model's own latitude (the built
// dist/spec/model/latitude.js and sender-latitude.js), so that what the page says the model leaves open is what the
// model leaves open. Each table sits between `<!-- latitude:KEY -->` and `<!-- /latitude -->`. Run `npm run docs`
// (it builds first); `--check` exits 1 when the committed page differs; test/docs/latitude.test.ts renders the same
// text from src/ and compares it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-page.mjs';

export const PAGE = 'docs/conformance.md';
export const REGENERATE = 'npm run docs';

/** A table cell: pipes escaped, and `<` outside code spans written as `&lt;` (`sha256=<hex>` is no HTML tag). */
const cell = (text) =>
  String(text)
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ')
    .split('`')
    .map((part, index) => (index % 2 === 0 ? part.replaceAll('<', '&lt;') : part))
    .join('`');

/** What a receiver may answer besides what the rules ask, in words. */
function leeway(point) {
  const ways = [];
  if (point.mayRefuseWith === 'any-4xx') ways.push('refuse it with any 4xx');
  else if (point.mayRefuseWith !== undefined) ways.push(`refuse it with ${point.mayRefuseWith.join(' or ')}`);
  if (point.mayAccept) ways.push('accept it');
  const preferred =
    point.should === undefined ? '' : `; ${point.should === 'accept' ? 'accepting' : 'refusing'} it is a \`should\``;
  const once = point.oneChoice ? '; one choice for all its requests' : '';
  return `${ways.join(', or ')}${preferred}${once}`;
}

/**
 * The tables, by key, from plain data: the exports of src/spec/model/latitude.ts and sender-latitude.ts.
 * @param {{ OPEN_POINTS: Record<string, {clause: string, text: string, mayRefuseWith?: readonly number[] | 'any-4xx', mayAccept?: boolean, should?: string, oneChoice?: true}>, ANSWER_LATITUDE: readonly {clause: string, text: string}[], SENDER_LATITUDE: readonly {clause: string, text: string}[] }} latitude
 * @returns {Record<string, string[]>}
 */
export function latitudeTables({ OPEN_POINTS, ANSWER_LATITUDE, SENDER_LATITUDE }) {
  const open = Object.entries(OPEN_POINTS).map(
    ([id, point]) => `| \`${id}\` | ${cell(point.clause)} | ${cell(point.text)} | ${cell(leeway(point))} |`,
  );
  const plain = (rows) => rows.map((row) => `| ${cell(row.clause)} | ${cell(row.text)} |`);
  return {
    'receiver-requests': ['| open point | the spec | the question | a receiver may |', '|---|---|---|---|', ...open],
    'receiver-answers': ['| the spec | never judged, whatever the request |', '|---|---|', ...plain(ANSWER_LATITUDE)],
    sender: ['| the spec | never judged of a sender |', '|---|---|', ...plain(SENDER_LATITUDE)],
  };
}

/** The page with every latitude block set; a marker naming no table, or one left open, is an error. */
export function withLatitude(text, tables) {
  const out = [];
  let open;
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const start = /^<!-- latitude:([\w-]+) -->$/.exec(line.trim());
    if (open !== undefined) {
      if (line.trim() !== '<!-- /latitude -->') return;
      out.push(...tables[open], line);
      open = undefined;
      return;
    }
    out.push(line);
    if (start) {
      if (!(start[1] in tables))
        throw new Error(`${PAGE}:${index + 1}: no latitude table named ${start[1]} (scripts/gen-latitude.mjs)`);
      open = start[1];
    }
  });
  if (open !== undefined) throw new Error(`${PAGE}: the latitude block ${open} is never closed (<!-- /latitude -->)`);
  return out.join('\n');
}

async function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { OPEN_POINTS, ANSWER_LATITUDE } = await import(
    new URL('../dist/spec/model/latitude.js', import.meta.url).href
  );
  const { SENDER_LATITUDE } = await import(new URL('../dist/spec/model/sender-latitude.js', import.meta.url).href);
  const committed = readFileSync(`${root}${PAGE}`, 'utf8');
  const text = withLatitude(committed, latitudeTables({ OPEN_POINTS, ANSWER_LATITUDE, SENDER_LATITUDE }));
  writeOrCheck(root, PAGE, text, { regenerate: REGENERATE, source: 'the model latitude (src/spec/model)' });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
