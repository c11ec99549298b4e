/**
 * Reports that always parse, through a real run: a target whose answers hold U+FFFF, U+009B and U+202E (and an
 * ESC). The JUnit file is well-formed XML 1.0 (a real XML parser, saxes, which checks the characters XML allows;
 * before: "Char 0xFFFF out of allowed range"), and neither it nor the HTML page holds one of those characters raw:
 * they are shown as `\uffff`, `\u009b`, `\u202e`, as on the terminal.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-report-markup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RAW = /[\uffff\ufffe\u009b\u202e\u001b]/;

describe('a target that answers with U+FFFF, U+009B and U+202E', () => {
  it('gets a JUnit file that parses and an HTML page that shows them as text', async () => {
    // Accepts everything, so B-AUTH-001 (an unsigned event must get 401) fails and quotes the answer.
    const server = await startScriptedServer(
      [
        {
          status: 200,
          headers: { 'content-type': 'text/plain', 'x-odd': 'a' },
          body: 'ok \uffff \u009b[31m \u202egnp.exe \u001b[2J',
        },
      ],
      { path: '/events' },
    );
    try {
      const junit = join(dir, 'junit.xml');
      const html = join(dir, 'report.html');
      const run = await spawnCli(
        [
          'conformance',
          'run',
          '--interface',
          'B',
          '--target',
          server.url,
          '--provider',
          'acme',
          '--only',
          'B-AUTH-001',
          '--junit',
          junit,
          '--html',
          html,
          '--repro-dir',
          join(dir, 'repro'),
        ],
        { env: { CAI_SECRET: 'whsec_markup' } },
      );
      expect(run.code).toBe(1);
      const xml = readFileSync(junit, 'utf8');
      const errors: Error[] = [];
      const parser = new SaxesParser();
      parser.on('error', (error) => errors.push(error));
      parser.write(xml).close();
      expect(errors).toEqual([]);
      expect(xml).toContain('\\uffff \\u009b[31m \\u202egnp.exe \u241b[2J');
      expect(xml).not.toMatch(RAW);
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('\\uffff \\u009b[31m \\u202egnp.exe \u241b[2J');
      expect(page).not.toMatch(RAW);
    } finally {
      await server.close();
    }
  });
});
