/**
 * Flags shared by `cai send-job`, `cai send-event` and `cai replay`. Light on purpose (START-UP RULE):
 * only commander and the cli helpers here; the sending code is loaded inside the actions.
 */
import { addFlags, type SharedFlags } from './flags.js';
import { Option, type Command } from 'commander';
import { FLAG_BOUNDS } from '../../bounds-flags.js';
import { usageError } from '../../errors.js';
import type { Dispatcher } from '../../http/client.js';
import type { TransportFlags } from '../../http/transport.js';
import type { RetryPolicy } from '../../http/retry.js';
import type { Output } from '../../output/output.js';
import { parseIpAddress } from './network-options.js';
import {
  collectValues,
  IDENTITY_HOW,
  requireOptions,
  parseDurationMs,
  choiceOption,
  durationOption,
  parseRetryPeriodMs,
  wholeNumber,
  parseRatePerSecond,
} from './options.js';
import type { CommandContext } from './runner.js';
import { addTlsOptions, openTransport, type PlainHttpFlags } from './transport-options.js';

/** The transport flags of a send, `--tls` and `--allow-http` (checkPlainHttp) among them. */
export interface TransportOptions
  extends Pick<TransportFlags, 'ca' | 'insecure' | 'proxy' | 'localAddress'>,
    PlainHttpFlags {
  timeout: number;
  retryFor: number;
  maxAttempts?: number;
  /** commander's `--no-retry`. */
  retry: boolean;
  initialDelay?: number;
  printSchedule?: boolean;
  dryRun?: boolean;
  format: 'http' | 'curl';
  verbose?: boolean;
  /** Set before the action: `--retry-for` came from the command line, the environment or a profile, not the default. */
  retryForGiven?: boolean;
  [key: string]: unknown;
}

export interface SendOptions
  extends TransportOptions,
    Pick<SharedFlags, 'to' | 'source' | 'provider' | 'callbackUrl' | 'branchCode'> {
  body?: string;
  sample?: string | boolean;
  set?: string[];
  unset?: string[];
  /** commander's `--no-validate`. */
  validate: boolean;
  ndjson?: string;
  concurrency: number;
  rate?: number;
  output?: string;
  resume?: string;
}

/**
 * Flags whose meaning depends on the mode, given explicitly where they would do nothing: a usage error rather
 * than a silent no-op. (`--concurrency` has a default, so only an explicit one counts.)
 */
export function refuseIdleFlags(options: SendOptions, command: Command): void {
  const given = (key: string) => command.getOptionValueSource(key) === 'cli';
  if (options.ndjson === undefined && given('concurrency')) {
    throw usageError(
      'conflicting_options',
      '--concurrency works in batch mode only',
      'add --ndjson FILE to send a batch, or drop the option',
    );
  }
  if (options.ndjson !== undefined && given('verbose')) {
    throw usageError(
      'conflicting_options',
      '--verbose does not work with --ndjson',
      'write one result per document with --output FILE, or send one document at a time',
    );
  }
}

/** `--timeout`, retries, TLS, proxy, `--dry-run`, `--verbose`: everything between the body and the wire. */
export function addTransportOptions(command: Command): Command {
  command
    .addOption(
      durationOption('--timeout <duration>', 'per attempt: connect, headers and body (e.g. 500ms, 10s)', '10s', true),
    )
    .addOption(
      new Option(
        '--retry-for <duration>',
        'retry 429, 5xx, time-outs and connection failures for up to this long (§8: at most 24h); a refused local port (nothing listens) ends the send at once, unless this is given',
      )
        .argParser(parseRetryPeriodMs)
        .default(120_000, '2m'),
    )
    .option('--max-attempts <n>', 'at most N attempts in all, the first included', wholeNumber(1, FLAG_BOUNDS.attempts))
    // One attempt, whatever the answer: a retry flag beside it would do nothing, so the two are a usage error.
    .addOption(
      new Option('--no-retry', 'one attempt only, whatever the answer').conflicts([
        'maxAttempts',
        'retryFor',
        'initialDelay',
      ]),
    )
    // Hidden: the first backoff wait. For tests and for receivers that document their own pace.
    .addOption(
      new Option(
        '--initial-delay <duration>',
        'the first backoff wait, doubling from there (default 1s); short for a conformance --role sender run',
      ).argParser(parseDurationMs),
    )
    .option('--print-schedule', 'print the planned retry waits for these settings and send nothing');
  // Read once the profile's defaults are in: the program's hook, which sets them, runs before the command's.
  // Whether `--retry-for` was asked for (command line, environment, profile) rather than left at its default.
  command.hook('preAction', () => {
    command.setOptionValue('retryForGiven', ![undefined, 'default'].includes(command.getOptionValueSource('retryFor')));
  });
  addTlsOptions(command);
  return command
    .option(
      '--local-address <ip>',
      'send from this local IP address (a registered egress address, §5.7)',
      parseIpAddress,
    )
    .option('--dry-run', 'print the exact request that would be sent, and send nothing')
    .addOption(
      choiceOption('--format <format>', 'with --dry-run: a raw HTTP request or a curl command', ['http', 'curl']),
    )
    .option('--verbose', 'also show the request headers of every attempt (the signature, never the secret)');
}

