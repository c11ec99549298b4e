/**
 * The flags of `cai conformance run`, the one place they are written: the typed options commander parses them into
 * (RunOptions), their parsers, and the command declared group by group. Also what the command gives either role
 * besides its options (RoleDeps): the receiver role in ./receiver.ts, the sender role in ./sender.ts.
 */
import { addFlags, type SharedFlags } from '../common/flags.js';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { EXPLORE_CAPS, FLAG_BOUNDS } from '../../bounds.js';
import { MAX_SEED, parseSeed, type ExploreRequest } from '../../conformance/explore/setup.js';
import { parseDuration } from '../../duration.js';
import type { Waiver } from '../../conformance/waivers.js';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../../mock/faults.js';
import type { InterfaceId } from '../../spec/constants.js';
import {
  callbackListenOption,
  collectOneOf,
  collectValues,
  choiceOption,
  durationOption,
  interfaceOption,
  parseDurationMs,
  parseHostPort,
  wholeNumber,
} from '../common/options.js';
import { addTlsOptions, type PlainHttpFlags, type ServerTlsFlags } from '../common/transport-options.js';
import type { TransportFlags } from '../../http/transport.js';
import type { ConformanceOptions } from '../../conformance/options.js';
import type { ReportFlags } from './report.js';

/** The flags of the sender role (`cai conformance run --role sender`). */
export interface SenderFlags extends ServerTlsFlags, Pick<SharedFlags, 'publicUrl'> {
  trigger?: string;
  listen?: { host: string; port: number };
  wait?: number;
  observe?: number;
}

/** Every flag of `cai conformance run`: the report's, the transport's and each role's. */
export interface RunOptions
  extends SenderFlags,
    ReportFlags,
    PlainHttpFlags,
    Pick<TransportFlags, 'ca' | 'insecure' | 'proxy'>,
    // The flags the engine takes as they are (src/conformance/options.ts).
    Pick<ConformanceOptions, 'mock' | 'branchCode' | 'leadId' | 'callbackListen' | 'callbackUrl' | 'reproDir'>,
    Pick<ConformanceOptions, 'sourceAddress' | 'maxFailures'>,
    // The receiver's address (`--to`; `--target` is its other name, src/commands/common/target-alias.ts).
    Pick<SharedFlags, 'to' | 'provider' | 'source'> {
  interface?: InterfaceId;
  break?: string[];
  callbackWait: number;
  only?: string[];
  skip?: string[];
  include?: string[];
  timeout: number;
  concurrency: number;
  waivers?: string;
  failFast?: boolean;
  rerunFailed?: string;
  /** The stateful phase: about N requests (`--generate N`), or off (`--no-generate`); its seed (and a path to replay); its time budget. */
  generate?: number | false;
  seed?: { seed: number; path?: string };
  budget?: number;
  /** receiver (default): cai sends to --to. sender: cai listens and judges what a sender sends (./sender.ts). */
  role: 'receiver' | 'sender';
  [key: string]: unknown;
}

/** What either role is given besides its options, made once by the command (./command.ts). */
export interface RoleDeps {
  loadWaivers(path: string): Promise<Waiver[]>;
  /** How cai was run, for the reproduction commands. */
  invocation: string;
  /** The command line of this run with the selection replaced by one check (and a conversation's seed and path). */
  rerun(checkId: string, replay?: string): string;
  /** The stateful phase asked for (`--generate N`, `--seed`, `--budget`), or off (`--no-generate`). */
  explore: (ExploreRequest & { seed: number }) | false;
}

/** The faults of either reference receiver; which one applies depends on --interface, checked when it starts. */
const MOCK_FAULTS = [...new Set([...Object.keys(PLATFORM_FAULTS), ...Object.keys(PROVIDER_FAULTS)])];

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
  // Read without every duration's 24 h bound, so that 25h is refused with the budget's own bound, not 24h.
  const ms = parseDuration(value) ?? parseDurationMs(value);
  if (ms < 1000 || ms > EXPLORE_CAPS.timeLimitMs)
    throw new InvalidArgumentError(
      `expected a duration from 1s to ${EXPLORE_CAPS.timeLimitMs / 60_000}m (docs/limits.md).`,
    );
  return ms;
}

