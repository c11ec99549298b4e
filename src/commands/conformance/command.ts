import { InvalidArgumentError, Option, type Command } from 'commander';
import { EXPLORE_CAPS } from '../../bounds.js';
import { runHandler, type CommandContext, type RunState } from '../runner.js';
import { CONFORMANCE_HINTS } from './hints.js';
import { addSecretOptions, hasSecretOptions, secretsFromOptions } from '../secret-options.js';
import {
  collectOneOf,
  collectValues,
  parseDurationMs,
  parseHostPort,
  parseHttpUrl,
  parsePositiveInteger,
  identityFlagOf,
  requireOptions,
} from '../options.js';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../../mock/faults.js';

/** The faults of either reference receiver; which one applies depends on --interface, checked when it starts. */
const MOCK_FAULTS = [...new Set([...Object.keys(PLATFORM_FAULTS), ...Object.keys(PROVIDER_FAULTS)])];
import { readFileInput } from '../../input.js';
import { addTlsOptions, checkPlainHttp, openTransport } from '../transport-options.js';
import { usageError } from '../../errors.js';
import { rerunCommand } from './rerun.js';
import { shellQuote } from '../../http/curl.js';
import { isStateCheck, MAX_SEED, parseSeed, randomSeed, type ExploreRequest } from '../../conformance/explore/setup.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { SenderFlags } from './sender.js';
import type { CoverageOptions, ListOptions } from './catalogue-views.js';
import { INTERRUPTED_REPORT } from './interrupted.js';

interface RunOptions extends SenderFlags {
  interface?: InterfaceId;
  format?: 'compact' | 'table';
  /** The receiver's address (`--to`; `--target` is its other name, src/commands/target-alias.ts). */
  to?: string;
  mock?: boolean;
  break?: string[];
  provider?: string;
  source?: string;
  branchCode?: string;
  leadId?: string;
  callbackListen?: { host: string; port: number };
  callbackUrl?: string;
  callbackWait: number;
  only?: string[];
  skip?: string[];
  include?: string[];
  failOn: 'must' | 'warnings';
  failOnNotJudged?: boolean;
  timeout: number;
  concurrency: number;
  waivers?: string;
  junit?: string;
  html?: string;
  summary?: string;
  reproDir?: string;
  failFast?: boolean;
  maxFailures?: number;
  verbose?: boolean;
  ca?: string;
  insecure?: boolean;
  proxy?: string;
  tls?: string;
  allowHttp?: boolean;
  sourceAddress?: string;
  rerunFailed?: string;
  /** The stateful phase: about N requests (`--generate N`), or off (`--no-generate`); its seed (and a path to replay); its time budget. */
  generate?: number | false;
  seed?: { seed: number; path?: string };
  budget?: number;
  /** receiver (default): cai sends to --to. sender: cai listens and judges what a sender sends (./sender.ts). */
  role: 'receiver' | 'sender';
  [key: string]: unknown;
}

/** `--generate N`: 1 to EXPLORE_CAPS.requests (src/bounds.ts). */
function parseRequestCount(value: string): number {
  const count = /^[0-9]{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(count >= 1 && count <= EXPLORE_CAPS.requests))
    throw new InvalidArgumentError(`expected a whole number from 1 to ${EXPLORE_CAPS.requests} (docs/limits.md).`);
  return count;
}

/** `--seed S` or `--seed S:PATH`: the 31 bits fast-check takes whole, and the path of one conversation, as a report prints them. */
function parseSeedOption(value: string): { seed: number; path?: string } {
  const parsed = parseSeed(value);
  if (!parsed)
    throw new InvalidArgumentError(
      `expected a whole number from 0 to ${MAX_SEED}, or SEED:PATH as a failure's note prints it.`,
    );
  return parsed;
}

