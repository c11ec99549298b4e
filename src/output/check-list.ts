/**
 * `cai conformance list`: on a terminal, a compact list by theme (each family of ids under its name, one line per
 * check: id, level, title wrapped under itself, never cut in a word), which fits any width; with `--wide`, or when
 * stdout is not a terminal (a file, CI), the full table with the sections and tags, whole. `--json` is the command's.
 */
import type { InterfaceId } from '../spec/constants.js';
import { wrap } from './layout.js';
import type { Output } from './output.js';

/** A check as the catalogues describe it (describeCatalogue, describeSenderCatalogue). */
export interface ListedCheck {
  id: string;
  interface: InterfaceId;
  title: string;
  sections: readonly string[];
  level: string;
  tags: readonly string[];
  optional?: boolean;
  /** Sender checks that judge an Interface A provider's callbacks: counted with interface A's (listed there). */
  callbackStages?: readonly string[];
}

export async function renderCheckList(
  checks: readonly ListedCheck[],
  options: { wide: boolean },
  output: Output,
): Promise<void> {
  if (options.wide || output.width === undefined) {
    const rows = checks.map((check) => [
      check.id,
      check.level + (check.optional ? ' (optional)' : ''),
      check.sections.join(' '),
      check.tags.join(', '),
      check.title,
    ]);
    // Every column but the id may wrap, never narrower than its longest word: a table that cannot fit is a list.
    output.result(await output.table(['id', 'level', 'section', 'tags', 'title'], rows, [{ fit: 'fixed' }]));
  } else {
    output.result(compactList(checks, output.width, output));
  }
  output.resultWrapped(countLine(checks), '  ');
}

/** `48 checks (interface B: 16 must, 10 should; interface A: 10 must, 12 should)`. */
function countLine(checks: readonly ListedCheck[]): string {
  const sideOf = (check: ListedCheck) => (check.callbackStages ? 'A' : check.interface);
  const count = (iface: InterfaceId, level: string) =>
    checks.filter((check) => sideOf(check) === iface && check.level === level).length;
  const summary = (['B', 'A'] as const)
    .filter((iface) => checks.some((check) => sideOf(check) === iface))
    .map((iface) => `interface ${iface}: ${count(iface, 'must')} must, ${count(iface, 'should')} should`);
  return `${checks.length} checks (${summary.join('; ')})`;
}

/** The checks by family (`B-AUTH`), in catalogue order, each family named by the tag most of its checks carry. */
function themesOf(checks: readonly ListedCheck[]): { family: string; theme: string; checks: ListedCheck[] }[] {
  const families = new Map<string, ListedCheck[]>();
  for (const check of checks) {
    const family = check.id.replace(/-[^-]*$/, '');
    families.set(family, [...(families.get(family) ?? []), check]);
  }
  return [...families].map(([family, members]) => ({
    family,
    theme: commonestTag(members) ?? family,
    checks: members,
  }));
}

function commonestTag(checks: readonly ListedCheck[]): string | undefined {
  const counts = new Map<string, number>();
  for (const check of checks) for (const tag of check.tags.slice(0, 1)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const LEVEL_WIDTH = 'optional'.length;

function compactList(checks: readonly ListedCheck[], width: number, output: Output): string {
  const c = output.color;
  const idWidth = Math.max(...checks.map((check) => check.id.length));
  const column = 2 + idWidth + 2 + LEVEL_WIDTH + 2;
  const blocks = themesOf(checks).map(({ family, theme, checks: members }) => {
    const lines = [c.bold(`${theme} (${family}, ${members.length})`)];
    for (const check of members) {
      const level = check.optional ? 'optional' : check.level;
      // The title wraps under itself; on a terminal too narrow for that, under the id.
      const indent = width - column >= 20 ? column - 2 : 2;
      const line = `${check.id.padEnd(idWidth)}  ${level.padEnd(LEVEL_WIDTH)}  ${check.title}`;
      lines.push(...wrap(line, width - 2, { indent: ' '.repeat(indent) }).map((part) => `  ${part}`));
    }
    return lines.join('\n');
  });
  const note = 'optional: run only when --include names them. Sections and tags: --wide; everything: --json.';
  return [...blocks, wrap(note, width).join('\n')].join('\n\n');
}
