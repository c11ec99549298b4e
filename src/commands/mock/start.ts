/**
 * What `cai mock platform` and `cai mock provider` (src/commands/mock/command.ts) do with their options: read the secrets,
 * TLS files and catalog they name, start the reference receiver (src/mock) and, with --ui, the inspector beside it,
 * and say in a few notes what runs.
 */
import { resolve } from 'node:path';
import { usageError } from '../../errors.js';
import { emptyPath, readFileInput } from '../../input.js';
import type { Io } from '../../io.js';
import type {
  InspectorServerOptions,
  InspectorSigning,
  InspectorStore,
  RunningInspector,
} from '../../inspector/index.js';
import type { FsyncMode } from '../../mock/log.js';
import type { RunningMock } from '../../mock/platform.js';
import type { MockLines } from './lines.js';
import { resolveSecrets, type Secret, type SecretSource } from '../../secrets/resolve.js';
import type { CatalogBranch } from '../../spec/catalog.js';
import type { CommandContext } from '../common/runner.js';
import { callbackSecretsOf, secretFlagFor, signingSecrets } from '../common/secret-options.js';
import { openTransport, readServerTls, type ServerTlsFlags } from '../common/transport-options.js';
import { plural } from '../../text.js';

export interface CommonOptions extends ServerTlsFlags {
  host: string;
  port: number;
  provider?: string;
  log?: string;
  fsync: FsyncMode;
  latency?: number;
  break?: string[];
  dedupeCapacity?: number;
  /** `--ui` alone (true) or `--ui HOST:PORT`. */
  ui?: true | UiAddress;
  /** A catalog file, or the branches themselves from the deployment profile (src/commands/common/config-defaults-values.ts). */
  catalog?: string | CatalogBranch[];
  [key: string]: unknown;
}

/** Where the inspector listens (`--ui HOST:PORT`). */
export interface UiAddress {
  host: string;
  port: number;
}

export interface ProviderCommandOptions extends CommonOptions {
  ca?: string;
  insecure?: boolean;
  source?: string;
  scenario?: string;
  speed: number;
}

export interface PlatformCommandOptions extends CommonOptions {
  path: string;
  testProvider?: string;
  testSecretEnv?: string[];
  testSecretFile?: string[];
  rateLimit?: number;
  allowOrigin?: string[];
  failRate?: number;
  failFirst?: number;
  knownLead?: string[];
}

/** A mock serving, what it says of itself, and its inspector. */
export type Started = { mock: RunningMock; notes: string[]; ui?: RunningInspector };

export async function startPlatform(
  options: PlatformCommandOptions,
  { io, output }: CommandContext,
  lines: MockLines,
): Promise<Started> {
  const liveSecrets = signingSecrets(options, { io, output });
  const secrets = liveSecrets.map((s) => s.value);
  const resolvedTestSecrets = testSecretsFromOptions(options, io);
  const testSecrets = resolvedTestSecrets?.map((s) => s.value);
  const store = await inspectorStore(options);
  const signing: InspectorSigning = {
    identity: 'provider',
    credentials: [
      { code: options.provider ?? '', space: 'live', secrets },
      ...(options.testProvider !== undefined && testSecrets
        ? [{ code: options.testProvider, space: 'test' as const, secrets: testSecrets }]
        : []),
    ],
  };
  await lines.explainRefusals(signing, options.ui !== undefined);
  const { startMockPlatform } = await import('../../mock/platform.js');
  const mock = await startMockPlatform({
    ...(await receiverOptions(options, io, lines, store)),
    path: options.path,
    secrets,
    testProviderCode: options.testProvider,
    testSecrets,
    rateLimit: options.rateLimit,
    allowOrigins: options.allowOrigin,
    failRate: options.failRate,
    failFirst: options.failFirst,
    knownLeads: options.knownLead,
    faults: options.break,
  });
  const ui = await startInspector(options, store, mock, ({ copyCommandsFor }) => ({
    kind: 'platform',
    signing,
    postUrl: mock.url,
    copyCommands: copyCommandsFor({
      postUrl: mock.url,
      identity: 'provider',
      secretFlags: {
        live: secretFlagFor(liveSecrets[0]?.label),
        ...(resolvedTestSecrets ? { test: secretFlagFor(resolvedTestSecrets[0]?.label) } : {}),
      },
      notes: inlineSecretNotes([...liveSecrets, ...(resolvedTestSecrets ?? [])]),
    }),
    secrets: [...secrets, ...(testSecrets ?? [])],
  }));
  const notes = [
    `mock platform: provider ${options.provider}${options.testProvider ? `, test provider ${options.testProvider}` : ''}, ${plural(secrets.length, 'secret')}`,
    options.log
      ? `log ${options.log}, fsync ${options.fsync}${mock.reloaded > 0 ? ` (${mock.reloaded} accepted events reloaded for dedupe)` : ''}`
      : 'no --log: accepted events are kept in memory only',
    ...skippedNote(options.log, mock),
    ...brokenNote(options),
  ];
  return { mock, notes, ui };
}