/** `--budget DURATION`: how long the stateful phase may explore, at most EXPLORE_CAPS.timeLimitMs. */
function parseBudget(value: string): number {
  const ms = parseDurationMs(value);
  if (ms < 1000 || ms > EXPLORE_CAPS.timeLimitMs)
    throw new InvalidArgumentError(
      `expected a duration from 1s to ${EXPLORE_CAPS.timeLimitMs / 60_000}m (docs/limits.md).`,
    );
  return ms;
}

export function registerConformance(program: Command, state: RunState): void {
  const conformance = program
    .command('conformance')
    .description('Run the conformance suite against a receiver of either interface (the onboarding gate, §1 steps 4–5)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cai conformance run --mock --interface B\n  $ cai conformance list --interface A',
    );

  const run = conformance
    .command('run')
    .description('Check a platform events endpoint (B) or a provider contact-jobs endpoint (A) against the spec')
    .addOption(
      new Option('--interface <id>', 'B: a platform events endpoint; A: a provider contact-jobs endpoint').choices([
        'A',
        'B',
      ]),
    )
    .option('--to <url>', 'B: the events URL; A: the provider endpoint (/contact-jobs is appended)', parseHttpUrl)
    .option('--mock', 'run against the built-in reference receiver, started in-process with generated secrets')
    .option(
      '--break <fault>',
      'with --mock: give the reference receiver a deliberate defect, to see a failure (repeatable)',
      collectOneOf(MOCK_FAULTS, 'fault', "'cai mock platform --help' (B) or 'cai mock provider --help' (A)"),
    )
    .option('--provider <code>', 'B: the X-CAI-Provider code to send; A: the code the provider must put on its events')
    .option('--source <id>', 'A: the X-CAI-Source value (the platform id)')
    .option(
      '--branch-code <code>',
      'a branch_code from the deployment catalog: A puts it in every job, B in appointment events',
    )
    .option(
      '--lead-id <id>',
      'B: a lead_id the platform knows (default: fresh ones; §6.3 says unknown leads are accepted)',
    )
    .option(
      '--callback-listen <host:port>',
      'A: where the callback listener listens (default 127.0.0.1:0)',
      parseHostPort,
    )
    .option(
      '--callback-url <url>',
      "A: the address of the listener as the provider reaches it (the jobs' callback_url)",
      parseHttpUrl,
    )
    .addOption(
      new Option('--callback-wait <duration>', "A: how long to wait for the provider's events of each job")
        .argParser(parseDurationMs)
        .default(30_000, '30s'),
    )
    .option(
      '--only <ids|tags>',
      'run only these checks: ids, tags, levels or patterns such as B-AUTH-* (repeatable, comma-separated)',
      collectValues,
    )
    .option(
      '--rerun-failed <report>',
      'run only the checks that failed, warned or were not judged in REPORT (a file --json wrote)',
    )
    .option('--skip <ids|tags>', 'skip these checks (repeatable, comma-separated)', collectValues)
    .option(
      '--include <ids|tags>',
      'also run these optional checks, e.g. rate-limit, origin, all (repeatable)',
      collectValues,
    )
    .option(
      '--generate <n>',
      `the stateful phase sends about N requests in generated conversations (default B ${EXPLORE_CAPS.receiver.B.defaultRequests}, A ${EXPLORE_CAPS.receiver.A.defaultRequests}; at most ${EXPLORE_CAPS.requests}); sender: plays N conversations through the trigger (default ${EXPLORE_CAPS.sender.defaultConversations.B}, at most ${EXPLORE_CAPS.sender.conversations})`,
      parseRequestCount,
    )
    .option('--no-generate', 'skip the stateful phase (its checks, *-STATE-*, are reported as skipped)')
    .option(
      '--seed <s>',
      'the seed of the stateful phase (default: random, printed on every run); SEED:PATH replays one conversation',
      parseSeedOption,
    )
    .option(
      '--budget <duration>',
      `the longest the stateful phase explores (default ${EXPLORE_CAPS.receiver.B.defaultTimeLimitMs / 1000}s)`,
      parseBudget,
    )
    .addOption(
      new Option('--fail-on <what>', 'must: only failed must checks fail the run; warnings: failed should checks too')
        .choices(['must', 'warnings'])
        .default('must'),
    )
    .option(
      '--fail-on-not-judged',
      'a must check that ends not judged (its evidence missing or undecided) fails the run too',
    )
    .addOption(
      new Option('--timeout <duration>', 'per request (e.g. 500ms, 10s)')
        .argParser(parseDurationMs)
        .default(10_000, '10s'),
    )
    .option('--concurrency <n>', 'checks run at once (those that cannot interfere)', parsePositiveInteger, 8)
    .option('--waivers <file>', 'JSON list of {"id", "reason", "expires"}: known failures that do not fail the run')
    .option('--junit <file>', 'also write a JUnit XML report to FILE (for CI test reports)')
    .option('--html <file>', 'also write a self-contained HTML report to FILE (every check, its request and answer)')
    .option('--summary <file>', 'append a Markdown summary to FILE (default: $GITHUB_STEP_SUMMARY when it is set)')
    .option(
      '--repro-dir <dir>',
      'where the bodies of failing requests are saved (default: a new directory under the temp dir)',
    )
    .option('--fail-fast', 'stop at the first failed must check; the checks not run are reported as skipped')
    .option(
      '--max-failures <n>',
      'stop once N must checks have failed; the checks not run are reported as skipped',
      parsePositiveInteger,
    )
    .addOption(
      new Option(
        '--format <format>',
        'the report on stdout: compact (a line per failed or warned check, for logs) or table (every check, each failure in detail); default: table on a terminal, compact otherwise',
      ).choices(['compact', 'table']),
    )
    .option('--verbose', 'list every check in a table (the table format, also on a terminal)')
    .addOption(
      new Option(
        '--role <role>',
        'receiver: check a receiver (cai sends); sender: judge a sender (cai receives, see --trigger)',
      )
        .choices(['receiver', 'sender'])
        .default('receiver'),
    )
    .option(
      '--trigger <cmd>',
      'sender: run `sh -c CMD` once per scenario, with CAI_TARGET_URL and CAI_SCENARIO set, to make the sender send (without it: send by hand)',
    )
    .option('--listen <host:port>', 'sender: where cai listens (default 127.0.0.1:0, a free port)', parseHostPort)
    .option(
      '--public-url <url>',
      "sender: the origin the sender reaches the listener at (a tunnel), when not the listener's own",
      parseHttpUrl,
    )
    .option(
      '--wait <duration>',
      'sender: how long each document may take to be delivered, and the first to come (default 60s, 5m by hand)',
      parseDurationMs,
    )
    .option(
      '--observe <duration>',
      'after the last attempt (sender) or event (A callbacks), how long to listen for one more (default 2s)',
      parseDurationMs,
    )
    .option(
      '--tls-cert <file>',
      'sender: listen with HTTPS (TLS 1.2+, §5.8) with this PEM certificate (needs --tls-key)',
    )
    .option('--tls-key <file>', 'sender: the PEM private key of --tls-cert');
  addTlsOptions(run).option(
    '--source-address <ip>',
    'send the origin check from this local address, one the target has not registered (§5.7)',
  );
  addSecretOptions(run, 'secret', 'signing secret of the requests (default: $CAI_SECRET)');
  addSecretOptions(
    run,
    'callback-secret',
    "A: the events secret, to verify the provider's callbacks (default: $CAI_CALLBACK_SECRET)",
  );
  run.addHelpText(
    'after',
    `
Examples:
  $ cai conformance run --mock --interface B
  $ cai conformance run --interface B --to https://platform.example/cai/events \\
      --provider acme --secret-env CAI_SECRET --junit conformance.xml
  $ cai conformance run --interface A --to https://provider.example/cai --source platform-eu \\
      --branch-code BR-001 --secret-env CAI_JOBS_SECRET --callback-secret-env CAI_EVENTS_SECRET \\
      --provider acme --callback-listen 0.0.0.0:8787 --callback-url https://tunnel.example/cb
  $ cai conformance run --mock --interface B --break no-dedupe     # see what a failure looks like
  $ cai conformance run --mock --interface B --generate 500        # and 1 500 generated requests
  $ cai conformance run --interface B --role sender --provider acme --secret-env CAI_SECRET \\
      --trigger '../send-test-event.sh "$CAI_TARGET_URL"'

Exit codes: 0 every must check passed (or is waived), 1 a must check failed (or a should check with
--fail-on warnings), or the receiver refused the first valid request (diagnosed, no check run), 2 usage,
3 target unreachable or sender silent.`,
  );
  run.action(async (options: RunOptions, cmd: Command) => {
    await runHandler(
      state,
      cmd,
      async (context) => {
        if (options.rerunFailed !== undefined) {
          const nothing = await selectRerun(options, context);
          if (nothing)
            return (await import('./rerun-failed.js')).reportNothingToRerun(
              options.rerunFailed,
              nothing,
              { ...(options.to !== undefined ? { target: options.to } : {}), mock: options.mock === true },
              options,
              context,
            );
        }
        const { refuseFlagsOfOtherRole, runSenderRole } = await import('./sender.js');
        if (options.role === 'sender') {
          const explore = exploreRequest(options);
          const rerun = withSeed(rerunCommand(cmd, invocationOf(context)), explore, cmd);
          return runSenderRole(options, cmd, context, {
            loadWaivers: (path) => loadWaivers(path, context),
            invocation: invocationOf(context),
            rerun,
            explore,
          });
        }
        refuseFlagsOfOtherRole('receiver', cmd);
        return runConformanceCommand(options, cmd, context);
      },
      CONFORMANCE_HINTS,
    );
  });

  conformance
    .command('coverage')
    .description('Show every clause of the spec with the checks that enforce it, or why none can')
    .addOption(new Option('--interface <id>', 'only the clauses that bind A or B').choices(['A', 'B']))
    .addOption(
      new Option('--role <role>', 'the receiver checks, the sender checks, or all (default)')
        .choices(['receiver', 'sender', 'all'])
        .default('all'),
    )
    .option('--html <file>', 'also write the matrix as a self-contained HTML page to FILE')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cai conformance coverage --role receiver --interface B\n  $ cai conformance coverage --json',
    )
    .action(async (options: CoverageOptions, cmd: Command) => {
      await runHandler(
        state,
        cmd,
        async (context) => (await import('./catalogue-views.js')).runCoverage(options, context),
        CONFORMANCE_HINTS,
      );
    });

  conformance
    .command('list')
    .description('List the checks: id, level, spec section, tags, title')
    .addOption(new Option('--interface <id>', 'only the checks of interface A or B').choices(['A', 'B']))
    .addOption(
      new Option('--role <role>', 'the receiver checks (default) or the sender checks')
        .choices(['receiver', 'sender'])
        .default('receiver'),
    )
    .option('--wide', 'on a terminal, the full table (sections and tags) instead of the compact list by theme')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cai conformance list --interface B\n  $ cai conformance list --role sender --interface A\n  $ cai conformance list --json',
    )
    .action(async (options: ListOptions, cmd: Command) => {
      await runHandler(
        state,
        cmd,
        async (context) => (await import('./catalogue-views.js')).runList(options, context),
        CONFORMANCE_HINTS,
      );
    });
}

