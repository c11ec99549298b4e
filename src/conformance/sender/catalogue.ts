/**
 * The sender catalogue (`cai conformance list --role sender`): the checks of a `--role sender` run, Interface B's
 * event sender first, then Interface A's job sender, each in area order. Ids are `BS-<AREA>-<nnn>` and
 * `AS-<AREA>-<nnn>`, stable and never reused, apart from the receiver catalogue's `B-…` / `A-…`.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { describeCheck, planChecks, type Plan, type Selection } from '../catalogue.js';
import type { CheckMeta } from '../types.js';
import { attemptChecksA, attemptChecksB } from './checks-attempts.js';
import { deliveryChecksA, deliveryChecksB } from './checks-delivery.js';
import type { SenderCheckDefinition } from './define.js';
import { SCENARIO_IDS, type ScenarioId } from './scenarios.js';

const AREAS = ['HTTP', 'HDR', 'SIG', 'DOC', 'RETRY', 'REJECT', 'ACK', 'TIME'];

function inAreaOrder(checks: readonly SenderCheckDefinition[]): SenderCheckDefinition[] {
  const area = (check: SenderCheckDefinition) => AREAS.indexOf(check.id.split('-')[1] ?? '');
  return [...checks].sort((a, b) => area(a) - area(b) || a.id.localeCompare(b.id));
}

export const SENDER_CATALOGUE: readonly SenderCheckDefinition[] = [
  ...inAreaOrder([...attemptChecksB, ...deliveryChecksB]),
  ...inAreaOrder([...attemptChecksA, ...deliveryChecksA]),
];

export function senderChecksFor(iface: InterfaceId | undefined): readonly SenderCheckDefinition[] {
  return iface ? SENDER_CATALOGUE.filter((check) => check.interface === iface) : SENDER_CATALOGUE;
}

/** The sender catalogue as plain data (what `cai conformance list --role sender --json` prints). */
export function describeSenderCatalogue(iface?: InterfaceId): CheckMeta[] {
  return senderChecksFor(iface).map((check) => ({ ...describeCheck(check), role: 'sender', scenarios: check.scenarios }));
}

export function planSenderChecks(iface: InterfaceId, selection: Selection): Plan<SenderCheckDefinition> {
  return planChecks(senderChecksFor(iface), selection);
}

/** The scenarios the planned checks judge, in catalogue order: only those run. */
export function scenariosToRun(plan: Plan<SenderCheckDefinition>): ScenarioId[] {
  const wanted = new Set(plan.planned.filter((item) => item.skipReason === undefined).flatMap((item) => item.check.scenarios));
  return SCENARIO_IDS.filter((id) => wanted.has(id));
}
