/**
 * `cai load`: an open-model load run against a receiver of either interface (or the reference one, `--mock`), every
 * request freshly signed, with thresholds in k6's syntax that fail the run (exit 1); and `cai load export --engine
 * artillery`, the same scenario as an Artillery project for loads one machine cannot send. The flags are declared
 * here; the run is src/load (loaded inside the action: START-UP RULE); the rendering is src/output/load-summary.ts
 * and src/output/html/load-report.ts.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseDurationMs, parseHttpUrl, parsePositiveDurationMs, parseRatePerSecond } from '../cli/options.js';
import { runHandler, type CommandContext, type RunState } from '../cli/runner.js';
import { addSecretOptions, hasSecretOptions, secretsFromOptions, signingSecret } from '../cli/secret-options.js';
import { ExitCode, deliveryError, usageError } from '../errors.js';
import { HeaderNames } from '../spec/constants.js';
import { headerValueProblem } from '../spec/header-value.js';
import { LOAD_BOUNDS } from '../load/bounds.js';
import type { PhaseSpec } from '../load/schedule.js';
// The readers of the scenario's flags: small, plain data (no zod, no undici), so they load with the flags.
import { describeMix, parseMix, parseRamp, parseRepeatShare, type MixEntry } from '../load/scenario.js';
import { parseThreshold, type Threshold } from '../load/thresholds.js';

interface LoadFlags {
  interface: 'A' | 'B';
  to?: string;
  mock?: boolean;
  provider?: string;
  source?: string;
  rate?: number;
  duration: number;
  ramp?: PhaseSpec[];
  mix?: MixEntry[];
  repeat?: number;
  connections: number;
  timeout: number;
  threshold?: Threshold[];
  slo?: 'spec';
  sloScale: number;
  callbacks?: boolean;
  callbackListen?: { host: string; port: number };
  callbackUrl?: string;
  branchCode?: string;
  html?: string;
  ca?: string;
  insecure?: boolean;
  [key: string]: unknown;
}

interface ExportFlags {
  engine: 'artillery';
  out?: string;
  workers: number;
  force?: boolean;
}

const DEFAULT_RATE_PER_SECOND = 10;
/** Interface B without --mix: every event a conversation.message (§2.5), the commonest event of a conversation. */
const DEFAULT_MIX: MixEntry[] = [{ type: 'conversation.message', weight: 1 }];

/** The domain's SyntaxProblem as commander's own usage error: `option '--mix <…>' argument '…' is invalid. <why>`. */
function syntax<T, P = T>(parse: (text: string, previous: P) => T): (text: string, previous: P) => T {
  return (text, previous) => {
    try {
      return parse(text, previous);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

function bounded(max: number, what: string): (value: string) => number {
  return (value) => {
    if (!/^[0-9]+$/.test(value) || Number(value) === 0) throw new InvalidArgumentError('expected a whole number of 1 or more.');
    if (Number(value) > max) throw new InvalidArgumentError(`at most ${max} ${what} (docs/load.md, Bounds).`);
    return Number(value);
  };
}

/** `HOST:PORT` (`[::1]:8080` for IPv6; port 0: any free port). */
function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):([0-9]{1,5})$/.exec(value.trim());
  if (!match || Number(match[3]) > 65535) throw new InvalidArgumentError('expected HOST:PORT such as 127.0.0.1:8789 (port 0: any free port).');
  return { host: (match[1] ?? match[2]) as string, port: Number(match[3]) };
}

function parseScale(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 1000) throw new InvalidArgumentError('expected a factor above 0, such as 0.01 (a hundredth of the targets).');
  return n;
}