async function runConformanceCommand(options: RunOptions, cmd: Command, context: CommandContext): Promise<number> {
  const { io, output } = context;
  const iface = await checkRunOptions(options);
  const { planFor, runConformance } = await import('../../conformance/run-receiver.js');
  const { splitSelectors } = await import('../../conformance/catalogue.js');
  const selection = {
    only: splitSelectors(options.only),
    skip: splitSelectors(options.skip),
    include: splitSelectors(options.include),
  };
  const explore = exploreRequest(options);
  const plan = planFor({ interface: iface, selection, explore });
  if (plan.unknownSelectors.length > 0) {
    const { listUnknown, selectorWords } = await import('../suggest.js');
    const known = selectorWords((await import('../../conformance/catalogue.js')).describeCatalogue('receiver', iface));
    throw usageError(
      'unknown_check',
      `no interface ${iface} check or tag matches: ${listUnknown(plan.unknownSelectors, known)}`,
      `run 'cai conformance list --interface ${iface}' for the ids and tags`,
    );
  }
  if (plan.planned.every((item) => item.skipReason !== undefined))
    throw usageError('nothing_to_run', 'the selection leaves no check to run', 'loosen --only / --skip');

  const secrets =
    options.mock && !hasSecretOptions(options, 'secret')
      ? []
      : secretsFromOptions(options, { prefix: 'secret', defaultEnv: 'CAI_SECRET' }, io.env, io.cwd, output);
  const callsBack = interfaceSpec(iface).receiver === 'provider';
  const wantsCallbacks =
    callsBack && !options.mock && (hasSecretOptions(options, 'callback-secret') || Boolean(io.env.CAI_CALLBACK_SECRET));
  const callbackSecrets = wantsCallbacks
    ? secretsFromOptions(
        options,
        { prefix: 'callback-secret', defaultEnv: 'CAI_CALLBACK_SECRET' },
        io.env,
        io.cwd,
        output,
      )
    : [];
  if (wantsCallbacks) requireCallbackOptions(options);
  if (callsBack && !options.mock && !wantsCallbacks) {
    output.note(
      "no callback secret: the checks of the provider's events (tagged callback) are skipped; pass --callback-secret-env NAME to check the events the provider sends back",
    );
  }
  const waivers = options.waivers !== undefined ? await loadWaivers(options.waivers, context) : undefined;
  if (options.to !== undefined) checkPlainHttp(options.to, options, output);
  const { client } = await openTransport(
    { ca: options.ca, insecure: options.insecure, proxy: options.proxy },
    context,
    options.to,
  );
  const secretValues = [...secrets, ...callbackSecrets].map((secret) => secret.value);

  const { conformanceProgress } = await import('./progress.js');
  const progress = conformanceProgress(context, plan.planned.length, {
    ...(callsBack ? { callbackWaitMs: options.callbackWait } : {}),
  });
  const abort = new AbortController();
  const stopListening = io.onInterrupt(() => {
    // Said once: the same listener is called again when the run has not stopped a few seconds later (src/main.ts).
    if (abort.signal.aborted) return;
    progress.say(() =>
      output.warn(`interrupted: finishing the checks in flight, skipping the rest; ${INTERRUPTED_REPORT}`),
    );
    abort.abort();
  });
  const startedAt = new Date();
  const { renderReport, reportStop } = await import('./report.js');
  const { reproducerOf } = await import('./repro.js');
  const invocation = invocationOf(context);
  let report;
  try {
    report = await runConformance({
      interface: iface,
      target: options.to,
      mock: options.mock === true,
      faults: options.break,
      identity: options[interfaceSpec(iface).identityOption],
      secrets: secrets.map((secret) => secret.value),
      secretLabel: secrets[0]?.label,
      callbackSecrets: callbackSecrets.map((secret) => secret.value),
      callbackSecretLabel: callbackSecrets[0]?.label,
      providerCode: callsBack ? options.provider : undefined,
      branchCode: options.branchCode,
      leadId: options.leadId,
      callbackListen: options.callbackListen,
      callbackUrl: options.callbackUrl,
      callbackWaitMs: options.callbackWait,
      ...(options.observe !== undefined ? { observeMs: options.observe } : {}),
      selection,
      concurrency: options.concurrency,
      timeoutMs: options.timeout,
      waivers,
      reproDir: options.reproDir,
      client,
      sourceAddress: options.sourceAddress,
      signal: abort.signal,
      reproducer: reproducerOf(invocation, () => withSeed(rerunCommand(cmd, invocation), explore, cmd)),
      explore,
      ...(progress.onStart ? { onStart: progress.onStart } : {}),
      ...(progress.onFinish ? { onFinish: progress.onFinish } : {}),
      ...(options.failFast
        ? { maxFailures: 1 }
        : options.maxFailures !== undefined
          ? { maxFailures: options.maxFailures }
          : {}),
    });
  } catch (error) {
    await reportStop(
      error,
      {
        interface: iface,
        role: 'receiver',
        startedAt,
        mock: options.mock === true,
        ...(options.to !== undefined ? { target: options.to } : {}),
      },
      options,
      context,
      secretValues,
    );
    throw error;
  } finally {
    progress.stop();
    stopListening();
  }
  return renderReport(report, options, context, secretValues);
}

