/**
 * Every `cai …` command line in the code blocks of README.md and docs/*.md names a real command and only flags
 * that command has, as the program declares them (src/program.ts). A renamed or removed flag fails here with the
 * file and line of the page that still shows it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { ROOT } from '../helpers/cli.js';
import { caiCommands, codeBlocks } from './markdown.js';
import { checkCommand, loadProgram } from './cli-surface.js';

export const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const COMMAND_PAGES = [
  'README.md',
  'docs/signing.md',
  'docs/records.md',
  'docs/sending.md',
  'docs/mocks.md',
  'docs/conformance.md',
  'docs/operations.md',
  'docs/ci.md',
];

let program: Command;
beforeAll(async () => {
  program = await loadProgram();
});

describe('the documented command lines exist', () => {
  it.each(PAGES)('%s', (page) => {
    const problems: string[] = [];
    let commands = 0;
    for (const block of codeBlocks(readFileSync(join(ROOT, page), 'utf8'))) {
      for (const line of caiCommands(block)) {
        commands += 1;
        const check = checkCommand(program, line.words);
        for (const problem of check.problems) problems.push(`${page}:${line.line}: ${problem}\n    ${line.text}`);
      }
    }
    expect(problems).toEqual([]);
    // The reference pages of the commands show them; a page whose examples vanished from the check fails here.
    if (COMMAND_PAGES.includes(page)) expect(commands, `${page} shows no cai command`).toBeGreaterThan(0);
  });
});

describe('the checker itself', () => {
  it('accepts a real command line and names what is wrong with a bad one', () => {
    expect(checkCommand(program, ['conformance', 'run', '--mock', '--interface', 'B']).problems).toEqual([]);
    expect(checkCommand(program, ['--json', 'validate', 'event', 'x.json']).problems).toEqual([]);
    expect(checkCommand(program, ['--config', 'c.json', 'doctor', '--interface', 'B']).problems).toEqual([]);
    expect(checkCommand(program, ['sign', '--bodyy', 'x']).problems).toEqual(['cai sign has no option --bodyy']);
    expect(checkCommand(program, ['mock', 'platfrom']).problems[0]).toMatch(/^cai mock has no command "platfrom"/);
    expect(
      checkCommand(program, ['send-event', '[--no-retry]', '--dry-run', '[--format', 'http|curl]']).problems,
    ).toEqual([]);
    expect(checkCommand(program, ['send-event', '--no-validat']).problems).toEqual([
      'cai send-event has no option --no-validat',
    ]);
  });
});