export function registerLoad(program: Command, state: RunState): void {
  const load = program
    .command('load')
    .description('Load a receiver of either interface at a set rate, every request freshly signed; judge k6-style thresholds and the §8 service levels')
    .addOption(new Option('--interface <id>', 'B: a platform events endpoint; A: a provider contact-jobs endpoint').choices(['A', 'B']).default('B'))
    .option('--to <url>', "the events URL (B), or the provider's base URL (A; /contact-jobs is appended)", parseHttpUrl)
    .option('--mock', 'load the reference receiver, started in this process')
    .option('--provider <code>', 'B: the X-CAI-Provider header (§4.2)')
    .option('--source <id>', 'A: the X-CAI-Source header (§4.1)')
    .option('--rate <n/s>', `the steady arrival rate (e.g. 200/s, 600/m; default ${DEFAULT_RATE_PER_SECOND}/s, or the last ramp's end)`, syntax(parseRate))
    .addOption(new Option('--duration <duration>', 'how long the steady phase lasts (0 with --ramp: ramps only)').argParser(parseDurationMs).default(10_000, '10s'))
    .option('--ramp <from..to/s:duration>', 'a ramp before the steady phase, e.g. 0..500/s:30s (repeatable, in order)', syntax<PhaseSpec[], PhaseSpec[] | undefined>(collectRamp))
    .option('--mix <type=weight,…>', 'B: the event types sent and their weights (default conversation.message)', syntax(parseMixFlag))
    .option('--repeat <share>', 'the share of requests that repeat an earlier accepted document, e.g. 10% (each must come back a duplicate)', syntax(parseRepeat))
    .addOption(new Option('--connections <n>', 'requests in flight at most, one per connection: an arrival finding all busy is dropped and counted').argParser(bounded(LOAD_BOUNDS.maxConnections, 'connections')).default(LOAD_BOUNDS.defaultConnections))
    .addOption(new Option('--timeout <duration>', 'per request: the answer\'s headers, and any pause in its body').argParser(parsePositiveDurationMs).default(10_000, '10s'))
    .option('--threshold <expr>', "pass/fail in k6's syntax, e.g. 'http_req_duration: p(99)<250', 'rate(status=5xx) < 0.005', 'status=401 == 0' (repeatable)", syntax<Threshold[], Threshold[] | undefined>(collectThreshold))
    .addOption(new Option('--slo <preset>', 'add the thresholds of §8: availability 99.5 %, no lost event, no 4xx for a valid document').choices(['spec']))
    .addOption(new Option('--slo-scale <factor>', "multiply §8's time targets (0.01: a first contact within 3 s instead of 5 min)").argParser(parseScale).default(1))
    .option('--callbacks', "A: listen for the provider's events and time each job to its first one (§8 first contact)")
    .option('--callback-listen <host:port>', 'A: where the callback listener listens (default 127.0.0.1:0)', parseListenAddress)
    .option('--callback-url <url>', "A: the callback listener's public address (with --callbacks), else every job's callback_url", parseHttpUrl)
    .option('--branch-code <code>', "A: the jobs' branch_code (a code from the deployment catalog)")
    .option('--html <file>', 'also write the results with rate and latency over time as charts to FILE, one self-contained HTML page')
    .option('--ca <file>', 'trust this certificate authority (PEM) for https')
    .option('--insecure', 'do not verify the TLS certificate (TLS 1.2+ still required; never in production)');
  addSecretOptions(load, 'secret', 'signing secret of the direction loaded (default: $CAI_SECRET)');
  addSecretOptions(load, 'callback-secret', "A with --callbacks: the events secret, to verify the provider's callbacks (default: $CAI_CALLBACK_SECRET)");
  load.addHelpText(
    'after',
    `
Thresholds: metric[{status:code}]: aggregation operator value, as in k6 (metrics: http_reqs, http_req_duration,
http_req_failed, dropped_iterations, availability, rejected, retry_after_missing, repeats, duplicates_confirmed,
repeats_unrecognised, callback_first_contact, callbacks_missing); or rate(status=5xx) < 0.005, status=401 == 0.

Exit codes: 0 every threshold passed (429s alone do not fail a run), 1 a threshold failed, 2 usage, 3 the target
answered nothing.

Examples:
  $ cai load --mock --rate 200/s --duration 5s --repeat 10% --slo spec
  $ cai load --to https://platform.example/cai/events --provider acme --secret-env CAI_EVENTS_SECRET \\
      --ramp 0..500/s:30s --rate 500/s --duration 2m --mix conversation.message=80,job.closed=20 \\
      --threshold 'http_req_duration: p(99)<250' --threshold 'rate(status=5xx) < 0.005' --html load.html
  $ cai load --interface A --mock --callbacks --rate 20/s --duration 10s --slo spec --slo-scale 0.01
  $ cai load export --engine artillery --out load-test --to https://platform.example/cai/events --provider acme \\
      --rate 2000/s --duration 10m --threshold 'http_req_duration: p(99)<250'`,
  );
  load.action(async (options: LoadFlags, cmd: Command) => {
    await runHandler(state, cmd, (context) => runLoadCommand(options, context));
  });

  load
    .command('export')
    .description('Write the same load as an Artillery project: one machine (npx artillery run) or AWS Fargate (run-fargate --count N)')
    .addOption(new Option('--engine <engine>', 'the load engine to write for').choices(['artillery']).makeOptionMandatory())
    .option('--out <dir>', 'the folder to write the project to (created if missing)')
    .addOption(new Option('--workers <n>', 'the Fargate workers (run-fargate --count N) the fargate environment divides the rate by').argParser(bounded(1000, 'workers')).default(1))
    .option('--force', 'overwrite the project files when DIR already has them')
    .addHelpText(
      'after',
      `
It takes the scenario options of cai load (--interface, --to, --provider or --source, --rate, --duration, --ramp,
--mix, --repeat, --timeout, --threshold, --slo, --secret-env): give them after 'export'. The secret stays out of
the files: the processor reads the environment variable --secret-env names (default CAI_SECRET).

Examples:
  $ cai load export --engine artillery --out load-test --to https://platform.example/cai/events --provider acme \\
      --rate 500/s --duration 5m --repeat 5% --threshold 'http_req_duration: p(99)<250' --workers 4
  $ cai load export --engine artillery --out jobs-load --interface A --to https://provider.example/cai \\
      --source platform --secret-env CAI_JOBS_SECRET --rate 50/s --duration 2m`,
    )
    .action(async (flags: ExportFlags, cmd: Command) => {
      await runHandler(state, cmd, (context) => runExport(flags, cmd.parent as Command, context));
    });
}

