/**
 * The clause coverage of the catalogue: for every normative statement of the spec (src/spec/clauses.ts), the checks
 * that enforce it, or why none can. A `must` clause with neither is a hole in the suite, and a test fails on it.
 * Pure: the clauses and the catalogue in, the matrix out; `cai conformance coverage` renders it, and the run's
 * reports add the verdicts of the checks that ran.
 */
import { CLAUSES, type Clause, type ClauseRole } from '../spec/clauses.js';
import type { InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { CATALOGUE, SENDER_CATALOGUE } from './catalogue.js';
import type { Check } from './check.js';
import type { CheckResult, CheckRole } from './types.js';

/** Who a check judges: a receiver check of B the platform's endpoint, a sender check of B an event sender, and so on. */
export function clauseRoleOf(check: Pick<Check, 'role' | 'interface'>): ClauseRole {
  const spec = interfaceSpec(check.interface);
  return check.role === 'sender' ? spec.senderRole : spec.receiverRole;
}

/** The clause roles a run of one role and interface judges (an Interface A run also judges the provider's event sending). */
export function clauseRolesOf(role: CheckRole, iface: InterfaceId): ClauseRole[] {
  const spec = interfaceSpec(iface);
  if (role === 'sender') return [spec.senderRole];
  // A provider receiving jobs also sends the job's events back (§3): its callbacks are judged in the same run.
  return spec.receiver === 'provider' ? [spec.receiverRole, interfaceSpec('B').senderRole] : [spec.receiverRole];
}

export interface CoveringCheck extends Pick<CheckResult, 'id' | 'role' | 'interface' | 'level'> {
  /** The verdict the check got in a run, when the coverage is of a run. */
  verdict?: CheckResult['verdict'];
}

export interface ClauseCoverage {
  clause: Clause;
  /** `covered`: at least one check enforces it; `untestable`: none can, and the clause says why; `uncovered`: a hole. */
  status: 'covered' | 'untestable' | 'uncovered';
  checks: CoveringCheck[];
}

/** Every check of the catalogue once (a sender check that also judges callbacks is one check). */
function allChecks(): Check[] {
  const seen = new Set<string>();
  return [...CATALOGUE, ...SENDER_CATALOGUE].filter((check) => {
    const key = `${check.role} ${check.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The matrix: clause → checks, for the clauses binding the roles asked for (`roles`; default: every role). */
export function coverage(options: { roles?: readonly ClauseRole[] } = {}): ClauseCoverage[] {
  const checks = allChecks();
  const wanted = options.roles;
  return CLAUSES.filter((clause) => !wanted || clause.roles.some((role) => wanted.includes(role))).map((clause) => {
    const covering = checks
      .filter((check) => check.clauses.includes(clause.id) && (!wanted || wanted.includes(clauseRoleOf(check))))
      .map((check) => ({ id: check.id, role: check.role, interface: check.interface, level: check.level }));
    const status = covering.length > 0 ? 'covered' : clause.untestable ? 'untestable' : 'uncovered';
    return { clause, status, checks: covering };
  });
}

/** The matrix of a run: each clause of its roles with the verdicts its checks got (those that ran; the others without one). */
export function runCoverage(
  results: readonly Pick<CheckResult, 'id' | 'role' | 'interface' | 'level' | 'verdict'>[],
  role: CheckRole,
  iface: InterfaceId,
): ClauseCoverage[] {
  const verdicts = new Map(results.map((result) => [`${result.role} ${result.id}`, result.verdict]));
  return coverage({ roles: clauseRolesOf(role, iface) }).map((entry) => ({
    ...entry,
    // The checks that ran with their verdicts, then those of the catalogue this run did not run (no verdict).
    checks: [
      ...entry.checks
        .filter((check) => verdicts.has(`${check.role} ${check.id}`))
        .map((check) => ({ ...check, verdict: verdicts.get(`${check.role} ${check.id}`) })),
      ...entry.checks.filter((check) => !verdicts.has(`${check.role} ${check.id}`)),
    ],
  }));
}

export function summariseCoverage(matrix: readonly ClauseCoverage[]) {
  const must = matrix.filter((entry) => entry.clause.level === 'must');
  return {
    clauses: matrix.length,
    must: must.length,
    covered: matrix.filter((entry) => entry.status === 'covered').length,
    mustCovered: must.filter((entry) => entry.status === 'covered').length,
    untestable: matrix.filter((entry) => entry.status === 'untestable').length,
    uncovered: matrix.filter((entry) => entry.status === 'uncovered').map((entry) => entry.clause.id),
  };
}
