import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { runHandler, type CommandContext, type RunState } from '../cli/runner.js';
import { addSecretOptions, secretsFromOptions } from '../cli/secret-options.js';
import {
  collectOneOf,
  collectValues,
  parseMilliseconds,
  parseNonNegativeInteger,
  parsePort,
  parsePositiveInteger,
  parseUrlPath,
  parseProbability,
  parseRatePerSecond,
} from '../cli/options.js';
import { parseCidrOption } from '../cli/network-options.js';
import { usageError } from '../errors.js';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../mock/faults.js';
import { readPem } from '../input.js';
import { openTransport } from '../cli/transport-options.js';
import type { Io } from '../io.js';
import type { MockLines } from '../output/mock-lines.js';
import { resolveSecrets, type SecretSource } from '../secrets/resolve.js';
import type { RunningMock } from '../mock/platform.js';
import { DEFAULT_FSYNC, FSYNC_MODES, type FsyncMode } from '../mock/log.js';
import type { CatalogBranch } from '../spec/catalog.js';
import type { Secret } from '../secrets/resolve.js';
import type { InspectorServerOptions, InspectorSigning, InspectorStore, RunningInspector } from '../inspector/index.js';

interface CommonOptions {
  host: string;
  port: number;
  provider?: string;
  log?: string;
  fsync: FsyncMode;
  tlsCert?: string;
  tlsKey?: string;
  latency?: number;
  break?: string[];
  dedupeCapacity?: number;
  /** `--ui` alone (true) or `--ui HOST:PORT`. */
  ui?: true | UiAddress;
  [key: string]: unknown;
}

/** Where the inspector listens (`--ui HOST:PORT`). */
interface UiAddress {
  host: string;
  port: number;
}

interface ProviderCommandOptions extends CommonOptions {
  ca?: string;
  insecure?: boolean;
  source?: string;
  scenario?: string;
  speed: number;
  /** A catalog file, or the branches themselves from the deployment profile (src/config/defaults.ts). */
  catalog?: string | CatalogBranch[];
}

interface PlatformCommandOptions extends CommonOptions {
  path: string;
  testProvider?: string;
  testSecretEnv?: string[];
  testSecretFile?: string[];
  rateLimit?: number;
  allowOrigin?: string[];
  failRate?: number;
  failFirst?: number;
  knownLead?: string[];
  /** A catalog file, or the branches themselves from the deployment profile (src/config/defaults.ts). */
  catalog?: string | CatalogBranch[];
}


export function registerMock(program: Command, state: RunState): void {
  const mock = program
    .command('mock')
    .description('Run a reference receiver: the platform (Interface B) or the provider (Interface A)')
    .addHelpText('after', '\nExamples:\n  $ CAI_SECRET=whsec_events cai mock platform --provider acme --log platform.ndjson\n  $ CAI_SECRET=whsec_jobs CAI_CALLBACK_SECRET=whsec_events cai mock provider --provider acme --speed 60');
  registerPlatform(mock, state);
  registerProvider(mock, state);
}

type Started = { mock: RunningMock; notes: string[]; ui?: RunningInspector };

/** A mock subcommand's name, description and the help of its --provider. */
interface MockText {
  name: string;
  description: string;
  provider: string;
  /** The faults of --break. */
  faults: readonly string[];
}

const PLATFORM: MockText = {
  name: 'platform',
  description: 'Receive signed Interface B events like the platform would (§4.2, §5–§8), with a durable log',
  provider: 'the provider code expected in X-CAI-Provider (§5.6)',
  faults: Object.keys(PLATFORM_FAULTS),
};

const PROVIDER: MockText = {
  name: 'provider',
  description: 'Receive signed contact jobs like a provider would (§4.1), then play each conversation back (§3)',
  provider: "this provider's code, sent as X-CAI-Provider on the events (§4.2)",
  faults: Object.keys(PROVIDER_FAULTS),
};

