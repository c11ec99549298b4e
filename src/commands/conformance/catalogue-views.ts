/** `cai conformance coverage` and `cai conformance list`: the catalogue and the spec's clauses, read without a run. */
import type { InterfaceId } from '../../spec/constants.js';
import type { CommandContext } from '../common/runner.js';

export interface ListOptions {
  interface?: InterfaceId;
  role: 'receiver' | 'sender';
  wide?: boolean;
  [key: string]: unknown;
}

export interface CoverageOptions {
  interface?: InterfaceId;
  role: 'receiver' | 'sender' | 'all';
  html?: string;
  [key: string]: unknown;
}

/** `cai conformance coverage`: every clause of the spec, the checks that enforce it, or why none can. */
export async function runCoverage(options: CoverageOptions, context: CommandContext): Promise<number> {
  const { output } = context;
  const { coverage, clauseRolesOf, summariseCoverage } = await import('../../conformance/coverage.js');
  const roles = (options.role === 'all' ? (['receiver', 'sender'] as const) : [options.role]).flatMap((role) =>
    (options.interface ? [options.interface] : (['B', 'A'] as const)).flatMap((iface) => clauseRolesOf(role, iface)),
  );
  const matrix = coverage({ roles: [...new Set(roles)] });
  const { renderCoverageHtml, renderCoverageText } = await import('../../conformance/reporters/coverage.js');
  if (options.html !== undefined) {
    const { writeReportPage } = await import('../common/report-files.js');
    const render = (generator: string) => renderCoverageHtml(matrix, { title: 'cai conformance coverage', generator });
    await writeReportPage(options.html, render, context, 'HTML coverage');
  }
  if (output.json) {
    output.printJson({
      clauses: matrix.map((entry) => ({ ...entry.clause, status: entry.status, checks: entry.checks })),
      summary: summariseCoverage(matrix),
    });
    return 0;
  }
  for (const line of renderCoverageText(matrix).split('\n')) output.result(line);
  return 0;
}

/** `cai conformance list`: the checks of a role (and interface), as a list by theme, the full table, or JSON. */
export async function runList(options: ListOptions, { output }: CommandContext): Promise<number> {
  const checks = (await import('../../conformance/catalogue.js')).describeCatalogue(options.role, options.interface);
  if (output.json) {
    output.printJson({ checks });
    return 0;
  }
  await (await import('../../output/check-list.js')).renderCheckList(checks, { wide: options.wide === true }, output);
  return 0;
}
