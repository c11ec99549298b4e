#!/usr/bin/env node
// Writes every count of conformance checks the pages show (README.md and docs/*.md) from the catalogue itself (the
// built dist/conformance/catalogue.js and dist/conformance/run-receiver.js), so that a check added or removed
// changes the pages with `npm run docs` instead of leaving them wrong. `--check` exits 1 when a committed page
// differs; test/docs/counts.test.ts renders the same text from src/ and compares it.
//
// Two forms:
// - In the text, `<!-- count:KEY -->82<!-- /count -->`: the number between the markers is the count KEY names
//   (COUNT_KEYS below). Inside inline code, which cannot hold a comment, the markers go around the code span and the
//   number after its `/` is the count (a progress line: `23/76 checks …`).
// - In a code block, the output of a `conformance run` (its count line `P passed, F failed, S skipped`, its
//   `(T checks)`, `(N checks not run)`, `the suite not run (N checks)`): the selection is the `conformance run`
//   command shown above the output in the block (its --interface, --role, --only, --skip, --include, --generate), or,
//   for a block that shows only output, `<!-- counts: conformance run --interface B … -->` in the comment lines right
//   above the fence. The failed checks and warnings shown are the example's own and are kept; the skipped ones are
//   the selection's, and the passed ones the rest.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-page.mjs';

export const REGENERATE = 'npm run docs';