/** A mock's subcommand: --provider, the options both mocks share, and the action that serves until Ctrl-C. */
function addMock<Options>(mock: Command, state: RunState, text: MockText, start: (options: Options, context: CommandContext, lines: MockLines) => Promise<Started>): Command {
  const command = mock.command(text.name).description(text.description).requiredOption('--provider <code>', text.provider);
  command.action(async (options: Options, cmd: Command) => {
    await runHandler(state, cmd, (context) => serve(context, (lines) => start(options, context, lines)));
  });
  return command
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 = any free port', parsePort, 0)
    .option('--log <file>', 'append every accepted request to this NDJSON file before the 202; reloaded on start; one mock per log (locked)')
    .addOption(
      new Option('--fsync <mode>', 'when --log reaches the disk: always (before each 202), everysec (written before each 202, synced every second) or never')
        .choices(FSYNC_MODES)
        .default(DEFAULT_FSYNC),
    )
    .option('--tls-cert <file>', 'serve HTTPS (TLS 1.2+, §5.8) with this PEM certificate (needs --tls-key)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .option('--latency <ms>', 'wait this long before every answer (fault injection)', parseMilliseconds)
    .option('--dedupe-capacity <n>', 'remember at most N event_ids per space for dedupe; past it the oldest is forgotten (default: all)', parsePositiveInteger)
    .option('--break <fault>', 'deliberately misbehave in one way (repeatable; see the list below)', collectOneOf(text.faults, 'fault', `'cai mock ${text.name} --help'`))
    .option('--ui [host:port]', 'serve a live web inspector of the requests on its own port (default 127.0.0.1, a free port); its URL goes to stderr', parseUiAddress);
}

/** `--ui` values: `PORT`, `:PORT`, `HOST`, `HOST:PORT`, `[IPv6]:PORT`; the host defaults to 127.0.0.1, the port to any free one. */
export function parseUiAddress(value: string): UiAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*))(?::([0-9]+))?$/.exec(value.trim());
  const portOnly = /^[0-9]+$/.test(value.trim());
  const host = portOnly ? '' : (match?.[1] ?? match?.[2] ?? '');
  const port = portOnly ? value.trim() : match?.[3];
  if (!match && !portOnly) throw new InvalidArgumentError('expected HOST:PORT, HOST, :PORT or PORT, e.g. 127.0.0.1:4040.');
  if (port !== undefined && Number(port) > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return { host: host === '' ? '127.0.0.1' : host, port: port === undefined ? 0 : Number(port) };
}

function registerPlatform(mock: Command, state: RunState): void {
  const command = addMock(mock, state, PLATFORM, startPlatform)
    .option('--path <path>', 'path of the events endpoint', parseUrlPath, '/events')
    .option('--test-provider <code>', 'provider code of the test credential (§1): its events land in a separate test space')
    .option('--test-secret-env <name>', 'secret of the test credential, from environment variable NAME (repeatable)', collectValues)
    .option('--test-secret-file <path>', 'secret of the test credential, from a file (repeatable)', collectValues)
    .option('--rate-limit <rate>', 'answer 429 with Retry-After above this rate, e.g. 20/s or 600/m (§7)', parseRatePerSecond)
    .option('--allow-origin <cidr>', 'accept requests only from these addresses or CIDR blocks, IPv4 or IPv6 (§5.7; repeatable)', collectCidr)
    .option('--fail-rate <p>', 'answer this fraction of valid events 503, from 0 to 1 (fault injection)', parseProbability)
    .option('--fail-first <n>', 'answer the first N attempts of each event_id 503 (fault injection)', parseNonNegativeInteger)
    .option('--known-lead <id>', 'a lead_id the platform knows (repeatable); others are accepted and marked for reconciliation (§6.3)', collectValues)
    .option('--catalog <file>', 'branch catalog (JSON); appointment events with another branch_code are rejected 400');
  addSecretOptions(command, 'secret', 'secret of the live credential, Interface B direction (default: $CAI_SECRET); several = rotation overlap');
  command.addHelpText(
    'after',
    `
Faults for --break:
  ${PLATFORM.faults.join(', ')}

Examples:
  $ cai mock platform --provider acme --secret-env CAI_SECRET --port 8787 --log events.ndjson
  $ cai mock platform --provider acme --secret-file new.secret --secret-file old.secret \\
      --test-provider acme-test --test-secret-env ACME_TEST_SECRET --rate-limit 20/s
  $ cai mock platform --provider acme --fail-first 2 --latency 200     # exercise a sender's retries
  $ cai mock platform --provider acme --break no-dedupe                # see a conformance failure`,
  );
}