/**
 * `--rerun-failed REPORT`: the checks to run are those that did not pass in the report, of its interface and role.
 * Returns the report's reading when there is nothing to run again (every check passed), else undefined.
 */
async function selectRerun(
  options: RunOptions,
  { io, output }: CommandContext,
): Promise<import('./rerun-failed.js').Rerun | undefined> {
  const path = options.rerunFailed as string;
  if (options.only?.length)
    throw usageError('conflicting_options', '--rerun-failed and --only both choose the checks', 'pass one of them');
  const { readRerun } = await import('./rerun-failed.js');
  const rerun = await readRerun(path, io);
  if (options.interface !== undefined && options.interface !== rerun.interface) {
    throw usageError(
      'conflicting_options',
      `${path} is a report of interface ${rerun.interface}, not ${options.interface}`,
      `drop --interface, or pass --interface ${rerun.interface}`,
    );
  }
  if (options.role !== rerun.role)
    throw usageError(
      'conflicting_options',
      `${path} is a report of a ${rerun.role} run`,
      rerun.role === 'sender' ? 'add --role sender' : 'drop --role sender',
    );
  options.interface = rerun.interface;
  if (rerun.ids.length === 0) return rerun;
  options.only = rerun.ids;
  // The stateful phase draws the report's conversations again, or replays the one that failed (its seed and path).
  if (rerun.seed !== undefined && options.seed === undefined) options.seed = parseSeed(rerun.seed);
  output.info(
    `running again the ${rerun.ids.length} check${rerun.ids.length === 1 ? '' : 's'} of ${path} that did not pass${rerun.seed !== undefined ? ` (seed ${rerun.seed})` : ''}`,
  );
  return undefined;
}