function parseRate(text: string): number {
  const rate = parseRatePerSecond(text);
  if (rate > LOAD_BOUNDS.maxRatePerSecond) throw new InvalidArgumentError(`at most ${LOAD_BOUNDS.maxRatePerSecond}/s (docs/load.md, Bounds).`);
  return rate;
}

function collectRamp(text: string, previous: PhaseSpec[] | undefined): PhaseSpec[] {
  const ramps = [...(previous ?? []), parseRamp(text, parseDurationMs)];
  if (ramps.length > LOAD_BOUNDS.maxRamps) throw new InvalidArgumentError(`at most ${LOAD_BOUNDS.maxRamps} ramps.`);
  return ramps;
}

function parseMixFlag(text: string): MixEntry[] {
  return parseMix(text);
}

function parseRepeat(text: string): number {
  return parseRepeatShare(text);
}

function collectThreshold(text: string, previous: Threshold[] | undefined): Threshold[] {
  const thresholds = [...(previous ?? []), parseThreshold(text)];
  if (thresholds.length > LOAD_BOUNDS.maxThresholds) throw new InvalidArgumentError(`at most ${LOAD_BOUNDS.maxThresholds} thresholds.`);
  return thresholds;
}

// ----------------------------------------------------------------------------------------------- the scenario

/** Flags that belong to the other interface, given: a usage error rather than a silent no-op. */
function refuseOtherInterface(options: LoadFlags): void {
  const foreign: [string, boolean][] =
    options.interface === 'A'
      ? [
          ['--provider', options.provider !== undefined],
          ['--mix', options.mix !== undefined],
        ]
      : [
          ['--source', options.source !== undefined],
          ['--callbacks', options.callbacks === true],
          ['--callback-listen', options.callbackListen !== undefined],
          ['--callback-url', options.callbackUrl !== undefined],
          ['--branch-code', options.branchCode !== undefined],
        ];
  for (const [flag, given] of foreign) {
    if (given) {
      const other = options.interface === 'A' ? 'B' : 'A';
      throw usageError('conflicting_options', `${flag} is for interface ${other}, not ${options.interface}`, options.interface === 'A' ? 'jobs carry X-CAI-Source (--source); drop the option' : `pass --interface ${other} to load a provider's contact-jobs endpoint, or drop the option`);
    }
  }
  if (options.callbackListen !== undefined && !options.callbacks) throw usageError('conflicting_options', '--callback-listen needs --callbacks', 'add --callbacks to time the first callbacks, or drop the option');
  if (hasSecretOptions(options, 'callback-secret') && !options.callbacks) throw usageError('conflicting_options', 'the callback secret options need --callbacks', "add --callbacks to verify and time the provider's callbacks, or drop them");
}

