/**
 * A command loads its own modules and what every command shares, nothing of the others (START-UP RULE): the source
 * modules and packages the built CLI loads for `cai --help` and `cai verify`, by the chunks bin/cai.js loads and
 * what each holds (dist/bundle/modules.json, written by the build). A module added to either list is a choice to
 * make here, with its cost at every start-up of that command (npm run bench -- startup).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnProcess } from '../helpers/cli.js';

const REPORTER = `
const { loadChunk, chunks } = require(${JSON.stringify(fileURLToPath(new URL('../../bin/cai.js', import.meta.url)))});
const modules = require(${JSON.stringify(fileURLToPath(new URL('../../dist/bundle/modules.json', import.meta.url)))});
const { Writable, Readable } = require('node:stream');
const sink = () => new Writable({ write: (chunk, encoding, done) => done() });
const io = { stdin: Readable.from([]), stdout: sink(), stderr: sink(), env: { NO_COLOR: '1', CAI_SECRET: 'whsec_startup' }, cwd: process.cwd(), onInterrupt: () => () => {}, now: () => Date.now() };
loadChunk('cai.js').run(process.argv.slice(1), io).then(() => {
  // From node_modules on: a clone whose node_modules is a link records its ids through the link's target.
  const loaded = [...chunks.keys()].flatMap((chunk) => modules[chunk] ?? []).map((id) => id.includes('node_modules/') ? id.slice(id.indexOf('node_modules/')) : id);
  process.stdout.write(JSON.stringify({
    src: loaded.filter((id) => id.startsWith('src/')).sort(),
    packages: [...new Set(loaded.filter((id) => id.startsWith('node_modules/')).map((id) => id.split('/')[1]))].sort(),
  }));
});
`;

async function loadedBy(argv: string[]): Promise<{ src: string[]; packages: string[] }> {
  const result = await spawnProcess(process.execPath, ['-e', REPORTER, '--', ...argv], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as { src: string[]; packages: string[] };
}

/** What every command loads: the program, the list of commands, output, errors, the profile's lookup. */
const EVERY_COMMAND = [
  'src/commands/common/config-defaults.ts',
  'src/commands/common/file-flags.ts',
  'src/commands/common/hints.ts',
  'src/commands/common/list.ts',
  'src/commands/common/registry.ts',
  'src/commands/common/repeated-flags.ts',
  'src/commands/common/runner.ts',
  'src/commands/common/target-alias.ts',
  'src/config/locate.ts',
  'src/errors.ts',
  'src/io.ts',
  'src/main.ts',
  'src/output/layout.ts',
  'src/output/output.ts',
  'src/output/palette.ts',
  'src/output/safe-text.ts',
  'src/program.ts',
  'src/secrets/known.ts',
  'src/secrets/mask.ts',
  'src/shell.ts',
  'src/spec/constants.ts',
  'src/spec/event-types.ts',
  'src/spec/interfaces.ts',
  'src/suggest.ts',
];

describe('the modules a command loads (the built CLI)', () => {
  it('cai --help: what every command loads, and no command module', async () => {
    const loaded = await loadedBy(['--help']);
    expect(loaded.src).toEqual(EVERY_COMMAND);
    expect(loaded.packages).toEqual(['commander']);
  });

  it('cai verify: its own folder and the signing core, besides what every command loads', async () => {
    const loaded = await loadedBy([
      'verify',
      '--body',
      'fixtures/vectors.json',
      '--timestamp',
      '1700000000',
      '--signature',
      `sha256=${'0'.repeat(64)}`,
      '--now',
      '1700000000',
    ]);
    const own = [
      'src/bounds-flags.ts',
      'src/bounds.ts',
      'src/commands/common/options.ts',
      'src/commands/common/secret-options.ts',
      'src/commands/verify/action.ts',
      'src/commands/verify/command.ts',
      'src/duration.ts',
      'src/input.ts',
      'src/secrets/resolve.ts',
      'src/signing/diagnose.ts',
      'src/signing/every-problem.ts',
      'src/signing/sign.ts',
      'src/signing/verify.ts',
      'src/spec/json-syntax.ts',
    ];
    expect(loaded.src).toEqual([...EVERY_COMMAND, ...own].sort());
    expect(loaded.packages).toEqual(['commander']);
  });

  it("the senders' client: undici's two dispatchers from their own modules, not its index (fetch, WebSocket, caches, mocks)", async () => {
    const { readFile } = await import('node:fs/promises');
    const modules = JSON.parse(await readFile(`${ROOT}/dist/bundle/modules.json`, 'utf8')) as Record<string, string[]>;
    const marker = 'node_modules/undici/';
    const undici = [
      ...new Set(
        Object.values(modules)
          .flat()
          .filter((id) => id.includes(marker))
          .map((id) => id.slice(id.indexOf(marker) + marker.length)),
      ),
    ];
    expect(undici).toContain('lib/dispatcher/agent.js');
    expect(undici).toContain('lib/dispatcher/proxy-agent.js');
    // What the index alone brings (a response body's mixins need some of lib/web/fetch, not fetch itself).
    const indexOnly =
      /^(index\.js|lib\/(mock|cache|interceptor)\/|lib\/web\/(fetch\/index|websocket|cache|eventsource|cookies))/;
    expect(undici.filter((id) => indexOnly.test(id))).toEqual([]);
  });
});