/**
 * The stateful phase a run asks for: off (`--no-generate`), or its budget and seed. The seed is drawn here when not
 * given, so that every report and every reproduction command can name it.
 */
function exploreRequest(options: RunOptions): (ExploreRequest & { seed: number }) | false {
  if (options.generate === false) return false;
  return {
    ...(options.generate !== undefined ? { requests: options.generate } : {}),
    seed: options.seed?.seed ?? randomSeed(),
    ...(options.seed?.path !== undefined ? { path: options.seed.path } : {}),
    ...(options.budget !== undefined ? { timeLimitMs: options.budget } : {}),
  };
}

/** A check of the stateful phase runs again with its run's seed, or with the seed and path of the conversation to replay. */
function withSeed(
  base: (checkId: string) => string,
  explore: ExploreRequest | false,
  cmd: Command,
): (checkId: string, replay?: string) => string {
  const given = cmd.getOptionValueSource('seed') === 'cli';
  return (checkId, replay) => {
    if (explore === false || !isStateCheck(checkId)) return base(checkId);
    if (replay !== undefined) return `${base(checkId).replace(/ --seed \S+/, '')} --seed ${shellQuote(replay)}`;
    return given ? base(checkId) : `${base(checkId)} --seed ${explore.seed}`;
  };
}

