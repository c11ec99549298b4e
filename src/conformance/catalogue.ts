/**
 * The check catalogue (both interfaces) and the selection rules of --only / --skip / --include.
 * The checks are defined by theme in ./checks/; this is the one place that orders them, and the order is what
 * `cai conformance list` and every report show.
 */
import type { InterfaceId } from '../spec/constants.js';
import { acceptance } from './checks/acceptance.js';
import { identity, signatureBinding, signatures } from './checks/authentication.js';
import { callbacks } from './checks/callbacks.js';
import { clock } from './checks/clock.js';
import { duplicates } from './checks/duplicates.js';
import { formats } from './checks/formats.js';
import { framing } from './checks/framing.js';
import { rate } from './checks/rate.js';
import { rawBody } from './checks/raw-body.js';
import type { ByInterface } from './checks/receivers.js';
import { schema } from './checks/schema.js';
import { size } from './checks/size.js';
import { timestampWindow } from './checks/window.js';
import type { CheckDefinition } from './define.js';
import type { CheckMeta, CheckResult } from './types.js';

/** The themes in catalogue order; each contributes its checks of the interface, if it has any. */
const THEMES: readonly ByInterface[] = [acceptance, duplicates, rawBody, framing, signatures, timestampWindow, identity, signatureBinding, schema, formats, size, rate, clock, callbacks];

function checksOfInterface(iface: InterfaceId): CheckDefinition[] {
  return THEMES.flatMap((theme) => theme[iface] ?? []);
}

/** Interface B (the platform's events endpoint) first, then Interface A (the provider's contact-jobs endpoint). */
export const CATALOGUE: readonly CheckDefinition[] = [...checksOfInterface('B'), ...checksOfInterface('A')];

export function checksFor(iface: InterfaceId | undefined): readonly CheckDefinition[] {
  return iface ? CATALOGUE.filter((check) => check.interface === iface) : CATALOGUE;
}

/** A check's catalogue row as plain data, without its judgement. */
export function describeCheck(check: CheckMeta): CheckMeta {
  return {
    id: check.id,
    interface: check.interface,
    title: check.title,
    sections: check.sections,
    level: check.level,
    tags: check.tags,
    optional: check.optional === true,
    ...(check.exclusive ? { exclusive: true } : {}),
    ...(check.needs ? { needs: check.needs } : {}),
  };
}

/** The catalogue as plain data (what `cai conformance list --json` prints). */
export function describeCatalogue(iface?: InterfaceId): CheckMeta[] {
  return checksFor(iface).map(describeCheck);
}

/** The fields of a check's result that come from its catalogue row. */
export function resultBase(check: CheckMeta): Pick<CheckResult, 'id' | 'interface' | 'title' | 'sections' | 'section' | 'level' | 'tags' | 'optional'> {
  return {
    id: check.id,
    interface: check.interface,
    title: check.title,
    sections: check.sections,
    section: check.sections[0] ?? '',
    level: check.level,
    tags: check.tags,
    optional: check.optional === true,
  };
}

export interface Selection {
  /** Ids, tags or `*` patterns; when given, nothing else runs. */
  only: readonly string[];
  skip: readonly string[];
  /** Optional checks to run too (ids, tags or `all`). */
  include: readonly string[];
}

export interface PlannedCheck<Check extends CheckMeta = CheckDefinition> {
  check: Check;
  /** Set when the check will not run, with the reason shown in the report. */
  skipReason?: string;
}

export interface Plan<Check extends CheckMeta = CheckDefinition> {
  planned: PlannedCheck<Check>[];
  /** Selectors matching no check of this interface (a usage error for the command). */
  unknownSelectors: string[];
}

/** Splits repeatable, comma-separated selector lists. */
export function splitSelectors(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
}

export function matchesSelector(check: CheckMeta, selector: string): boolean {
  const wanted = selector.toLowerCase();
  if (wanted === 'all') return true;
  if (wanted.includes('*')) {
    const pattern = new RegExp(`^${wanted.split('*').map(escapeRegExp).join('.*')}$`);
    return pattern.test(check.id.toLowerCase()) || check.tags.some((tag) => pattern.test(tag));
  }
  return check.id.toLowerCase() === wanted || check.tags.includes(wanted) || check.level === wanted;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Decides what runs. Not selected by --only: left out of the run. --skip: reported as skipped.
 * Optional checks run when --include (or --only) names them; otherwise they are reported as skipped with the
 * flag that would run them, so a reader knows they exist.
 */
export function planChecks<Check extends CheckMeta = CheckDefinition>(checks: readonly Check[], selection: Selection): Plan<Check> {
  const all = [...selection.only, ...selection.skip, ...selection.include];
  const unknownSelectors = all.filter((selector) => selector.toLowerCase() !== 'all' && !checks.some((check) => matchesSelector(check, selector)));
  const planned: PlannedCheck<Check>[] = [];
  for (const check of checks) {
    const named = (list: readonly string[]) => list.some((selector) => matchesSelector(check, selector));
    if (selection.only.length > 0 && !named(selection.only)) continue;
    if (named(selection.skip)) {
      planned.push({ check, skipReason: 'skipped with --skip' });
      continue;
    }
    // --only names an optional check by its id or one of its tags: that is asking for it.
    const explicitlyNamed = selection.only.some((selector) => selector.toLowerCase() === check.id.toLowerCase() || check.tags.includes(selector.toLowerCase()));
    if (check.optional && !named(selection.include) && !explicitlyNamed) {
      planned.push({ check, skipReason: `optional: run it with --include ${check.tags[0] ?? check.id}` });
      continue;
    }
    planned.push({ check });
  }
  return { planned, unknownSelectors };
}
