/**
 * A reproduction script prints the target's answer through one filter (ANSWER_FILTER, run by node): what a
 * terminal acts on is escaped as cai's own output escapes it (safeBlock), line feeds and tabs kept, and no line can
 * run as a GitHub Actions workflow command.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ANSWER_FILTER } from '../../src/commands/conformance/repro-request.js';
import { safeBlock } from '../../src/output/safe-text.js';

/** What the script prints for an answer of these bytes. */
const filtered = (answer: string | Buffer) =>
  spawnSync(process.execPath, ['-e', ANSWER_FILTER], { input: answer }).stdout.toString('utf8');

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('the answer filter of a reproduction script', () => {
  it('escapes C0 (a lone CR too), DEL, C1, the separators and the bidi controls as safeBlock does; keeps LF, tab and CRLF', () => {
    const answer =
      'a\u001b[2J\u001b]0;T\u0007 \u009b31m \u0085 \u007f \u202aE\u202eR\u2066I\u2069 \u2028LS\u2029PS\r\n\tnext\rover\u0000é 日本';
    const shown = filtered(answer);
    expect(shown).toBe(safeBlock(answer));
    expect(shown.replace(/\r\n/g, '\n')).not.toMatch(UNSAFE);
    expect(shown).toContain('\\u009b31m');
    expect(shown).toContain('\\u202eR');
    expect(shown).toContain('\r\n\tnext\\rover\\x00é 日本');
  });

  it('shows a byte that is not UTF-8 (a lone 0x9b, CSI in Latin-1) as U+FFFD, never raw', () => {
    const shown = filtered(Buffer.from([0x61, 0x9b, 0x33, 0x31, 0x6d, 0xff, 0x0a]));
    expect(shown).toBe('a\ufffd31m\ufffd\n');
  });

  it('neutralises the lines GitHub Actions runs as workflow commands: `::` first after blanks, `##[` anywhere', () => {
    const answer =
      '::error::one\n   ::warning file=x::two\n\t::add-mask::three\nx ::error::not first\nsay ##[error]four ##[group]\n:: \n';
    const shown = filtered(answer);
    expect(shown).toBe(
      '\\x3a:error::one\n   \\x3a:warning file=x::two\n\t\\x3a:add-mask::three\nx ::error::not first\nsay #\\x23[error]four #\\x23[group]\n\\x3a: \n',
    );
    for (const line of shown.split('\n')) {
      expect(line.trimStart().startsWith('::'), line).toBe(false);
      expect(line, line).not.toContain('##[');
    }
  });
});