function registerProvider(mock: Command, state: RunState): void {
  const command = addMock(mock, state, PROVIDER, startProvider)
    .option('--source <platform-id>', 'accept only jobs whose X-CAI-Source is this platform id (§4.1)')
    .option('--scenario <name>', 'booked | rescheduled | cancelled | closed:<outcome> | random (default: from brief.intent)')
    .option('--speed <factor>', 'compress the conversation delays by this factor, e.g. 60', parseSpeed, 1)
    .option('--catalog <file>', 'branch catalog (JSON) with each unit\'s number_e164; jobs with another branch_code are rejected 400')
    .option('--ca <file>', 'trust this certificate authority (PEM) for https callback URLs')
    .option('--insecure', 'do not verify the callback\'s TLS certificate (TLS 1.2+ still required; never in production)');
  addSecretOptions(command, 'secret', 'secret of the jobs direction, to verify jobs (default: $CAI_SECRET); several = rotation overlap');
  addSecretOptions(command, 'callback-secret', 'secret of the events direction, to sign events (default: $CAI_CALLBACK_SECRET); the first signs');
  command.addHelpText(
    'after',
    `
Faults for --break:
  ${PROVIDER.faults.join(', ')}

Examples:
  $ cai mock provider --provider acme --secret-env JOBS_SECRET --callback-secret-env EVENTS_SECRET --port 8788
  $ cai mock provider --provider acme --scenario closed:no_answer --speed 60 --catalog branches.json`,
  );
}

function parseSpeed(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError('expected a positive number such as 10 or 0.5.');
  }
  return n;
}

function collectCidr(value: string, previous: string[] | undefined): string[] {
  return collectValues(parseCidrOption(value), previous);
}

/**
 * Runs a mock until SIGINT/SIGTERM, then lets the requests in flight finish and flushes the log. The interrupt is
 * subscribed first thing, so a Ctrl-C during start-up is not missed.
 */
async function serve(context: CommandContext, start: (lines: MockLines) => Promise<Started>): Promise<number> {
  const { io, output } = context;
  let off = () => {};
  const interrupted = new Promise<NodeJS.Signals>((resolve) => {
    off = io.onInterrupt((received) => {
      off();
      resolve(received);
    });
  });
  try {
    const [{ MockLines }, { waitNotice }] = await Promise.all([import('../output/mock-lines.js'), import('../output/wait-notice.js')]);
    const lines = new MockLines(output);
    // Reloading a long --log takes a while: a CI log is told what it waits for.
    const starting = waitNotice(output, io.now);
    starting.set({ what: 'the mock to start (reloading its --log, opening its port)' });
    const { mock, notes, ui } = await start(lines).finally(() => starting.stop());
    lines.announce(mock.url, notes, ui?.url);
    const signal = await interrupted;
    output.info(`${signal}: finishing requests in flight…`);
    await mock.close();
    await ui?.close();
    lines.flush();
    output.info('stopped');
    return 0;
  } finally {
    off();
  }
}

async function startPlatform(options: PlatformCommandOptions, { io, output }: CommandContext, lines: MockLines): Promise<Started> {
  const liveSecrets = secretsFromOptions(options, { prefix: 'secret', defaultEnv: 'CAI_SECRET' }, io.env, io.cwd, output);
  const secrets = liveSecrets.map((s) => s.value);
  const resolvedTestSecrets = testSecretsFromOptions(options, io);
  const testSecrets = resolvedTestSecrets?.map((s) => s.value);
  const tls = await readTls(options, io);
  const store = await inspectorStore(options);
  const signing: InspectorSigning = {
    identity: 'provider',
    credentials: [
      { code: options.provider ?? '', space: 'live', secrets },
      ...(options.testProvider !== undefined && testSecrets ? [{ code: options.testProvider, space: 'test' as const, secrets: testSecrets }] : []),
    ],
  };
  await lines.explainRefusals(signing, options.ui !== undefined);
  const { startMockPlatform } = await import('../mock/platform.js');
  const mock = await startMockPlatform({
    host: options.host,
    port: options.port,
    path: options.path,
    providerCode: options.provider ?? '',
    secrets,
    testProviderCode: options.testProvider,
    testSecrets,
    logFile: options.log === undefined ? undefined : resolvePath(io, options.log),
    fsync: options.fsync,
    rateLimit: options.rateLimit,
    allowOrigins: options.allowOrigin,
    tls,
    failRate: options.failRate,
    failFirst: options.failFirst,
    latencyMs: options.latency,
    knownLeads: options.knownLead,
    catalog: await catalogOf(options.catalog, io),
    faults: options.break,
    dedupeCapacity: options.dedupeCapacity,
    keepRecords: false,
    onRequest: (entry) => lines.request(entry),
    observe: lines.observer(store?.observe),
  });
  const ui = await startInspector(options, store, mock, ({ secretFlagOf }) => ({
    kind: 'platform',
    signing,
    commands: {
      postUrl: mock.url,
      identity: 'provider',
      secretFlags: { live: secretFlagOf(liveSecrets[0]?.label), ...(resolvedTestSecrets ? { test: secretFlagOf(resolvedTestSecrets[0]?.label) } : {}) },
      notes: inlineSecretNotes([...liveSecrets, ...(resolvedTestSecrets ?? [])]),
    },
    secrets: [...secrets, ...(testSecrets ?? [])],
  }));
  const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);
  const notes = [
    `mock platform: provider ${options.provider}${options.testProvider ? `, test provider ${options.testProvider}` : ''}, ${secrets.length} ${plural(secrets.length, 'secret', 'secrets')}`,
    options.log ? `log ${options.log}, fsync ${options.fsync}${mock.reloaded > 0 ? ` (${mock.reloaded} accepted events reloaded for dedupe)` : ''}` : 'no --log: accepted events are kept in memory only',
    ...skippedNote(options.log, mock),
    ...brokenNote(options),
  ];
  return { mock, notes, ui };
}

