/**
 * GitHub Actions runs a line of a step's output that starts (after blanks) with `::` as a workflow command, and an
 * older `##[` command anywhere in a line: text from outside, however it is wrapped, never starts one. cai's own
 * annotations (Output.annotation) are the only lines that do. Also end to end: a plain-Node receiver whose answer
 * carries both, printed by `cai send-event`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Output } from '../../src/output/output.js';
import { loadPalette } from '../../src/output/palette.js';
import { jsonText, withoutWorkflowCommands } from '../../src/output/safe-text.js';
import { fakeIo, runCli } from '../helpers/cli.js';

/** What the runner would take for a command: a line starting, past blanks, with `::`; or `##[` anywhere. */
const RUNS_AS_COMMAND = /^\s*::|##\[/m;

const HOSTILE = fc.constantFrom(
  '::',
  '::error::x',
  '::stop-commands::tok',
  '##[error]x',
  '##[',
  '\n',
  ' ',
  '\t',
  '#',
  ':',
);
const hostileText = fc
  .array(fc.oneof(HOSTILE, fc.string({ maxLength: 4 })), { maxLength: 12 })
  .map((parts) => parts.join(''));

describe('text from outside never becomes a workflow command', () => {
  it('withoutWorkflowCommands: no line starts one, and nothing else changes', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const shown = withoutWorkflowCommands(text);
        expect(shown).not.toMatch(RUNS_AS_COMMAND);
        expect(shown.replaceAll('\\u003a', ':').replaceAll('\\u0023', '#')).toBe(
          text.replaceAll('\\u003a', ':').replaceAll('\\u0023', '#'),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('through Output, coloured or not, on stdout and stderr; annotations keep their own command', async () => {
    for (const palette of [undefined, await loadPalette(1)]) {
      const io = fakeIo();
      const output = new Output(
        io,
        { json: false, quiet: false, debug: false },
        palette ? { stdout: palette, stderr: palette } : undefined,
      );
      output.result('expected 202, got 401 {"error":"x\n    ::error::INJECTED ##[add-mask]y"}');
      output.info('  ::warning::from the receiver');
      output.warn('::error::INJECTED');
      output.annotation('::error title=cai conformance::B-AUTH-001 failed: ##[error]x');
      const err = io.err().split('\n');
      expect(io.out()).not.toMatch(RUNS_AS_COMMAND);
      expect(io.out()).toContain('    \\u003a:error::INJECTED \\u0023#[add-mask]y');
      expect(err.slice(0, -2).join('\n')).not.toMatch(RUNS_AS_COMMAND);
      expect(err.at(-2)).toBe('::error title=cai conformance::B-AUTH-001 failed: \\u0023#[error]x');
    }
  });

  it('JSON text: the same value, with no `##[`', () => {
    const value = { error: '##[error]x', list: ['::error::y'] };
    const text = jsonText(value, 2);
    expect(text).not.toMatch(RUNS_AS_COMMAND);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('cai send-event, an answer that tries both', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('prints the answer with neither running as a command, text and --json', async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(400, { 'content-type': 'text/plain' });
        response.end('bad\n::stop-commands::tok\n  ::error::INJECTED\n##[error]OLD\n');
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    const env = { CAI_SECRET: 'whsec_workflow_commands_0123456789' };
    for (const json of [[], ['--json']]) {
      const result = await runCli([...json, 'send-event', '--to', url, '--provider', 'acme', '--sample'], { env });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('INJECTED');
      expect(result.stdout).not.toMatch(RUNS_AS_COMMAND);
      expect(result.stderr).not.toMatch(RUNS_AS_COMMAND);
    }
  });
});