/** The phases: the ramps in order, then the steady phase (--rate for --duration). */
function phasesOf(options: LoadFlags): PhaseSpec[] {
  const ramps = options.ramp ?? [];
  const last = ramps[ramps.length - 1];
  const rate = options.rate ?? (last ? last.toPerSecond : DEFAULT_RATE_PER_SECOND);
  const phases = [...ramps];
  if (options.duration > 0) phases.push({ fromPerSecond: rate, toPerSecond: rate, durationMs: options.duration });
  if (phases.length === 0) throw usageError('bad_option', '--duration 0 without --ramp sends nothing', 'give a --duration such as 30s, or a --ramp');
  if (options.duration > 0 && rate === 0) throw usageError('bad_option', 'the steady rate is 0', 'give --rate, e.g. --rate 100/s');
  const total = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  if (total > LOAD_BOUNDS.maxDurationMs) throw usageError('bad_option', `the run would last ${Math.round(total / 60_000)} min, over the ${LOAD_BOUNDS.maxDurationMs / 3_600_000} h cai load takes`, 'shorten --duration or the ramps (docs/load.md, Bounds)');
  return phases;
}

async function thresholdsOf(options: LoadFlags, context: CommandContext): Promise<Threshold[]> {
  const thresholds = [...(options.threshold ?? [])];
  if (options.slo === 'spec') {
    const { sloThresholds } = await import('../load/thresholds.js');
    thresholds.push(...sloThresholds({ interface: options.interface, scale: options.sloScale, callbacks: options.callbacks === true }));
    if (options.repeat === undefined) {
      options.repeat = SLO_REPEAT_SHARE;
      context.output.note(`--slo spec sends ${SLO_REPEAT_SHARE * 100}% repeats to check that no event is lost (set --repeat to change it)`);
    }
  } else if (options.sloScale !== 1 && !options.callbacks) {
    throw usageError('conflicting_options', '--slo-scale scales the time targets of --slo spec and --callbacks', 'add --slo spec, or drop --slo-scale');
  }
  const { unmetNeed } = await import('../load/thresholds.js');
  for (const threshold of thresholds) {
    const need = unmetNeed(threshold, { callbacks: options.callbacks === true && options.interface === 'A' });
    if (need !== undefined) throw usageError('bad_threshold', `threshold '${threshold.expression}': ${need}`, 'add --interface A --callbacks, or drop the threshold');
  }
  return thresholds;
}

/**
 * X-CAI-Provider (B, §4.2) or X-CAI-Source (A, §4.1): required unless the reference receiver is loaded, and a value
 * HTTP carries as given (RFC 9110 §5.5: a CR or LF would add a header to every request).
 */
function identityOf(options: LoadFlags, required: boolean): string | undefined {
  const flag = options.interface === 'B' ? '--provider' : '--source';
  const identity = options.interface === 'B' ? options.provider : options.source;
  if (identity === undefined || identity === '') {
    if (!required) return undefined;
    throw usageError('missing_option', `${flag} is required`, options.interface === 'B' ? 'pass your provider_code for X-CAI-Provider (§4.2), e.g. --provider acme' : 'pass the X-CAI-Source value identifying the platform (§4.1), e.g. --source platform');
  }
  const problem = headerValueProblem(identity);
  if (problem) {
    throw usageError('bad_header_value', `${flag} is the ${options.interface === 'B' ? HeaderNames.provider : HeaderNames.source} header, and ${JSON.stringify(identity)} ${problem.message}`, `pass the ${flag === '--source' ? 'platform id' : 'provider code'} alone, printable ASCII on one line`);
  }
  return identity;
}

/** With --slo spec and no --repeat: enough repeats for "no lost event" to be judged on evidence. */
const SLO_REPEAT_SHARE = 0.05;