async function startProvider(options: ProviderCommandOptions, context: CommandContext, lines: MockLines): Promise<Started> {
  const { io, output } = context;
  const jobSecrets = secretsFromOptions(options, { prefix: 'secret', defaultEnv: 'CAI_SECRET' }, io.env, io.cwd, output);
  const secrets = jobSecrets.map((s) => s.value);
  const callbackSecrets = secretsFromOptions(options, { prefix: 'callback-secret', defaultEnv: 'CAI_CALLBACK_SECRET' }, io.env, io.cwd, output).map((s) => s.value);
  const tls = await readTls(options, io);
  const store = await inspectorStore(options);
  const signing: InspectorSigning = { identity: 'source', credentials: [{ code: options.provider ?? '', space: 'live', secrets }], otherSecrets: callbackSecrets };
  await lines.explainRefusals(signing, options.ui !== undefined);
  const { startMockProvider, parseScenario } = await import('../mock/provider.js');
  const scenario = options.scenario === undefined ? undefined : parseScenario(options.scenario);
  const mock = await startMockProvider({
    host: options.host,
    port: options.port,
    providerCode: options.provider ?? '',
    sourceId: options.source,
    secrets,
    callbackSecrets,
    scenario,
    speed: options.speed,
    catalog: await catalogOf(options.catalog, io),
    logFile: options.log === undefined ? undefined : resolvePath(io, options.log),
    fsync: options.fsync,
    tls,
    callbackTls: await callbackTls(options, context),
    latencyMs: options.latency,
    faults: options.break,
    dedupeCapacity: options.dedupeCapacity,
    keepRecords: false,
    onRequest: (entry) => lines.request(entry),
    onEvent: (entry) => lines.sent(entry),
    observe: lines.observer(store?.observe),
    observeSent: store?.observeSent,
    onCallbackRetry: (retry) => {
      lines.callbackRetry(retry);
      store?.noteRetry(retry);
    },
  });
  const ui = await startInspector(options, store, mock, ({ secretFlagOf }) => ({
    kind: 'provider',
    signing,
    commands: { postUrl: `${mock.url}/contact-jobs`, identity: 'source', secretFlags: { live: secretFlagOf(jobSecrets[0]?.label) }, notes: inlineSecretNotes(jobSecrets) },
    secrets: [...secrets, ...callbackSecrets],
  }));
  const notes = [
    `mock provider: provider ${options.provider}, scenario ${options.scenario ?? 'from brief.intent'}, speed ×${options.speed}`,
    ...(options.log ? [`log ${options.log}, fsync ${options.fsync}`] : []),
    ...skippedNote(options.log, mock),
    ...brokenNote(options),
  ];
  return { mock, notes, ui };
}

/** The inspector's store when --ui is given (its modules load only then: no cost to a mock without it). */
async function inspectorStore(options: CommonOptions): Promise<InspectorStore | undefined> {
  if (options.ui === undefined) return undefined;
  const { InspectorStore } = await import('../inspector/index.js');
  return new InspectorStore();
}

type InspectorModule = typeof import('../inspector/index.js');
type InspectorParts = Omit<InspectorServerOptions, 'host' | 'port' | 'store' | 'mockUrl' | 'generator'>;

