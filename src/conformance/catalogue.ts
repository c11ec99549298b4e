/**
 * The one catalogue of checks, of both roles and both interfaces, and the selection rules of --only / --skip /
 * --include. The checks are defined by theme in ./checks/receiver and ./checks/sender; this is the one place that
 * orders them, and the order is what `cai conformance list` and every report show. The sender checks that judge a
 * provider's events also run on the events an Interface A provider sends back to the callback listener: there they
 * are listed among the Interface A receiver's checks, tagged `callback`, under their own ids and the former ids of
 * the callback checks they replaced (aliases, so waivers and selections that name those still match).
 */
import { createHash } from 'node:crypto';
import type { InterfaceId } from '../spec/constants.js';
import { versionInfo } from '../version.js';
import type { Check, CheckMeta, SenderCheck } from './check.js';
import { acceptance } from './checks/receiver/acceptance.js';
import { identity, signatureBinding, signatures } from './checks/receiver/authentication.js';
import { RETRIED_SCENARIOS } from './checks/receiver/callback-jobs.js';
import { callbacks } from './checks/receiver/callbacks.js';
import { repeatedJob } from './checks/receiver/repeated-job.js';
import { clock } from './checks/receiver/clock.js';
import { duplicates } from './checks/receiver/duplicates.js';
import { formats } from './checks/receiver/formats.js';
import { rate } from './checks/receiver/rate.js';
import { framing, rawBody } from './checks/receiver/raw-body.js';
import type { ByInterface } from './checks/receiver/receivers.js';
import { schema } from './checks/receiver/schema.js';
import { size } from './checks/receiver/size.js';
import { timestampWindow } from './checks/receiver/window.js';
import { attemptChecksA, attemptChecksB, documentKindChecksA, documentKindChecksB } from './checks/sender/attempts.js';
import { deliveryChecksA, deliveryChecksB } from './checks/sender/deliveries.js';
import { senderStateChecksA, senderStateChecksB, stateful } from './explore/checks.js';

import {
  CALLBACK_SCENARIO_IDS,
  SCENARIO_IDS,
  type CallbackScenarioId,
  type SenderScenarioId,
} from './listen/scenarios.js';
import type { CheckRole } from './types.js';
import { optionName } from '../errors.js';

/** The receiver themes in catalogue order; each contributes its checks of the interface, if it has any. */
const THEMES: readonly ByInterface[] = [
  acceptance,
  duplicates,
  repeatedJob,
  rawBody,
  framing,
  signatures,
  timestampWindow,
  identity,
  signatureBinding,
  schema,
  formats,
  size,
  rate,
  clock,
  callbacks,
  stateful,
];

const SENDER_AREAS = ['HTTP', 'HDR', 'SIG', 'DOC', 'TYPE', 'PART', 'ID', 'RETRY', 'REJECT', 'ACK', 'TIME', 'STATE'];