export async function startProvider(
  options: ProviderCommandOptions,
  context: CommandContext,
  lines: MockLines,
): Promise<Started> {
  const { io } = context;
  const jobSecrets = signingSecrets(options, context);
  const secrets = jobSecrets.map((s) => s.value);
  const callbackSecrets = callbackSecretsOf(options, context).map((s) => s.value);
  const store = await inspectorStore(options);
  const signing: InspectorSigning = {
    identity: 'source',
    credentials: [{ code: options.provider ?? '', space: 'live', secrets }],
    otherSecrets: callbackSecrets,
  };
  await lines.explainRefusals(signing, options.ui !== undefined);
  const { startMockProvider, parseScenario } = await import('../../mock/provider.js');
  const scenario = options.scenario === undefined ? undefined : parseScenario(options.scenario);
  const mock = await startMockProvider({
    ...(await receiverOptions(options, io, lines, store)),
    sourceId: options.source,
    secrets,
    callbackSecrets,
    scenario,
    speed: options.speed,
    callbackTls: await callbackTls(options, context),
    faults: options.break,
    onEvent: (entry) => lines.sent(entry),
    observeSent: store?.observeSent,
    onCallbackRetry: (retry) => {
      lines.callbackRetry(retry);
      store?.noteRetry(retry);
    },
  });
  const postUrl = `${mock.url}/contact-jobs`;
  const ui = await startInspector(options, store, mock, ({ copyCommandsFor }) => ({
    kind: 'provider',
    signing,
    postUrl,
    copyCommands: copyCommandsFor({
      postUrl,
      identity: 'source',
      secretFlags: { live: secretFlagFor(jobSecrets[0]?.label) },
      notes: inlineSecretNotes(jobSecrets),
    }),
    secrets: [...secrets, ...callbackSecrets],
  }));
  const notes = [
    `mock provider: provider ${options.provider}, scenario ${options.scenario ?? 'from brief.intent'}, speed ×${options.speed}`,
    ...(options.log ? [`log ${options.log}, fsync ${options.fsync}`] : []),
    ...skippedNote(options.log, mock),
    ...brokenNote(options),
    ...sourceNote(options.source),
  ];
  return { mock, notes, ui };
}

/**
 * Without --source the mock takes a job whatever its X-CAI-Source says: a provider refuses a platform id it does not
 * know (§4.1), and the checks of a conformance run that send one (tagged `source`) warn. Said at start, so that
 * their warnings do not come as a surprise.
 */
function sourceNote(source: string | undefined): string[] {
  if (source !== undefined) return [];
  return [
    'note: no --source: jobs are accepted whatever their X-CAI-Source (§4.1), so a conformance run warns on its source checks (--only source); pass --source PLATFORM_ID to accept only that platform',
  ];
}

/** What both mocks take alike from their flags: the address, the provider, the log, TLS, catalog and latency. */
async function receiverOptions(options: CommonOptions, io: Io, lines: MockLines, store: InspectorStore | undefined) {
  return {
    tls: await readServerTls(options, io),
    host: options.host,
    port: options.port,
    providerCode: options.provider ?? '',
    logFile: logFileOf(io, options.log),
    fsync: options.fsync,
    latencyMs: options.latency,
    catalog: await catalogOf(options.catalog, io),
    dedupeCapacity: options.dedupeCapacity,
    keepRecords: false,
    onRequest: lines.request.bind(lines),
    observe: lines.observer(store?.observe),
  };
}

/** The inspector's store when --ui is given (its modules load only then: no cost to a mock without it). */
async function inspectorStore(options: CommonOptions): Promise<InspectorStore | undefined> {
  if (options.ui === undefined) return undefined;
  const { InspectorStore } = await import('../../inspector/index.js');
  return new InspectorStore();
}

type CopyCommandsModule = typeof import('./copy-commands.js');
type InspectorParts = Omit<InspectorServerOptions, 'host' | 'port' | 'store' | 'mockUrl' | 'generator'>;