/**
 * The retry policy the flags ask for (resolved against the defaults by src/http/retry.ts), or with --print-schedule
 * its waits printed instead (the exit code). A refused connection to a loopback address ends the send at once, unless
 * `--retry-for` was given: then the user wants it to keep trying.
 */
export async function retryPolicyOf(options: TransportOptions, output: Output): Promise<RetryPolicy | number> {
  const { resolvePolicy } = await import('../../http/retry.js');
  const policy = resolvePolicy({
    enabled: options.retry,
    retryForMs: options.retryFor,
    stopWhenNothingListens: options.retryForGiven !== true,
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.initialDelay !== undefined ? { initialDelayMs: options.initialDelay } : {}),
  });
  return options.printSchedule ? (await import('../send/retry-schedule.js')).renderSchedule(policy, output) : policy;
}

export function addSendOptions(command: Command, kind: 'job' | 'event'): Command {
  addFlags(command, {
    to: kind === 'job' ? "the provider's base URL; /contact-jobs is appended (§4.1)" : 'the events URL (§4.2)',
  })
    .option('--body <file>', 'the body to send, byte for byte; - reads stdin')
    .option(
      kind === 'job' ? '--sample' : '--sample [type]',
      kind === 'job'
        ? 'send a generated, valid contact job (§2.2)'
        : 'send a generated, valid event of TYPE (default conversation.message)',
    )
    .option(
      '--set <path=value>',
      'with --sample: set a field (dotted path; the value is JSON if it parses, else a string)',
      collectValues,
    )
    .option('--unset <path>', 'with --sample: remove a field', collectValues)
    .option('--no-validate', 'send even when the body breaks the schema (to test a receiver on purpose)');
  addFlags(
    command,
    kind === 'job'
      ? {
          source: 'the X-CAI-Source header: the platform identifier (§4.1)',
          callbackUrl: 'with --sample: the callback_url of the job',
          branchCode: 'with --sample: the branch_code of the job (a code from the deployment catalog)',
        }
      : { provider: 'the X-CAI-Provider header: your provider_code (§4.2)' },
  );
  command
    .option('--ndjson <file>', 'batch: send every line of FILE (- for stdin) as its own document')
    .option('--concurrency <n>', 'batch: documents in flight at once', wholeNumber(1, FLAG_BOUNDS.concurrency), 8)
    .option('--rate <n/s>', 'batch: start at most N documents per second (e.g. 20/s, 600/m)', parseRatePerSecond)
    .option('--output <file>', 'batch: write one NDJSON result per document to FILE')
    .option('--resume <file>', 'batch: skip the documents a previous --output file records as accepted');
  addTransportOptions(command);
  return addFlags(command, {
    secret: `signing secret of the ${kind === 'job' ? 'jobs (Interface A)' : 'events (Interface B)'} direction (default: $CAI_SECRET)`,
  });
}

/** `--to` and the identity header's value (§4.1 X-CAI-Source, §4.2 X-CAI-Provider) of a send: given, or from the profile. */
export function requireSendTarget(
  kind: 'job' | 'event',
  options: Pick<SendOptions, 'to' | 'source' | 'provider'>,
): { to: string; identity: string } {
  const identity = kind === 'job' ? 'source' : 'provider';
  const [to, value] = requireOptions([
    {
      flag: '--to',
      value: options.to,
      how:
        kind === 'job'
          ? "the provider's base URL, e.g. --to https://provider.example/cai"
          : 'the events URL, e.g. --to https://platform.example/cai/events',
    },
    { flag: `--${identity}`, value: options[identity], how: IDENTITY_HOW[identity] },
  ]) as [string, string];
  return { to, identity: value };
}

/** The pool of a sending command's connections to `to` (one, or `connections` for a batch), its transport shown. */
export async function openSendPool(
  options: TransportOptions,
  context: CommandContext,
  to: string,
  connections = 1,
): Promise<Dispatcher> {
  const { openDispatcher } = await import('../../http/transport.js');
  const { ca, insecure, proxy, localAddress, timeout } = options;
  const flags = { ca, insecure, proxy, localAddress, connectTimeoutMs: timeout, connections };
  return openDispatcher(await openTransport(flags, context, to));
}