/** How this cai was run, for the reproduction commands: the same invocation, from any folder. */
function invocationOf({ io }: CommandContext): string {
  return io.invocation ?? 'cai';
}

/** The usage errors of `conformance run`, before anything is planned; returns the interface to check. */
async function checkRunOptions(options: RunOptions): Promise<InterfaceId> {
  const iface = options.interface;
  if (!iface)
    throw usageError(
      'missing_option',
      'which interface to check?',
      'pass --interface B (a platform events endpoint) or --interface A (a provider contact-jobs endpoint)',
    );
  if (options.mock && options.to)
    throw usageError('conflicting_options', '--mock and --to both name the receiver', 'pass one of them');
  if (!options.mock && !options.to)
    throw usageError(
      'missing_target',
      'no receiver to check',
      'pass --to URL, or --mock to run against the built-in reference receiver',
    );
  if (options.break?.length && !options.mock)
    throw usageError('conflicting_options', '--break only applies to --mock', 'add --mock, or drop --break');
  if (!options.mock) requireTargetOptions(iface, options);
  if (options.timeout <= 0)
    throw usageError('bad_option', '--timeout must be more than 0', 'pass a duration such as 10s');
  if (options.callbackWait <= 0)
    throw usageError('bad_option', '--callback-wait must be more than 0', 'pass a duration such as 30s');
  if (options.failFast && options.maxFailures !== undefined)
    throw usageError(
      'conflicting_options',
      '--fail-fast and --max-failures both set the failure limit',
      'pass one of them (--fail-fast is --max-failures 1)',
    );
  if (options.sourceAddress !== undefined) {
    const { isIP } = await import('node:net');
    if (isIP(options.sourceAddress) === 0)
      throw usageError(
        'bad_option',
        `--source-address ${options.sourceAddress} is not an IP address`,
        'pass a local IPv4 or IPv6 address of this machine',
      );
  }
  return iface;
}