async function runLoadCommand(options: LoadFlags, context: CommandContext): Promise<number> {
  const { io, output } = context;
  refuseOtherInterface(options);
  if (options.mock && options.to !== undefined) throw usageError('conflicting_options', '--mock and --to both name the target', 'drop --to to load the built-in reference receiver, or --mock to load yours');
  if (!options.mock && options.to === undefined) throw usageError('missing_option', '--to is required', `pass the ${options.interface === 'B' ? 'events URL, e.g. --to https://platform.example/cai/events' : "provider's base URL, e.g. --to https://provider.example/cai"}, or --mock to load the reference receiver`);
  const identity = identityOf(options, !options.mock);
  const phases = phasesOf(options);
  const thresholds = await thresholdsOf(options, context);
  if (options.interface === 'A' && !options.mock && !options.callbacks && options.callbackUrl === undefined) {
    output.note("the jobs' callback_url is the sample's placeholder, https://platform.example/cai/events: the provider's events for them go nowhere; pass --callbacks to receive and time them, or --callback-url URL");
  }
  const secret = options.mock && !hasSecretOptions(options, 'secret') && !io.env.CAI_SECRET ? undefined : signingSecret(options, context);
  const callbackSecrets = options.callbacks && (!options.mock || hasSecretOptions(options, 'callback-secret') || io.env.CAI_CALLBACK_SECRET)
    ? secretsFromOptions(options, { prefix: 'callback-secret', defaultEnv: 'CAI_CALLBACK_SECRET' }, io.env, io.cwd, output).map((s) => s.value)
    : [];
  const { FIRST_CONTACT_TARGET_SECONDS } = await import('../spec/constants.js');
  const { openTransport } = await import('../cli/transport-options.js');
  const { client } = await openTransport({ ca: options.ca, insecure: options.insecure }, context, options.to);

  const [{ runLoad, UnreachableTarget }, { interruptInTwoSteps }, { renderLoadReport, LiveLine }] = await Promise.all([
    import('../load/run.js'),
    import('../send/interrupt.js'),
    import('../output/load-summary.js'),
  ]);
  const live = new LiveLine(context);
  const interruption = interruptInTwoSteps(io, {
    onStop: () => live.say(() => output.warn('interrupted: sending nothing more, finishing the requests in flight (Ctrl-C again aborts them)')),
    onAbort: () => live.say(() => output.warn('aborting the requests in flight')),
  });
  let report;
  try {
    report = await runLoad({
      scenario: { interface: options.interface, phases, mix: options.mix ?? DEFAULT_MIX, repeatShare: options.repeat ?? 0 },
      ...(options.to !== undefined ? { target: options.to } : {}),
      mock: options.mock === true,
      ...(identity !== undefined ? { identity } : {}),
      ...(secret !== undefined ? { secret } : {}),
      maxInFlight: options.connections,
      timeoutMs: options.timeout,
      thresholds,
      ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
      ...(options.callbackUrl !== undefined && !options.callbacks ? { callbackUrl: options.callbackUrl } : {}),
      ...(options.callbacks && options.interface === 'A'
        ? {
            callbacks: {
              ...(options.callbackListen ?? { host: '127.0.0.1', port: 0 }),
              ...(options.callbackUrl !== undefined ? { publicUrl: options.callbackUrl } : {}),
              secrets: callbackSecrets,
              targetMs: FIRST_CONTACT_TARGET_SECONDS * 1000 * options.sloScale,
            },
          }
        : {}),
      client,
      stopSignal: interruption.stopSignal,
      abortSignal: interruption.signal,
      onStart: (start) => live.start(start, phases),
      onProgress: (progress) => live.update(progress),
    });
  } catch (error) {
    if (error instanceof UnreachableTarget) {
      throw deliveryError('unreachable', `${error.message} before any answer; the run stopped`, options.mock ? 'this is a bug in cai: the reference receiver did not answer' : 'check the --to URL and that the receiver is running');
    }
    throw error;
  } finally {
    live.stop();
    interruption.dispose();
  }
  report.exitCode = report.ok ? ExitCode.ok : ExitCode.negative;
  if (options.html !== undefined) {
    const { writeLoadHtml } = await import('../output/html/load-report.js');
    await writeLoadHtml(report, options.html, context);
  }
  await renderLoadReport(report, output);
  return report.exitCode;
}

// ----------------------------------------------------------------------------------------------- export

