import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

describe('the library, imported by the package name (issue #7)', () => {
  it('examples/library.mjs signs, validates, sends to the reference platform and runs conformance against it', () => {
    const run = spawnSync(process.execPath, ['examples/library.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual(['verify: ok', 'valid: true', 'send: accepted 1 attempt(s)', 'again: duplicate']);
    expect(lines[4]).toMatch(/^conformance: true \{"passed":\d+,"failed":0,/);
    expect(run.status).toBe(0);
  });

  it('the package entry exports the building blocks the CLI uses', async () => {
    const names = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "import('cai-toolkit').then((m) => console.log(Object.keys(m).sort().join(' ')))"],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .stdout.split(' ')
      .map((name) => name.trim());
    for (const name of [
      'sign',
      'verify',
      'verifyRequest',
      'validateDocument',
      'sendJob',
      'sendEvent',
      'startMockPlatform',
      'startMockProvider',
      'runConformance',
      'schemas',
      'runSenderConformance',
      'describeCatalogue',
      'REPORTERS',
      'viewOf',
      'renderConformanceHtml',
      'renderJobSummary',
      'renderOperationHtml',
      'InspectorStore',
      'startInspectorServer',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('examples/library-pages.mjs: a mock with its inspector, a sender run, and the pages, from the package entry', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cai-library-pages-'));
    try {
      const run = spawnSync(process.execPath, [join(ROOT, 'examples/library-pages.mjs')], {
        cwd,
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(run.stderr).toBe('');
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toBe('inspector: 401 rejected, 202 accepted');
      expect(lines[1]).toBe(
        'sender: true 503, then 504, then 502, then 503, then 501, then 202 → 503, 504, 502, 503, 501, 202',
      );
      expect(lines[2]).toMatch(
        /^### ✅ cai conformance passed: interface B \(sender\), cai listening on http:\/\/127\.0\.0\.1:\d+$/,
      );
      expect(lines[3]).toBe('pages written: sender-report.html operation-report.html');
      expect(run.status).toBe(0);
      const sender = readFileSync(join(cwd, 'sender-report.html'), 'utf8');
      expect(sender).toContain('<h3>retry-5xx</h3>');
      expect(sender).toContain('BS-RETRY-001');
      const operation = readFileSync(join(cwd, 'operation-report.html'), 'utf8');
      expect(operation).toContain('<svg');
      expect(operation).toContain('<h1>cai operation report');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