function inAreaOrder(checks: readonly SenderCheck[]): SenderCheck[] {
  const area = (check: SenderCheck) => SENDER_AREAS.indexOf(check.id.split('-')[1] ?? '');
  // Ids are ASCII: their code units order them, with no collator to build at start-up (ICU's first use costs ms).
  return [...checks].sort((a, b) => area(a) - area(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Interface B's event sender first, then Interface A's job sender, each in area order. */
export const SENDER_CATALOGUE: readonly SenderCheck[] = [
  ...inAreaOrder([...attemptChecksB, ...documentKindChecksB, ...deliveryChecksB, ...senderStateChecksB]),
  ...inAreaOrder([...attemptChecksA, ...documentKindChecksA, ...deliveryChecksA, ...senderStateChecksA]),
];

/**
 * The sender checks of Interface B that judge the events an Interface A provider sends back, with the callback
 * scenarios (jobs) each reads and the callback checks each replaced.
 */
const ON_CALLBACKS: Readonly<Record<string, { stages: readonly CallbackScenarioId[]; aliases?: readonly string[] }>> = {
  'BS-HTTP-001': { stages: CALLBACK_SCENARIO_IDS },
  'BS-HDR-001': { stages: CALLBACK_SCENARIO_IDS, aliases: ['A-CB-003'] },
  'BS-HDR-002': { stages: CALLBACK_SCENARIO_IDS },
  'BS-SIG-001': { stages: CALLBACK_SCENARIO_IDS, aliases: ['A-CB-002', 'A-CB-008'] },
  'BS-SIG-002': { stages: CALLBACK_SCENARIO_IDS, aliases: ['A-CB-002'] },
  'BS-SIG-003': { stages: CALLBACK_SCENARIO_IDS, aliases: ['A-CB-002', 'A-CB-008'] },
  'BS-DOC-001': { stages: CALLBACK_SCENARIO_IDS, aliases: ['A-CB-004'] },
  'BS-DOC-002': { stages: CALLBACK_SCENARIO_IDS },
  'BS-DOC-003': { stages: CALLBACK_SCENARIO_IDS },
  'BS-DOC-004': { stages: CALLBACK_SCENARIO_IDS },
  // §5.5: a retry signed with the first attempt's timestamp leaves the window after 300 s of the 24 hours of retries
  // (§7); the stages whose retries come 1.5 s or more after the first attempt show it.
  'BS-SIG-004': { stages: ['callback-5xx', 'callback-429', 'callback-429-date'] },
  'BS-RETRY-001': { stages: ['callback-503', 'callback-5xx'], aliases: ['A-CB-007'] },
  'BS-RETRY-002': { stages: RETRIED_SCENARIOS, aliases: ['A-CB-007'] },
  'BS-RETRY-003': { stages: RETRIED_SCENARIOS },
  'BS-RETRY-004': { stages: RETRIED_SCENARIOS },
  // Waits that grow and a sender that keeps retrying are seen only through several 5xx in a row (§7, §8).
  'BS-RETRY-005': { stages: ['callback-5xx'] },
  'BS-RETRY-006': { stages: ['callback-reset'] },
  'BS-RETRY-007': { stages: ['callback-429', 'callback-429-date'], aliases: ['A-CB-009'] },
  'BS-RETRY-008': { stages: ['callback-429'], aliases: ['A-CB-010'] },
  'BS-RETRY-009': { stages: ['callback-5xx'] },
  'BS-RETRY-010': { stages: ['callback-429-date'] },
  'BS-REJECT-001': { stages: ['callback-400'], aliases: ['A-CB-011'] },
  'BS-REJECT-002': { stages: ['callback-401'] },
  'BS-REJECT-003': { stages: ['callback-413'] },
  'BS-ACK-001': { stages: ['callbacks'] },
  'BS-ACK-003': { stages: ['callback-returning'] },
  // Two jobs of one lead (a contact who comes back): their events are other documents, each under an id of its own.
  'BS-ID-001': { stages: ['callbacks', 'callback-returning'] },
};

/** The sender checks as they judge an Interface A provider's callbacks: tagged `callback`, needing the listener. */
const CALLBACK_CHECKS: readonly SenderCheck[] = SENDER_CATALOGUE.filter(
  (check) => ON_CALLBACKS[check.id] !== undefined,
).map((check) => {
  const use = ON_CALLBACKS[check.id] as (typeof ON_CALLBACKS)[string];
  return {
    ...check,
    tags: [...check.tags, 'callback'],
    needs: 'callback',
    callbackStages: use.stages,
    ...(use.aliases ? { aliases: use.aliases } : {}),
  };
});

function receiverChecksOf(iface: InterfaceId): Check[] {
  const own = THEMES.flatMap((theme) => theme[iface] ?? []) as Check[];
  return iface === 'A' ? [...own, ...CALLBACK_CHECKS] : own;
}

/** The receiver checks: Interface B (the platform's events endpoint) first, then Interface A (the provider's contact-jobs endpoint). */
export const CATALOGUE: readonly Check[] = [...receiverChecksOf('B'), ...receiverChecksOf('A')];

/** The checks of one role, of one interface or both. */
export function checksFor(role: CheckRole, iface?: InterfaceId): readonly Check[] {
  if (role === 'sender')
    return iface ? SENDER_CATALOGUE.filter((check) => check.interface === iface) : SENDER_CATALOGUE;
  return iface ? receiverChecksOf(iface) : CATALOGUE;
}

/** The version line of every report: the tool, the spec, and a digest of every check's row (both roles). */
export function runVersion(): import('./types.js').RunVersion {
  const info = versionInfo();
  const rows = JSON.stringify([...describeCatalogue('receiver'), ...describeCatalogue('sender')]);
  return {
    tool: info.version,
    spec: info.spec,
    catalogue: createHash('sha256').update(rows).digest('hex').slice(0, 16),
  };
}

/** The fields of a check's result that come from its catalogue row. */
export function resultBase(check: CheckMeta) {
  return {
    id: check.id,
    ...(check.aliases?.length ? { aliases: check.aliases } : {}),
    interface: check.interface,
    role: check.role,
    title: check.title,
    sections: check.sections,
    section: check.sections[0] ?? '',
    level: check.level,
    tags: check.tags,
    optional: check.optional === true,
  };
}

/** A check's catalogue row as plain data, without its judgement. */
export function describeCheck(check: Check): CheckMeta & { callbackStages?: readonly string[] } {
  const { section: _main, ...row } = resultBase(check);
  return {
    ...row,
    clauses: check.clauses,
    ...(check.exclusive ? { exclusive: true } : {}),
    ...(check.needs ? { needs: check.needs } : {}),
    ...(check.role === 'sender' ? { scenarios: check.scenarios } : {}),
    ...(check.role === 'sender' && check.callbackStages ? { callbackStages: check.callbackStages } : {}),
  };
}

/** The catalogue as plain data (what `cai conformance list --json` prints). */
export function describeCatalogue(role: CheckRole = 'receiver', iface?: InterfaceId) {
  return checksFor(role, iface).map(describeCheck);
}

export interface Selection {
  /** Ids, tags or `*` patterns; when given, nothing else runs. */
  only: readonly string[];
  skip: readonly string[];
  /** Optional checks to run too (ids, tags or `all`). */
  include: readonly string[];
}

export interface PlannedCheck<C extends Check = Check> {
  check: C;
  /** Set when the check will not run, with the reason shown in the report. */
  skipReason?: string;
}

export interface Plan<C extends Check = Check> {
  planned: PlannedCheck<C>[];
  /** Selectors matching no check of this run (a usage error for the command). */
  unknownSelectors: string[];
}

/** Splits repeatable, comma-separated selector lists. */
export function splitSelectors(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** The id and its aliases, lower-case: what a selector or a waiver may name. */
export function namesOf(check: Pick<CheckMeta, 'id' | 'aliases'>): string[] {
  return [check.id, ...(check.aliases ?? [])].map((name) => name.toLowerCase());
}

export function matchesSelector(check: CheckMeta, selector: string): boolean {
  const wanted = selector.toLowerCase();
  if (wanted === 'all') return true;
  if (wanted.includes('*')) {
    const pattern = new RegExp(`^${wanted.split('*').map(escapeRegExp).join('.*')}$`);
    return namesOf(check).some((name) => pattern.test(name)) || check.tags.some((tag) => pattern.test(tag));
  }
  return namesOf(check).includes(wanted) || check.tags.includes(wanted) || check.level === wanted;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Decides what runs. Not selected by --only: left out of the run. --skip: reported as skipped.
 * Optional checks run when --include (or --only) names them; otherwise they are reported as skipped with the
 * flag that would run them, so a reader knows they exist.
 */
export function planChecks<C extends Check>(checks: readonly C[], selection: Selection): Plan<C> {
  const all = [...selection.only, ...selection.skip, ...selection.include];
  const unknownSelectors = all.filter(
    (selector) => selector.toLowerCase() !== 'all' && !checks.some((check) => matchesSelector(check, selector)),
  );
  const planned: PlannedCheck<C>[] = [];
  for (const check of checks) {
    const named = (list: readonly string[]) => list.some((selector) => matchesSelector(check, selector));
    if (selection.only.length > 0 && !named(selection.only)) continue;
    if (named(selection.skip)) {
      planned.push({ check, skipReason: `skipped with ${optionName('skip')}` });
      continue;
    }
    // --only names an optional check by its id or one of its tags: that is asking for it.
    const explicitlyNamed = selection.only.some(
      (selector) => namesOf(check).includes(selector.toLowerCase()) || check.tags.includes(selector.toLowerCase()),
    );
    if (check.optional && !named(selection.include) && !explicitlyNamed) {
      planned.push({
        check,
        skipReason: `optional: run it with ${optionName('include')} ${check.tags[0] ?? check.id}`,
      });
      continue;
    }
    planned.push({ check });
  }
  return { planned, unknownSelectors };
}

/** The plan of a run: the checks of its role and interface, as selected. */
export function planRun(role: CheckRole, iface: InterfaceId, selection: Selection): Plan {
  return planChecks(checksFor(role, iface), selection);
}

/** The scenarios a sender run must play for the planned checks, in catalogue order: only those run. */
export function scenariosToRun(plan: Plan): SenderScenarioId[] {
  const wanted = new Set(
    plan.planned
      .filter((item) => item.skipReason === undefined && item.check.role === 'sender')
      .flatMap((item) => (item.check as SenderCheck).scenarios),
  );
  return SCENARIO_IDS.filter((id) => wanted.has(id));
}