/** The pages, from the repository root: the README and every page of docs/. */
export function pagesOf(root) {
  return [
    'README.md',
    ...readdirSync(`${root}docs`)
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}

/**
 * The named counts, from the catalogue: `checksFor(role, iface)` and the receiver run's plan, `planFor`.
 * @param {{ checksFor: Function, planFor: Function, planRun: Function }} catalogue
 */
export function countKeys({ checksFor, planFor }) {
  const receivers = (iface) => checksFor('receiver', iface);
  const plan = (iface) => planFor({ interface: iface, selection: { only: [], skip: [], include: [] } }).planned;
  const keys = {};
  for (const iface of ['B', 'A']) {
    const checks = receivers(iface);
    keys[iface] = checks.length;
    keys[`${iface}-must`] = checks.filter((check) => check.level === 'must').length;
    keys[`${iface}-must-optional`] = checks.filter((check) => check.level === 'must' && check.optional).length;
    keys[`${iface}-should`] = checks.filter((check) => check.level === 'should').length;
    keys[`${iface}-optional`] = checks.filter((check) => check.optional).length;
    keys[`default-${iface}`] = plan(iface).length;
    keys[`run-${iface}`] = plan(iface).filter((item) => item.skipReason === undefined).length;
    keys[`sender-${iface}`] = checksFor('sender', iface).length;
  }
  // The event sender's checks that an Interface A run judges on the provider's callbacks.
  keys['A-callback'] = receivers('A').filter((check) => check.role === 'sender').length;
  keys.receivers = keys.B + keys.A;
  keys.senders = keys['sender-B'] + keys['sender-A'];
  return keys;
}

/** The selection a `conformance run` command line asks for, or undefined when the line is none. */
export function selectionOf(line) {
  const at = line.search(/\bconformance run\b/);
  if (at < 0) return undefined;
  const words = line
    .slice(at + 'conformance run'.length)
    .split(/\s+/)
    .filter((word) => word !== '');
  const value = (flag) => {
    const found = [];
    words.forEach((word, index) => {
      if (word === flag && words[index + 1] !== undefined) found.push(words[index + 1]);
      else if (word.startsWith(`${flag}=`)) found.push(word.slice(flag.length + 1));
    });
    return found
      .flatMap((text) => text.replace(/^['"]|['"]$/g, '').split(','))
      .map((text) => text.trim())
      .filter((text) => text !== '');
  };
  const iface = value('--interface')[0] ?? 'B';
  const role = value('--role')[0] ?? 'receiver';
  const include = value('--include');
  if (words.includes('--generate') || words.some((word) => word.startsWith('--generate='))) include.push('generate');
  return { interface: iface, role, selection: { only: value('--only'), skip: value('--skip'), include } };
}

/** How many checks a selection plans, and how many of them are reported skipped without running. */
export function planned({ planFor, planRun }, wanted) {
  const plan =
    wanted.role === 'sender'
      ? planRun('sender', wanted.interface, wanted.selection)
      : planFor({ interface: wanted.interface, selection: wanted.selection });
  return { total: plan.planned.length, skipped: plan.planned.filter((item) => item.skipReason !== undefined).length };
}

const COUNT_LINE = /^(.*?)(\d+) passed, (\d+) failed, (\d+) skipped(.*)$/;

/**
 * One code block's lines with their run counts set from the selection in force at each line; a count line with no
 * selection in force is added to `loose` (a count written by hand).
 */
function countBlock(lines, initial, catalogue, where, loose) {
  let current = initial;
  return lines.map((text, index) => {
    if (/^\$ /.test(text)) {
      // A new command: its own selection, or none (`echo $?` keeps the one before).
      if (!/^\$ echo \$\?/.test(text)) current = selectionOf(text) ?? initial;
      return text;
    }
    if (current === undefined) {
      if (COUNT_LINE.test(text)) loose.push(`${where}: ${text.trim()}`);
      return text;
    }
    const { total, skipped } = planned(catalogue, current);
    let line = text.replace(
      /the suite not run \((\d+) checks?\)/,
      () => `the suite not run (${total - skipped} check${total - skipped === 1 ? '' : 's'})`,
    );
    const counts = COUNT_LINE.exec(line);
    if (counts) {
      const [, before, , failedText, , rest] = counts;
      if (/checks? not run\)/.test(rest))
        return line.replace(/\((\d+) checks? not run\)/, () => `(${total - skipped} checks not run)`);
      const failed = Number(failedText);
      // Warnings, waived and not judged checks on this line (`; 0 warnings`) or the next (`0 warnings, 2 waived`), as
      // the summary and the table print them: none of them is passed.
      const tail = /warning/.test(rest)
        ? rest
        : /^\d+ warnings?\b/.test(lines[index + 1] ?? '')
          ? lines[index + 1]
          : '';
      const other = ['warnings?', 'waived', 'not judged'].reduce(
        (sum, word) => sum + Number(new RegExp(`(\\d+) ${word}`).exec(tail)?.[1] ?? 0),
        0,
      );
      const passed = total - failed - skipped - other;
      if (passed < 0)
        throw new Error(
          `${where}: ${failed} failed, ${skipped} skipped and ${other} warned, waived or not judged are more than the ${total} checks of the run`,
        );
      line = `${before}${passed} passed, ${failed} failed, ${skipped} skipped${rest.replace(/\((\d+) checks\)/, `(${total} checks)`)}`;
    }
    return line;
  });
}

/**
 * The page with every count set.
 * @param {string} page its path, for messages
 * @param {string} text its text
 * @param {ReturnType<typeof countKeys>} keys
 * @param {{ checksFor: Function, planFor: Function, planRun: Function }} catalogue
 * @param {string[]} [loose] where the count lines of code blocks that no selection explains are listed
 */
export function withCounts(page, text, keys, catalogue, loose = []) {
  const lines = text.split('\n');
  const out = [];
  let fence;
  let block = [];
  let initial;
  const inline = (line, number) =>
    line.replace(/<!-- count:([\w-]+) -->(.*?)<!-- \/count -->/g, (match, key, content) => {
      if (!(key in keys))
        throw new Error(`${page}:${number}: no count named ${key} (scripts/gen-counts.mjs, countKeys)`);
      if (/^\d+$/.test(content)) return `<!-- count:${key} -->${keys[key]}<!-- /count -->`;
      if (/^`[^`]*\/\d+[^`]*`$/.test(content))
        return `<!-- count:${key} -->${content.replace(/\/\d+/, `/${keys[key]}`)}<!-- /count -->`;
      throw new Error(`${page}:${number}: a count holds a number, or inline code with /N: ${match}`);
    });
  lines.forEach((line, index) => {
    if (fence !== undefined) {
      if (line.trim() === fence) {
        out.push(...countBlock(block, initial, catalogue, `${page}:${index - block.length + 1}`, loose), line);
        fence = undefined;
      } else block.push(line);
      return;
    }
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (opening) {
      fence = opening[1];
      block = [];
      // `<!-- counts: conformance run … -->` among the comment lines right above the fence.
      initial = undefined;
      for (let at = out.length - 1; at >= 0 && /^<!--.*-->$/.test(out[at].trim()); at -= 1) {
        const marker = /^<!-- counts: (.*) -->$/.exec(out[at].trim());
        if (marker) initial = selectionOf(marker[1]);
      }
      out.push(line);
      return;
    }
    out.push(inline(line, index + 1));
  });
  return out.join('\n');
}

async function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { checksFor, planRun } = await import(new URL('../dist/conformance/catalogue.js', import.meta.url).href);
  const { planFor } = await import(new URL('../dist/conformance/run-receiver.js', import.meta.url).href);
  const catalogue = { checksFor, planFor, planRun };
  const keys = countKeys(catalogue);
  for (const page of pagesOf(root)) {
    const committed = readFileSync(`${root}${page}`, 'utf8');
    const text = withCounts(page, committed, keys, catalogue);
    if (text !== committed || process.argv.includes('--check'))
      writeOrCheck(root, page, text, { regenerate: REGENERATE, source: 'the check catalogue (src/conformance)' });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