async function runExport(flags: ExportFlags, load: Command, context: CommandContext): Promise<number> {
  const { output } = context;
  const options = load.opts() as LoadFlags;
  if (flags.out === undefined) throw usageError('missing_option', '--out is required', 'pass the folder to write the project to, e.g. --out load-test');
  const given = (name: string) => load.getOptionValueSource(name) === 'cli' || load.getOptionValueSource(name) === 'env';
  for (const [flag, key] of [
    ['--mock', 'mock'],
    ['--callbacks', 'callbacks'],
    ['--callback-listen', 'callbackListen'],
    ['--html', 'html'],
    ['--connections', 'connections'],
    ['--ca', 'ca'],
    ['--insecure', 'insecure'],
    ['--secret', 'secret'],
    ['--secret-file', 'secretFile'],
  ] as const) {
    if (given(key)) throw usageError('conflicting_options', `${flag} does not apply to cai load export`, exportHint(flag));
  }
  refuseOtherInterface(options);
  if (options.to === undefined) throw usageError('missing_option', '--to is required', 'pass the URL Artillery loads (config.target): the events URL (B) or the provider\'s base URL (A)');
  const identity = identityOf(options, true) as string;
  const secretEnvs = (options.secretEnv as { ref: string }[] | undefined) ?? [];
  if (secretEnvs.length > 1) throw usageError('conflicting_options', '--secret-env is given more than once', 'the processor signs with one secret: give one --secret-env NAME');
  const secretEnv = secretEnvs[0]?.ref ?? 'CAI_SECRET';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) throw usageError('bad_option', `--secret-env ${secretEnv} is not an environment variable name`, 'use letters, digits and _, such as CAI_SECRET');
  const phases = phasesOf(options);
  const thresholds = await thresholdsOf(options, context);

  const [{ exportArtillery }, { writeProject }, { versionInfo }] = await Promise.all([import('../load/artillery.js'), import('../output/load-summary.js'), import('../version.js')]);
  const project = exportArtillery({
    scenario: { interface: options.interface, phases, mix: options.mix ?? DEFAULT_MIX, repeatShare: options.repeat ?? 0 },
    target: options.to,
    identity,
    secretEnv,
    thresholds,
    timeoutMs: options.timeout,
    workers: flags.workers,
    ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
    ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}),
    generator: `cai ${versionInfo().version}`,
    command: describeCommand(options, secretEnv, thresholds),
  });
  await writeProject(project, flags.out, flags.force === true, context);
  for (const item of project.untranslated) output.warn(`threshold '${item.expression}' is not in the Artillery project: ${item.why}`);
  return ExitCode.ok;
}

function exportHint(flag: string): string {
  if (flag === '--secret' || flag === '--secret-file') return 'the project reads the secret from an environment variable: pass --secret-env NAME (default CAI_SECRET)';
  if (flag === '--mock') return 'Artillery loads a real target: pass --to URL (e.g. a cai mock platform you started)';
  return 'drop it: Artillery has no counterpart for it (docs/load.md)';
}

/** The `cai load` command the project stands for, from the parsed flags (the secret is never on it: only its variable). */
function describeCommand(options: LoadFlags, secretEnv: string, thresholds: readonly Threshold[]): string {
  const quote = (word: string) => (/^[\w./:=@%,+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);
  const words = ['cai', 'load', '--interface', options.interface, '--to', options.to ?? ''];
  words.push(options.interface === 'B' ? '--provider' : '--source', (options.interface === 'B' ? options.provider : options.source) ?? '');
  words.push('--secret-env', secretEnv);
  for (const ramp of options.ramp ?? []) words.push('--ramp', `${ramp.fromPerSecond}..${ramp.toPerSecond}/s:${ramp.durationMs / 1000}s`);
  if (options.duration > 0) words.push('--rate', `${options.rate ?? options.ramp?.at(-1)?.toPerSecond ?? DEFAULT_RATE_PER_SECOND}/s`, '--duration', `${options.duration / 1000}s`);
  if (options.mix) words.push('--mix', describeMix(options.mix));
  if (options.repeat) words.push('--repeat', `${Math.round(options.repeat * 10000) / 100}%`);
  for (const threshold of thresholds.filter((item) => item.description === undefined)) words.push('--threshold', threshold.expression);
  if (options.slo) words.push('--slo', options.slo);
  if (options.sloScale !== 1) words.push('--slo-scale', String(options.sloScale));
  return words.map(quote).join(' ');
}