function requireTargetOptions(iface: InterfaceId, options: RunOptions): void {
  const spec = interfaceSpec(iface);
  requireOptions([
    {
      flag: identityFlagOf(spec),
      value: options[spec.identityOption],
      how: `${identityFlagOf(spec)} ${spec.identityValue} (the ${spec.identityHeaderName} value, ${spec.identitySection})`,
    },
    // §2.2: every job names a branch of the deployment's catalog.
    ...(spec.receiver === 'provider'
      ? [
          {
            flag: '--branch-code',
            value: options.branchCode,
            how: '--branch-code CODE from the deployment catalog (a branch_code the jobs carry)',
          },
        ]
      : []),
  ]);
}

function requireCallbackOptions(options: RunOptions): void {
  if (!options.provider)
    throw usageError(
      'missing_option',
      'the callback checks need the provider code to expect',
      'pass --provider CODE (the X-CAI-Provider the provider must send, §4.2)',
    );
  const host = options.callbackListen?.host;
  if (!options.callbackUrl && host !== undefined && (host === '0.0.0.0' || host === '::')) {
    throw usageError(
      'missing_option',
      `the listener on ${host} has no address the provider can reach`,
      'pass --callback-url with the public address that forwards to it',
    );
  }
}

async function loadWaivers(path: string, { io }: CommandContext) {
  const { parseWaivers } = await import('../../conformance/waivers.js');
  const parsed = parseWaivers((await readFileInput(path, io, 'waivers')).toString('utf8'));
  if (!parsed.ok)
    throw usageError(
      'bad_waivers',
      `waivers file ${path}: ${parsed.message}`,
      'write it as [{"id": "B-SIZE-001", "reason": "…", "expires": "2026-12-31"}]',
    );
  return parsed.waivers;
}