/** `cai conformance run` and its flags, in the order `--help` lists them; the caller adds the action. */
export function declareRun(conformance: Command): Command {
  const run = conformance
    .command('run')
    .description('Check a platform events endpoint (B) or a provider contact-jobs endpoint (A) against the spec');
  addTargetOptions(run);
  addCallbackOptions(run);
  addSelectionOptions(run);
  addStatefulOptions(run);
  addVerdictOptions(run);
  addReportOptions(run);
  addSenderRoleOptions(run);
  addTlsOptions(run).option(
    '--source-address <ip>',
    'send the origin check from this local address, one the target has not registered (§5.7)',
  );
  addFlags(run, {
    secret: 'signing secret of the requests (default: $CAI_SECRET)',
    callbackSecret: "A: the events secret, to verify the provider's callbacks (default: $CAI_CALLBACK_SECRET)",
  });
  return run.addHelpText(
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
}

/** The receiver to check: its interface and address (or the built-in one), and the identity it expects. */
function addTargetOptions(run: Command): void {
  run.addOption(interfaceOption('B: a platform events endpoint; A: a provider contact-jobs endpoint'));
  addFlags(run, {
    to: 'B: the events URL; A: the provider endpoint (/contact-jobs is appended)',
    mock: 'run against the built-in reference receiver, started in-process with generated secrets',
  }).option(
    '--break <fault>',
    'with --mock: give the reference receiver a deliberate defect, to see a failure (repeatable)',
    collectOneOf(MOCK_FAULTS, 'fault', "'cai mock platform --help' (B) or 'cai mock provider --help' (A)"),
  );
  addFlags(run, {
    provider: 'B: the X-CAI-Provider code to send; A: the code the provider must put on its events',
    source: 'A: the X-CAI-Source value (the platform id)',
    branchCode: 'a branch_code from the deployment catalog: A puts it in every job, B in appointment events',
    leadId: 'B: a lead_id the platform knows (default: fresh ones; §6.3 says unknown leads are accepted)',
  });
}

/** Interface A: where cai listens for the provider's events (§4.2) and how long it waits for them. */
function addCallbackOptions(run: Command): void {
  run.addOption(callbackListenOption());
  addFlags(run, {
    callbackUrl: "A: the address of the listener as the provider reaches it (the jobs' callback_url)",
  }).addOption(
    durationOption('--callback-wait <duration>', "A: how long to wait for the provider's events of each job", '30s'),
  );
}

/** Which checks run. */
function addSelectionOptions(run: Command): void {
  run
    .option(
      '--only <ids|tags>',
      'run only these checks: ids, tags, levels or patterns such as B-AUTH-* (repeatable, comma-separated)',
      collectSelection,
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
    );
}

/** `--only`: an empty value (a CI variable left unset) would select every check, widening the gate; refused. */
function collectSelection(value: string, previous: string[] | undefined): string[] {
  if (value.split(',').every((item) => item.trim() === ''))
    throw new InvalidArgumentError('expected check ids, tags or patterns such as B-AUTH-*, not an empty list.');
  return collectValues(value, previous);
}

/** The stateful phase: generated conversations, their seed and time budget. */
function addStatefulOptions(run: Command): void {
  run
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
    );
}

/** What fails the run, and how fast its requests go. */
function addVerdictOptions(run: Command): void {
  run
    .addOption(
      choiceOption(
        '--fail-on <what>',
        'must: only failed must checks fail the run; warnings: failed should checks too',
        ['must', 'warnings'],
      ),
    )
    .option(
      '--fail-on-not-judged',
      'a must check that ends not judged (its evidence missing or undecided) fails the run too',
    )
    .addOption(durationOption('--timeout <duration>', 'per request (e.g. 500ms, 10s)', '10s'))
    .option(
      '--concurrency <n>',
      'checks run at once (those that cannot interfere)',
      wholeNumber(1, FLAG_BOUNDS.concurrency),
      8,
    )
    .option('--waivers <file>', 'JSON list of {"id", "reason", "expires"}: known failures that do not fail the run');
}

/** The reports the run writes, and when it stops early. */
function addReportOptions(run: Command): void {
  run.option('--junit <file>', 'also write a JUnit XML report to FILE (for CI test reports)');
  addFlags(run, { html: 'also write a self-contained HTML report to FILE (every check, its request and answer)' })
    .option('--summary <file>', 'append a Markdown summary to FILE (default: $GITHUB_STEP_SUMMARY when it is set)')
    .option(
      '--repro-dir <dir>',
      'where the bodies of failing requests are saved (default: a new directory under the temp dir)',
    )
    .option('--fail-fast', 'stop at the first failed must check; the checks not run are reported as skipped')
    .option(
      '--max-failures <n>',
      'stop once N must checks have failed; the checks not run are reported as skipped',
      wholeNumber(1, FLAG_BOUNDS.maxFailures),
    )
    .addOption(
      new Option(
        '--format <format>',
        'the report on stdout: compact (a line per failed or warned check, for logs) or table (every check, each failure in detail); default: table on a terminal, compact otherwise',
      ).choices(['compact', 'table']),
    )
    .option('--verbose', 'list every check in a table (the table format, also on a terminal)');
}

/** The role, and the flags of the sender role (./sender.ts): cai listens and a trigger makes the sender send. */
function addSenderRoleOptions(run: Command): void {
  run
    .addOption(
      choiceOption(
        '--role <role>',
        'receiver: check a receiver (cai sends); sender: judge a sender (cai receives, see --trigger)',
        ['receiver', 'sender'],
      ),
    )
    .option(
      '--trigger <cmd>',
      'sender: run `sh -c CMD` once per scenario, with CAI_TARGET_URL and CAI_SCENARIO set, to make the sender send (without it: send by hand)',
    )
    .option('--listen <host:port>', 'sender: where cai listens (default 127.0.0.1:0, a free port)', parseHostPort);
  addFlags(run, {
    publicUrl: "sender: the origin the sender reaches the listener at (a tunnel), when not the listener's own",
  })
    .option(
      '--wait <duration>',
      'sender: how long each document may take to be delivered, and the first to come (default 60s, 5m by hand)',
      parseDurationMs,
    )
    .option(
      '--observe <duration>',
      'after the last attempt (sender) or event (A callbacks), how long to listen for one more (default 2s)',
      parseDurationMs,
    );
  addFlags(run, {
    tlsCert: 'sender: listen with HTTPS (TLS 1.2+, §5.8) with this PEM certificate (needs --tls-key)',
    tlsKey: 'sender: the PEM private key of --tls-cert',
  });
}