/** Serves the inspector once the mock listens (its URL goes into the copy commands); the mock stops if it cannot. */
async function startInspector(options: CommonOptions, store: InspectorStore | undefined, mock: RunningMock, parts: (inspector: InspectorModule) => InspectorParts): Promise<RunningInspector | undefined> {
  if (store === undefined || options.ui === undefined) return undefined;
  const address = options.ui === true ? { host: '127.0.0.1', port: 0 } : options.ui;
  const [inspector, { versionInfo }] = await Promise.all([import('../inspector/index.js'), import('../version.js')]);
  try {
    return await inspector.startInspectorServer({ ...parts(inspector), ...address, store, mockUrl: mock.url, generator: `cai ${versionInfo().version}` });
  } catch (error) {
    await mock.close();
    throw error;
  }
}

function inlineSecretNotes(secrets: readonly Secret[]): string[] {
  return secrets.some((secret) => /^--[a-z-]*secret #/.test(secret.label)) ? ['The mock got its secret inline (--secret): export it as CAI_SECRET before running these commands.'] : [];
}

/** The lines of the log its reload skipped (a record torn by a crash or a full disk, foreign text), named. */
function skippedNote(log: string | undefined, mock: { skippedLines: number; skippedLineNumbers: readonly number[] }): string[] {
  const count = mock.skippedLines;
  if (log === undefined || count === 0) return [];
  const numbers = mock.skippedLineNumbers.join(', ');
  const which = count === 1 ? `line ${numbers} of ${log} is not a log record` : `${count} lines of ${log} are not log records`;
  const named = count === 1 ? '' : `: ${count > mock.skippedLineNumbers.length ? `the first ${mock.skippedLineNumbers.length}: ` : ''}${numbers}`;
  return [`${which} (a record cut short by a crash or a full disk, or foreign text) and ${count === 1 ? 'was' : 'were'} skipped${named}`];
}

function brokenNote(options: CommonOptions): string[] {
  return options.break?.length ? [`deliberately broken: ${options.break.join(', ')}`] : [];
}

/** `--test-secret-env` / `--test-secret-file`, in the order given; required together with --test-provider. */
function testSecretsFromOptions(options: PlatformCommandOptions, io: Io): Secret[] | undefined {
  const sources: SecretSource[] = [
    ...(options.testSecretEnv ?? []).map((ref, order) => ({ kind: 'env' as const, ref, order })),
    ...(options.testSecretFile ?? []).map((ref, order) => ({ kind: 'file' as const, ref, order: 1000 + order })),
  ];
  if (options.testProvider === undefined) {
    if (sources.length > 0) throw usageError('missing_option', 'a test secret was given without --test-provider', 'pass --test-provider CODE with the test credential (§1)');
    return undefined;
  }
  if (sources.length === 0) throw usageError('missing_secret', `no secret for the test provider ${options.testProvider}`, 'pass --test-secret-env NAME or --test-secret-file PATH');
  return resolveSecrets(sources, io.env, { prefix: 'test-secret' }, io.cwd);
}

async function readTls(options: CommonOptions, io: Io): Promise<{ cert: Buffer; key: Buffer } | undefined> {
  if (options.tlsCert === undefined && options.tlsKey === undefined) return undefined;
  if (options.tlsCert === undefined || options.tlsKey === undefined) {
    throw usageError('missing_option', '--tls-cert and --tls-key go together', 'pass both the PEM certificate and its PEM private key');
  }
  return { cert: await readPem(options.tlsCert, io, 'tls-cert'), key: await readPem(options.tlsKey, io, 'tls-key') };
}

/** The provider's callbacks are https when the jobs' callback_url says so: --ca and --insecure apply to them. */
async function callbackTls(options: ProviderCommandOptions, context: CommandContext): Promise<{ ca?: Buffer; insecure: boolean } | undefined> {
  if (options.ca === undefined && !options.insecure) return undefined;
  const { client } = await openTransport({ ca: options.ca, insecure: options.insecure }, context);
  return { ca: client.ca, insecure: client.insecure === true };
}

/** `--catalog FILE`, read and checked; or the profile's branches, given as data. */
async function catalogOf(catalog: string | CatalogBranch[] | undefined, io: Io): Promise<CatalogBranch[] | undefined> {
  if (catalog === undefined || catalog === '') return undefined;
  if (typeof catalog !== 'string') return catalog;
  const { loadCatalog } = await import('../spec/catalog.js');
  return loadCatalog(resolvePath(io, catalog));
}

function resolvePath(io: Io, file: string): string {
  return resolve(io.cwd, file);
}
