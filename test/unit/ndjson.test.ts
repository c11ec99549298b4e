import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NdjsonSplitter, readNdjsonLines } from '../../src/spec/ndjson.js';
import { splitNdjson } from '../../src/send/batch-files.js';

async function collect(chunks: Buffer[], max?: number) {
  const lines = [];
  for await (const line of readNdjsonLines(
    (async function* () {
      yield* chunks;
    })(),
    max,
  )) {
    lines.push({
      number: line.number,
      text: line.bytes.toString('latin1'),
      byteLength: line.byteLength,
      oversize: line.oversize,
    });
  }
  return lines;
}

function split(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text, 'latin1');
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks.filter((chunk) => chunk.length > 0);
}

describe('readNdjsonLines', () => {
  it('yields the same lines however the bytes are chunked (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r', '{', 'é') }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (text, cuts) => {
          const latin1 = Buffer.from(text, 'latin1').toString('latin1');
          const expected = latin1.split('\n');
          if (expected[expected.length - 1] === '') expected.pop();
          const lines = await collect(split(latin1, cuts));
          expect(lines.map((l) => l.text)).toEqual(expected.map((line) => line.replace(/\r$/, '')));
          expect(lines.map((l) => l.number)).toEqual(expected.map((_, i) => i + 1));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('measures but does not keep a line over the limit, across chunks', async () => {
    const lines = await collect([Buffer.from('ab\n0123'), Buffer.from('456789'), Buffer.from('\ncd')], 5);
    expect(lines).toEqual([
      { number: 1, text: 'ab', byteLength: 2, oversize: false },
      { number: 2, text: '', byteLength: 10, oversize: true },
      { number: 3, text: 'cd', byteLength: 2, oversize: false },
    ]);
  });

  it('keeps the last bytes of a line over the limit when asked, however the bytes are chunked (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\n'), maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 1, max: 8 }),
        async (text, cuts, keep) => {
          const max = 5;
          const source = (async function* () {
            yield* split(text, cuts);
          })();
          const expected = text.split('\n');
          if (expected[expected.length - 1] === '') expected.pop();
          const tails: (string | undefined)[] = [];
          for await (const line of readNdjsonLines(source, max, { keepTailBytes: keep }))
            tails.push(line.tail?.toString('latin1'));
          expect(tails).toEqual(expected.map((line) => (line.length > max ? line.slice(-keep) : undefined)));
        },
      ),
    );
  });
});

describe('NdjsonSplitter, the splitting under the readers', () => {
  it('gives, for a whole input pushed at once, the lines the stream reader gives for it in any chunks (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', '{', 'é') }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (text, cuts) => {
          const latin1 = Buffer.from(text, 'utf8').toString('latin1');
          const splitter = new NdjsonSplitter(4);
          const whole = [...splitter.push(Buffer.from(latin1, 'latin1')), ...splitter.end()].map((line) => ({
            number: line.number,
            text: line.bytes.toString('latin1'),
            byteLength: line.byteLength,
            oversize: line.oversize,
          }));
          expect(whole).toEqual(await collect(split(latin1, cuts), 4));
          // cai send --ndjson: its documents are the lines that are not blank, numbered as the reader numbers them.
          const documents = splitNdjson(Buffer.from(latin1, 'latin1'), { eventIds: false });
          const lines = await collect([Buffer.from(latin1, 'latin1')], Number.POSITIVE_INFINITY);
          expect(documents.map((document) => [document.line, document.body.toString('latin1')])).toEqual(
            lines.filter((line) => line.text.trim() !== '').map((line) => [line.number, line.text]),
          );
        },
      ),
    );
  });

  it('with stopAtOversize, stops at the first line over the cap and takes nothing after it', () => {
    const splitter = new NdjsonSplitter(3, { stopAtOversize: true });
    expect(splitter.push(Buffer.from('ab\nabcdef')).map((line) => [line.number, line.oversize, line.cut])).toEqual([
      [1, false, undefined],
      [2, true, true],
    ]);
    expect(splitter.stopped).toBe(true);
    expect(splitter.push(Buffer.from('\nok\n'))).toEqual([]);
    expect(splitter.end()).toEqual([]);
  });
});
