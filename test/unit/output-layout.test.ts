import { describe, expect, it } from 'vitest';
import { fitCell, fitColumns, stripAnsi, truncate, visibleWidth, wrap, fitHelp } from '../../src/output/layout.js';

const red = (text: string) => `\x1b[31m${text}\x1b[39m`;

describe('visibleWidth', () => {
  it('counts columns, not code units: colour codes are invisible, CJK and emoji take two', () => {
    expect(visibleWidth('abc')).toBe(3);
    expect(visibleWidth(red('abc'))).toBe(3);
    expect(visibleWidth('予約')).toBe(4);
    expect(visibleWidth('👍')).toBe(2);
    expect(visibleWidth('✓ ✗ ✔ ✘ … §')).toBe(11);
    expect(visibleWidth('é')).toBe(1);
    expect(visibleWidth('e\u0301')).toBe(1);
    expect(visibleWidth('ab\nabcd')).toBe(4);
  });
});

describe('truncate', () => {
  it('cuts to the width with an ellipsis, and leaves text that fits alone', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdefg', 6)).toBe('abcde…');
    expect(visibleWidth(truncate('予約できますか', 5))).toBeLessThanOrEqual(5);
  });

  it('keeps colour codes and closes them', () => {
    const cut = truncate(red('abcdefgh'), 5);
    expect(stripAnsi(cut)).toBe('abcd…');
    expect(cut.endsWith('\x1b[0m')).toBe(true);
  });
});

describe('wrap', () => {
  it('breaks at spaces, with a hanging indent, never wider than the width', () => {
    const lines = wrap('error: the quick brown fox jumps over the lazy dog and keeps running', 24, {
      indent: '       ',
    });
    expect(lines).toEqual([
      'error: the quick brown',
      '       fox jumps over',
      '       the lazy dog and',
      '       keeps running',
    ]);
  });

  it('breaks a word longer than a line where it must: nothing is lost', () => {
    const word = 'x'.repeat(50);
    const lines = wrap(`path: ${word}`, 20);
    expect(lines.every((line) => visibleWidth(line) <= 20)).toBe(true);
    expect(lines.join('').replace(/ /g, '')).toBe(`path:${word}`);
  });

  it('drops an indent that would leave less than 10 columns', () => {
    const lines = wrap('aaaa bbbb cccc dddd eeee', 12, { indent: ' '.repeat(8) });
    expect(lines.every((line) => visibleWidth(line) <= 12)).toBe(true);
    expect(lines[1]?.startsWith(' ')).toBe(false);
  });

  it('closes a colour at the end of a line and reopens it on the next', () => {
    const lines = wrap(red('one two three four'), 9);
    expect(lines.map(stripAnsi)).toEqual(['one two', 'three', 'four']);
    expect(lines[0]?.endsWith('\x1b[0m')).toBe(true);
    expect(lines[1]?.startsWith('\x1b[31m')).toBe(true);
  });

  it('leaves a line that fits as it is, and wraps each line of a multi-line text', () => {
    expect(wrap('short', 80)).toEqual(['short']);
    expect(wrap('aa bb\ncc dd', 2)).toEqual(['aa', 'bb', 'cc', 'dd']);
  });
});

describe('fitColumns', () => {
  it('keeps the natural widths when they fit', () => {
    expect(fitColumns([10, 20], [], 80, 7)).toEqual([10, 20]);
  });

  it('shrinks the widest shrinkable column first, down to its minimum', () => {
    expect(fitColumns([12, 90, 6], [{ fit: 'fixed' }, { fit: 'wrap', min: 12 }, { fit: 'fixed' }], 80, 10)).toEqual([
      12, 52, 6,
    ]);
    expect(fitColumns([40, 40], [{ min: 10 }, { min: 10 }], 60, 7)).toEqual([26, 27]);
  });

  it('gives up (undefined) when even the minimum widths do not fit', () => {
    expect(
      fitColumns([12, 90, 6], [{ fit: 'fixed' }, { fit: 'wrap', min: 12 }, { fit: 'fixed' }], 30, 10),
    ).toBeUndefined();
  });
});

describe('fitCell', () => {
  it('wraps or truncates as the column says', () => {
    expect(fitCell('a valid event is accepted', 10)).toBe('a valid\nevent is\naccepted');
    expect(fitCell('a valid event is accepted', 10, 'truncate')).toBe('a valid e…');
  });
});

describe('fitHelp: examples', () => {
  const example = `Examples:\n  $ cai conformance run --interface B --role sender --provider acme --trigger 'cai send-event --to "$CAI_TARGET_URL" --provider acme --sample'`;

  it('breaks a command between its words, with a continuation, never inside a quoted string', () => {
    const lines = fitHelp(example, 60).split('\n');
    expect(lines).toEqual([
      'Examples:',
      '  $ cai conformance run --interface B --role sender \\',
      '      --provider acme --trigger \\',
      `      'cai send-event --to "$CAI_TARGET_URL" --provider acme --sample'`,
    ]);
  });

  it('a quoted word wider than the line stays whole: pasted, the command runs whole', () => {
    const lines = fitHelp(example, 40).split('\n');
    expect(lines).toContain(`      'cai send-event --to "$CAI_TARGET_URL" --provider acme --sample'`);
    for (const line of lines.slice(1, -1)) expect(line.endsWith(' \\')).toBe(true);
  });
});
