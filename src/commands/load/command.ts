/**
 * `cai load`: an open-model load run against a receiver of either interface (or the reference one, `--mock`), every
 * request freshly signed, with thresholds in k6's syntax that fail the run (exit 1); and `cai load export --engine
 * artillery`, the same scenario as an Artillery project for loads one machine cannot send. The flags are declared
 * here, their readers in src/commands/load/options.ts, the export in src/commands/load/export.ts; the run is src/load (loaded
 * inside the action: START-UP RULE); the rendering is src/commands/load/summary.ts and src/commands/load/html-report.ts.
 */
import { addFlags } from '../common/flags.js';
import { Option, type Command } from 'commander';
import {
  bounded,
  collectRamp,
  collectThreshold,
  DEFAULT_RATE_PER_SECOND,
  parseScale,
  syntax,
  type ExportFlags,
  type LoadFlags,
} from './options.js';
import { parseMix, parseRepeatShare } from '../../load/scenario.js';
import { callbackListenOption, durationOption, interfaceOption, parseRatePerSecond } from '../common/options.js';
import { runHandler, type RunState } from '../common/runner.js';
import { addCaOptions } from '../common/transport-options.js';
import { LOAD_BOUNDS } from '../../load/bounds.js';
import type { PhaseSpec } from '../../load/schedule.js';
import type { Threshold } from '../../load/thresholds.js';
import { declareCommand } from '../common/list.js';
import { LOAD_HINTS } from './hints.js';

/** The help after the flags of `cai load`: the threshold syntax, exit codes and examples. */
const LOAD_HELP = `
Thresholds: metric[{status:code}]: aggregation operator value, as in k6 (metrics: http_reqs, http_req_duration,
http_req_failed, dropped_iterations, availability, rejected, retry_after_missing, repeats, duplicates_confirmed,
repeats_unrecognised, callback_first_contact, callbacks_missing); or rate(status=5xx) < 0.005, status=401 == 0.

Exit codes: 0 every threshold passed (429s alone do not fail a run), 1 a threshold failed, no request was accepted
or the run was cut short (SIGTERM; Ctrl-C: 130), 2 usage, 3 the target answered nothing.

Examples:
  $ cai load --mock --rate 200/s --duration 5s --repeat 10% --slo spec
  $ cai load --to https://platform.example/cai/events --provider acme --secret-env CAI_EVENTS_SECRET \\
      --ramp 0..500/s:30s --rate 500/s --duration 2m --mix conversation.message=80,job.closed=20 \\
      --threshold 'http_req_duration: p(99)<250' --threshold 'rate(status=5xx) < 0.005' --html load.html
  $ cai load --interface A --mock --callbacks --rate 20/s --duration 10s --slo spec --slo-scale 0.01
  $ cai load export --engine artillery --out load-test --to https://platform.example/cai/events --provider acme \\
      --rate 2000/s --duration 10m --threshold 'http_req_duration: p(99)<250'`;

/** The help after the flags of `cai load export`: the scenario flags it takes and where the secret goes. */
const EXPORT_HELP = `
It takes the scenario options of cai load (--interface, --to, --provider or --source, --rate, --duration, --ramp,
--mix, --repeat, --timeout, --threshold, --slo, --secret-env): give them after 'export'. The secret stays out of
the files: the processor reads the environment variable --secret-env names (default CAI_SECRET).

Examples:
  $ cai load export --engine artillery --out load-test --to https://platform.example/cai/events --provider acme \\
      --rate 500/s --duration 5m --repeat 5% --threshold 'http_req_duration: p(99)<250' --workers 4
  $ cai load export --engine artillery --out jobs-load --interface A --to https://provider.example/cai \\
      --source platform --secret-env CAI_JOBS_SECRET --rate 50/s --duration 2m`;

export function registerLoad(program: Command, state: RunState): void {
  const load = declareCommand(program, 'load');
  addTargetOptions(load);
  addArrivalOptions(load);
  addThresholdOptions(load);
  addCallbackOptions(load);
  addCaOptions(load);
  addFlags(load, {
    secret: 'signing secret of the direction loaded (default: $CAI_SECRET)',
    callbackSecret:
      "A with --callbacks: the events secret, to verify the provider's callbacks (default: $CAI_CALLBACK_SECRET)",
  });
  load.addHelpText('after', LOAD_HELP);
  load.action(async (options: LoadFlags, cmd: Command) => {
    await runHandler(
      state,
      cmd,
      async (context) => (await import('./action.js')).runLoadCommand(options, context),
      LOAD_HINTS,
    );
  });
  registerLoadExport(load, state);
}

