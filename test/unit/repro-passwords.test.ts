/**
 * A reproduction script holds no URL password (docs/limits.md): every quoting the script's lines use reads it
 * from the variable the script names, and a message shows it masked.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { withoutUrlPasswords } from '../../src/commands/conformance/repro.js';

/** What `sh` makes of a line: its words, one a line. */
const words = (line: string, env: NodeJS.ProcessEnv) =>
  spawnSync('sh', ['-c', `set -- ${line}; printf '%s\\n' "$@"`], {
    env: { PATH: process.env.PATH, ...env },
  }).stdout.toString();

describe('withoutUrlPasswords', () => {
  it('in single quotes, double quotes or none, the word is the URL with the password read when it runs', () => {
    const { guards, lines } = withoutUrlPasswords([
      `curl 'https://u:p%40ss@h.test/events?a=b c' "http://v:other@h.test/x" http://u:p%40ss@h.test/y`,
      `echo 'no answer from https://u:p%40ss@h.test/events' >&2`,
    ]);
    expect(lines.join('\n')).not.toMatch(/p%40ss|other/);
    expect(guards).toEqual([
      `[ -n "\${CAI_URL_PASSWORD+set}" ] || { echo 'set CAI_URL_PASSWORD to the password of https://u:***@h.test/events?a=b' >&2; exit 2; }`,
      `[ -n "\${CAI_URL_PASSWORD_2+set}" ] || { echo 'set CAI_URL_PASSWORD_2 to the password of http://v:***@h.test/x' >&2; exit 2; }`,
    ]);
    expect(lines[1]).toBe(`echo 'no answer from https://u:***@h.test/events' >&2`);
    expect(
      words((lines[0] as string).slice('curl '.length), { CAI_URL_PASSWORD: 'p%40ss', CAI_URL_PASSWORD_2: "it's" }),
    ).toBe(`https://u:p%40ss@h.test/events?a=b c\nhttp://v:it's@h.test/x\nhttp://u:p%40ss@h.test/y\n`);
  });
});
