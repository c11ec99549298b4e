import type { Command } from 'commander';
import { runHandler, type RunState } from '../common/runner.js';
import { choiceOption, collectValues, parseTimeBound } from '../common/options.js';
import { declareCommand } from '../common/list.js';
import type { ReportOptions } from './action.js';

export function registerReport(program: Command, state: RunState): void {
  declareCommand(program, 'report')
    .option(
      '--log <file>',
      'an NDJSON log as the mocks write it (repeatable: the provider log of jobs and the platform log of events); - reads stdin',
      collectValues,
    )
    .option(
      '--since <time>',
      'only records received at or after TIME: 2026-11-01, 2026-11-01T09:00:00+01:00, or a duration ago (7d)',
      parseTimeBound,
    )
    .option('--until <time>', 'only records received before TIME (same forms as --since)', parseTimeBound)
    .option('--provider <code>', 'only records of this provider_code')
    .addOption(choiceOption('--space <space>', 'live data, the test space (§1), or both', ['live', 'test', 'all']))
    .addOption(
      choiceOption('--format <format>', 'a table on the terminal, one JSON document, or CSV for spreadsheets', [
        'table',
        'json',
        'csv',
      ]),
    )
    .option('--html <file>', 'also write the report with charts to FILE, one self-contained HTML page')
    .addHelpText(
      'after',
      `
Examples:
  $ cai report --log provider.ndjson --log platform.ndjson
  $ cai report --log platform.ndjson --since 7d --provider acme --format csv > week.csv
  $ cai report --log events.ndjson --since 2026-11-01 --until 2026-12-01 --json
  $ cai report --log provider.ndjson --log platform.ndjson --html report.html`,
    )
    .action(async (options: ReportOptions, cmd: Command) => {
      await runHandler(state, cmd, async (context) => (await import('./action.js')).runReport(options, context));
    });
}