/** What is loaded: the interface, the target (or the mock) and the header that names the sender. */
function addTargetOptions(load: Command): void {
  load.addOption(interfaceOption('B: a platform events endpoint; A: a provider contact-jobs endpoint').default('B'));
  addFlags(load, {
    to: "the events URL (B), or the provider's base URL (A; /contact-jobs is appended)",
    mock: 'load the reference receiver, started in this process',
    provider: 'B: the X-CAI-Provider header (§4.2)',
    source: 'A: the X-CAI-Source header (§4.1)',
  });
}

/** How requests arrive: the open model's rate and phases, what is sent, and the limits on each request. */
function addArrivalOptions(load: Command): void {
  load
    .option(
      '--rate <n/s>',
      `the steady arrival rate (e.g. 200/s, 600/m; default ${DEFAULT_RATE_PER_SECOND}/s, or the last ramp's end)`,
      parseRatePerSecond,
    )
    .addOption(
      durationOption('--duration <duration>', 'how long the steady phase lasts (0 with --ramp: ramps only)', '10s'),
    )
    .option(
      '--ramp <from..to/s:duration>',
      'a ramp before the steady phase, e.g. 0..500/s:30s (repeatable, in order)',
      syntax<PhaseSpec[], PhaseSpec[] | undefined>(collectRamp),
    )
    .option(
      '--mix <type=weight,…>',
      'B: the event types sent and their weights (default conversation.message)',
      syntax(parseMix),
    )
    .option(
      '--repeat <share>',
      'the share of requests that repeat an earlier accepted document, e.g. 10% (each must come back a duplicate)',
      syntax(parseRepeatShare),
    )
    .addOption(
      new Option(
        '--connections <n>',
        'requests in flight at most, one per connection: an arrival finding all busy is dropped and counted',
      )
        .argParser(bounded(LOAD_BOUNDS.maxConnections, 'connections'))
        .default(LOAD_BOUNDS.defaultConnections),
    )
    .addOption(
      durationOption(
        '--timeout <duration>',
        'per request: its whole answer, headers and body (the run ends one time-out after its last phase)',
        '10s',
        true,
      ),
    );
}

/** What fails the run: k6-style thresholds, and the §8 targets as a preset. */
function addThresholdOptions(load: Command): void {
  load
    .option(
      '--threshold <expr>',
      "pass/fail in k6's syntax, e.g. 'http_req_duration: p(99)<250', 'rate(status=5xx) < 0.005', 'status=401 == 0' (repeatable)",
      syntax<Threshold[], Threshold[] | undefined>(collectThreshold),
    )
    .addOption(
      new Option(
        '--slo <preset>',
        'add the thresholds of §8: availability 99.5 %, no lost event, no 4xx for a valid document',
      ).choices(['spec']),
    )
    .addOption(
      new Option(
        '--slo-scale <factor>',
        "multiply §8's time targets (0.01: a first contact within 3 s instead of 5 min)",
      )
        .argParser(parseScale)
        .default(1),
    );
}

/** Interface A's jobs: their callback_url and branch_code, and the listener that times each to its first event (§8); then --html. */
function addCallbackOptions(load: Command): void {
  load
    .option('--callbacks', "A: listen for the provider's events and time each job to its first one (§8 first contact)")
    .addOption(callbackListenOption());
  addFlags(load, {
    callbackUrl: "A: the callback listener's public address (with --callbacks), else every job's callback_url",
    branchCode: "A: the jobs' branch_code (a code from the deployment catalog)",
    html: 'also write the results with rate and latency over time as charts to FILE, one self-contained HTML page',
  });
}

/** `cai load export`: the same scenario written as an Artillery project (the scenario flags are the parent's). */
function registerLoadExport(load: Command, state: RunState): void {
  load
    .command('export')
    .description(
      'Write the same load as an Artillery project: one machine (npx artillery run) or AWS Fargate (run-fargate --count N)',
    )
    .addOption(
      new Option('--engine <engine>', 'the load engine to write for').choices(['artillery']).makeOptionMandatory(),
    )
    .option('--out <dir>', 'the folder to write the project to (created if missing)')
    .addOption(
      new Option(
        '--workers <n>',
        'the Fargate workers (run-fargate --count N) the fargate environment divides the rate by',
      )
        .argParser(bounded(1000, 'workers'))
        .default(1),
    )
    .option('--force', 'overwrite the project files when DIR already has them')
    .addHelpText('after', EXPORT_HELP)
    .action(async (flags: ExportFlags, cmd: Command) => {
      await runHandler(state, cmd, async (context) =>
        (await import('./export.js')).runExport(flags, cmd.parent as Command, context),
      );
    });
}