/** Serves the inspector once the mock listens (its URL goes into the copy commands); the mock stops if it cannot. */
async function startInspector(
  options: CommonOptions,
  store: InspectorStore | undefined,
  mock: RunningMock,
  parts: (copy: CopyCommandsModule) => InspectorParts,
): Promise<RunningInspector | undefined> {
  if (store === undefined || options.ui === undefined) return undefined;
  const address = options.ui === true ? { host: '127.0.0.1', port: 0 } : options.ui;
  const [inspector, copy, { versionInfo }] = await Promise.all([
    import('../../inspector/index.js'),
    import('./copy-commands.js'),
    import('../../version.js'),
  ]);
  try {
    return await inspector.startInspectorServer({
      ...parts(copy),
      ...address,
      store,
      mockUrl: mock.url,
      generator: `cai ${versionInfo().version}`,
    });
  } catch (error) {
    await mock.close();
    throw error;
  }
}

function inlineSecretNotes(secrets: readonly Secret[]): string[] {
  return secrets.some((secret) => /^--[a-z-]*secret #/.test(secret.label))
    ? ['The mock got its secret inline (--secret): export it as CAI_SECRET before running these commands.']
    : [];
}

/** The lines of the log its reload skipped (a record torn by a crash or a full disk, foreign text), named. */
function skippedNote(
  log: string | undefined,
  mock: { skippedLines: number; skippedLineNumbers: readonly number[] },
): string[] {
  const count = mock.skippedLines;
  if (log === undefined || count === 0) return [];
  const numbers = mock.skippedLineNumbers.join(', ');
  const which =
    count === 1 ? `line ${numbers} of ${log} is not a log record` : `${count} lines of ${log} are not log records`;
  const named =
    count === 1
      ? ''
      : `: ${count > mock.skippedLineNumbers.length ? `the first ${mock.skippedLineNumbers.length}: ` : ''}${numbers}`;
  return [
    `${which} (a record cut short by a crash or a full disk, or foreign text) and ${count === 1 ? 'was' : 'were'} skipped${named}`,
  ];
}

function brokenNote(options: CommonOptions): string[] {
  return options.break?.length ? [`deliberately broken: ${options.break.join(', ')}`] : [];
}

/** `--test-secret-env` / `--test-secret-file`, in the order given; required together with --test-provider. */
function testSecretsFromOptions(options: PlatformCommandOptions, io: Io): Secret[] | undefined {
  const sources: SecretSource[] = [
    ...(options.testSecretEnv ?? []).map((ref, order) => ({
      kind: 'env' as const,
      named: '--test-secret-env',
      ref,
      order,
    })),
    ...(options.testSecretFile ?? []).map((ref, order) => ({
      kind: 'file' as const,
      named: '--test-secret-file',
      ref,
      order: 1000 + order,
    })),
  ];
  if (options.testProvider === undefined) {
    if (sources.length > 0)
      throw usageError(
        'missing_option',
        'a test secret was given without --test-provider',
        'pass --test-provider CODE with the test credential (§1)',
      );
    return undefined;
  }
  if (sources.length === 0)
    throw usageError(
      'missing_secret',
      `no secret for the test provider ${options.testProvider}`,
      'pass --test-secret-env NAME or --test-secret-file PATH',
    );
  return resolveSecrets(sources, io.env, { prefix: 'test-secret' }, io.cwd);
}

/** The provider's callbacks are https when the jobs' callback_url says so: --ca and --insecure apply to them. */
async function callbackTls(
  options: ProviderCommandOptions,
  context: CommandContext,
): Promise<{ ca?: Buffer; insecure: boolean } | undefined> {
  if (options.ca === undefined && !options.insecure) return undefined;
  const { client } = await openTransport({ ca: options.ca, insecure: options.insecure }, context);
  return { ca: client.ca, insecure: client.insecure === true };
}

/** `--catalog FILE` (- for stdin), read and checked as `cai validate` reads it; or the profile's branches, as data. */
async function catalogOf(catalog: string | CatalogBranch[] | undefined, io: Io): Promise<CatalogBranch[] | undefined> {
  if (catalog === undefined) return undefined;
  // An empty path (an unset variable) would start a mock that checks no branch_code at all.
  if (catalog === '')
    throw emptyPath('catalog', 'give --catalog the path of the branch catalog (JSON), or leave it out');
  if (typeof catalog !== 'string') return catalog;
  const { loadCatalog } = await import('../../spec/catalog.js');
  return loadCatalog(catalog, (file) => readFileInput(file, io, 'catalog'));
}

/** The log's full path; an empty one is refused, not resolved to the working directory (docs/limits.md). */
function logFileOf(io: Io, log: string | undefined): string | undefined {
  if (log === '')
    throw emptyPath('log', 'give the path of a file to write, or leave --log out to keep events in memory');
  return log === undefined ? undefined : resolve(io.cwd, log);
}
