/**
 * `cai conformance`: the command group, `run`'s action (a report to read again with --rerun-failed, then the role it
 * asks for: ./receiver.ts or ./sender.ts) and what both roles are given (RoleDeps), and `coverage` and `list`
 * (./catalogue-views.ts). The flags of `run` are declared in ./run-options.ts.
 */
import { Option, type Command } from 'commander';
import { isStateCheck, parseSeed, randomSeed, type ExploreRequest } from '../../conformance/explore/setup.js';
import { usageError } from '../../errors.js';
import { shellQuote } from '../../output/curl.js';
import { readFileInput } from '../../input.js';
import { declareCommand } from '../common/list.js';
import { interfaceOption } from '../common/options.js';
import { runHandler, type CommandContext, type RunState } from '../common/runner.js';
import type { CoverageOptions, ListOptions } from './catalogue-views.js';
import { CONFORMANCE_HINTS } from './hints.js';
import { runReceiverRole } from './receiver.js';
import { rerunCommand } from './rerun.js';
import { declareRun, type RoleDeps, type RunOptions } from './run-options.js';
import { plural } from '../../text.js';

export function registerConformance(program: Command, state: RunState): void {
  const conformance = declareCommand(program, 'conformance').addHelpText(
    'after',
    '\nExamples:\n  $ cai conformance run --mock --interface B\n  $ cai conformance list --interface A',
  );

  declareRun(conformance).action(async (options: RunOptions, cmd: Command) => {
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
        const { refuseFlagsOfOtherInterface, refuseFlagsOfOtherRole, runSenderRole } = await import('./sender.js');
        const deps = roleDeps(options, cmd, context);
        if (options.role === 'sender') return runSenderRole(options, cmd, context, deps);
        refuseFlagsOfOtherRole('receiver', cmd);
        refuseFlagsOfOtherInterface(options.interface, cmd);
        return runReceiverRole(options, context, deps);
      },
      CONFORMANCE_HINTS,
    );
  });

  for (const view of CATALOGUE_VIEWS)
    conformance
      .command(view.name)
      .description(view.description)
      .addOption(interfaceOption(view.interface))
      .addOption(new Option('--role <role>', view.role).choices(view.roles).default(view.defaultRole))
      .option(view.option, view.optionHelp)
      .addHelpText('after', `\nExamples:${view.examples.map((example) => `\n  $ cai conformance ${example}`).join('')}`)
      .action(async (options: CoverageOptions & ListOptions, cmd: Command) => {
        const run = async (context: CommandContext) =>
          (await import('./catalogue-views.js'))[view.run](options, context);
        await runHandler(state, cmd, run, CONFORMANCE_HINTS);
      });
}

/** `coverage` and `list`: the catalogue by clause or by check, of one interface and role. */
const CATALOGUE_VIEWS = [
  {
    name: 'coverage',
    description: 'Show every clause of the spec with the checks that enforce it, or why none can',
    interface: 'only the clauses that bind A or B',
    role: 'the receiver checks, the sender checks, or all (default)',
    roles: ['receiver', 'sender', 'all'],
    defaultRole: 'all',
    option: '--html <file>',
    optionHelp: 'also write the matrix as a self-contained HTML page to FILE',
    examples: ['coverage --role receiver --interface B', 'coverage --json'],
    run: 'runCoverage',
  },
  {
    name: 'list',
    description: 'List the checks: id, level, spec section, tags, title',
    interface: 'only the checks of interface A or B',
    role: 'the receiver checks (default) or the sender checks',
    roles: ['receiver', 'sender'],
    defaultRole: 'receiver',
    option: '--wide',
    optionHelp: 'on a terminal, the full table (sections and tags) instead of the compact list by theme',
    examples: ['list --interface B', 'list --role sender --interface A', 'list --json'],
    run: 'runList',
  },
] as const;

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
    `running again the ${plural(rerun.ids.length, 'check')} of ${path} that did not pass${rerun.seed !== undefined ? ` (seed ${rerun.seed})` : ''}`,
  );
  return undefined;
}

/** What either role is given besides its options, the same for both: the stateful phase, the rerun line, the waivers. */
function roleDeps(options: RunOptions, cmd: Command, context: CommandContext): RoleDeps {
  // How this cai was run, for the reproduction commands: the same invocation, from any folder.
  const invocation = context.io.invocation ?? 'cai';
  const explore = exploreRequest(options);
  return {
    loadWaivers: (path) => loadWaivers(path, context),
    invocation,
    rerun: withSeed(rerunCommand(cmd, invocation), explore, cmd),
    explore,
  };
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
