#!/usr/bin/env node
// Writes docs/conformance-checks.md from the check catalogue itself (the built dist/conformance/catalogue.js and
// dist/mock/faults.js), so the page cannot drift from the checks. Run `npm run docs` (it builds first);
// `node scripts/gen-check-catalogue.mjs --check` exits 1 when the committed page differs.
// test/docs/check-catalogue.test.ts renders the same text from src/ and compares it with the committed page.
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-page.mjs';

export const PAGE = 'docs/conformance-checks.md';
export const REGENERATE = 'npm run docs';

const INTERFACES = {
  B: { title: "Interface B: the platform's events endpoint (§4.2)", run: 'cai conformance run --interface B' },
  A: { title: "Interface A: the provider's contact-jobs endpoint (§4.1)", run: 'cai conformance run --interface A' },
};

// One line per area, for the reader; an area missing here is still listed, without its line.
const AREAS = {
  ACCEPT:
    'valid documents are accepted: any 2xx (§6.5); the 202 of §4.2 is a `should` on B, the 202 of §4.1 a `must` on A',
  DEDUP:
    'a repeated event_id is recorded once and answered as a duplicate (§2.13, §6.1); an event_id that differs in any way is new',
  SIG: 'the signature is checked over the raw bytes, whatever their JSON form (§5.2)',
  FRAME:
    'a valid body framed another way on the wire (chunked, a charset parameter) is accepted: `should`, the spec does not ask it',
  AUTH: 'wrong, missing, malformed or stale credentials are rejected (§5, §7)',
  SCHEMA:
    'invalid documents are rejected: with 400, never 5xx, on B (§7); with a 4xx on A, a `should` (§4.1 shows no error status)',
  FORMAT:
    'every shape the formats of §2.1 allow is accepted: fractional seconds, Z, negative offsets, 7 to 15 E.164 digits, BCP 47 subtags',
  SIZE: 'the 256 KB limit (§8)',
  RATE: 'the request cap: 429 with Retry-After (§7)',
  CLOCK: "the target's clock (§5.5)",
  CB: "the provider's events back to the job's callback_url (§3 step 5, §4.2): that they come, keep the lead_id, end the conversation and repeat the acknowledgment's facts",
};

const SENDER_INTERFACES = {
  B: {
    title: "Interface B sender: the provider's event sender (§4.2)",
    run: 'cai conformance run --interface B --role sender',
  },
  A: {
    title: "Interface A sender: the platform's job sender (§4.1)",
    run: 'cai conformance run --interface A --role sender',
  },
};

// The sender checks' areas, one line each.
const SENDER_AREAS = {
  HTTP: 'every attempt goes to the right address, as a POST',
  HDR: 'the identity header and the JSON content type on every attempt',
  SIG: 'every attempt signed over its raw bytes, with a timestamp in seconds inside the window when it arrives (§5)',
  DOC: 'every attempt carries a valid document within the limits (§2, §8)',
  RETRY: 'what is retried, when, and with what: 5xx, 429, a cut connection; the same event_id and document (§7, §8)',
  REJECT: 'what is not retried: 400, 401, 413 (§7)',
  ACK: 'an accepted delivery ends: a 2xx, the duplicate answer (§2.13, §6.5)',
  TIME: 'the time from the trigger to the first attempt (§8)',
};

const NEEDS = {
  callback: 'needs the callback listener (a callback secret)',
  'source-address': 'needs --source-address',
};

const cell = (text) => String(text).replaceAll('\\', '\\\\').replaceAll('|', '\\|').replaceAll('\n', ' ');

function levelCell(check) {
  const parts = [check.level];
  if (check.optional) parts.push(`optional: \`--include ${check.tags[0] ?? check.id}\``);
  if (check.needs) parts.push(NEEDS[check.needs] ?? `needs ${check.needs}`);
  if (check.exclusive) parts.push('runs alone, last');
  return parts.join('; ');
}

function counts(checks) {
  const must = checks.filter((check) => check.level === 'must');
  return {
    total: checks.length,
    must: must.length,
    optional: must.filter((check) => check.optional).length,
    should: checks.filter((check) => check.level === 'should').length,
  };
}

/** Where a receiver check is listed: a sender check judging an Interface A provider's callbacks is listed with A's. */
const sideOf = (check) => (check.callbackStages ? 'A' : check.interface);

/** Interface A's callbacks, judged by the event sender's checks: what they read and which former ids they answer to. */
function callbackPart(onCallbacks) {
  if (onCallbacks.length === 0) return [];
  return [
    '',
    `### A: the provider's events, judged by the event sender's checks (${onCallbacks.length})`,
    '',
    "The provider sends its events back to each job's callback_url, as an event sender (§3 step 5): the same checks",
    'as `--role sender --interface B` judge them, delivery by delivery, on the jobs whose first event cai answers',
    '202, 503, 429 or 400. They answer to the ids of the callback checks they replaced (`--only`, `--skip`, waivers).',
    '',
    '| id | former ids | level | sections | jobs | title |',
    '|---|---|---|---|---|---|',
    ...onCallbacks.map(
      (check) =>
        `| ${check.id} | ${cell((check.aliases ?? []).join(', '))} | ${cell(levelCell(check))} | ${cell(check.sections.join(' '))} | ${cell(check.callbackStages.join(', '))} | ${cell(check.title)} |`,
    ),
  ];
}

/** The sender checks' part of the page: counts, then each interface's checks by area, with their scenarios. */
function senderPart(senderChecks) {
  if (senderChecks.length === 0) return [];
  const lines = [
    '',
    '## Sender checks (`--role sender`)',
    '',
    'Every check `cai conformance run --role sender` makes (`cai conformance list --role sender`): cai is the receiver',
    "and judges what the sender under test sends. Ids are `BS-<AREA>-<nnn>` for a provider's event sender and",
    "`AS-<AREA>-<nnn>` for a platform's job sender, stable and never reused. The scenarios are those a check needs;",
    'a run plays only the scenarios its selected checks need. The trigger may send one document or many: each delivery',
    '(a document and its retries, by event_id) is judged on its own, on the answers it got. The HTTP, HDR, SIG and DOC',
    'checks judge every attempt of every scenario played, and need `accept` at least. How a run works:',
    '[conformance.md](conformance.md#judging-a-sender).',
    '',
    '| sender of | checks | must | should |',
    '|---|---|---|---|',
  ];
  for (const iface of ['B', 'A']) {
    const c = counts(senderChecks.filter((check) => check.interface === iface));
    lines.push(`| ${iface} | ${c.total} | ${c.must} | ${c.should} |`);
  }
  const all = counts(senderChecks);
  lines.push(`| both | ${all.total} | ${all.must} | ${all.should} |`);
  for (const iface of ['B', 'A']) {
    const own = senderChecks.filter((check) => check.interface === iface);
    if (own.length === 0) continue;
    lines.push(
      '',
      `## ${SENDER_INTERFACES[iface].title}`,
      '',
      `${own.length} checks, run by \`${SENDER_INTERFACES[iface].run}\`.`,
    );
    for (const area of [...new Set(own.map((check) => check.id.split('-')[1]))]) {
      const inArea = own.filter((check) => check.id.split('-')[1] === area);
      lines.push('', `### ${iface}S-${area} (${inArea.length})`, '');
      if (SENDER_AREAS[area]) lines.push(`${SENDER_AREAS[area][0].toUpperCase()}${SENDER_AREAS[area].slice(1)}.`, '');
      lines.push('| id | level | sections | scenarios | title |', '|---|---|---|---|---|');
      for (const check of inArea) {
        lines.push(
          `| ${check.id} | ${check.level} | ${cell(check.sections.join(' '))} | ${cell((check.scenarios ?? []).join(', '))} | ${cell(check.title)} |`,
        );
      }
    }
  }
  return lines;
}

/**
 * The page, from plain data: `checks` as describeCatalogue('receiver') returns them, `senderChecks` as
 * describeCatalogue('sender') does, the fault tables of src/mock/faults.ts.
 * @param {{ checks: Array<{id: string, interface: 'A'|'B', title: string, sections: string[], level: string, tags: string[], optional: boolean, needs?: string, exclusive?: boolean}>, senderChecks?: Array<{id: string, interface: 'A'|'B', title: string, sections: string[], level: string, scenarios?: string[]}>, platformFaults: Record<string, string>, providerFaults: Record<string, string> }} input
 */
export function renderCheckCatalogue({ checks, senderChecks = [], platformFaults, providerFaults }) {
  const lines = [
    '# Conformance check catalogue',
    '',
    `<!-- Generated by \`${REGENERATE}\` (scripts/gen-check-catalogue.mjs) from src/conformance/catalogue.ts and src/mock/faults.ts. Do not edit by hand. -->`,
    '',
    'Every check `cai conformance run` can make, as the catalogue defines it; `cai conformance list` prints the',
    'same (`--json` for tools). Ids are stable (`<interface>-<AREA>-<nnn>`) and never reused for another rule.',
    'How to run, select and waive checks: [conformance.md](conformance.md).',
    '',
    '| interface | checks | must | of which optional | should |',
    '|---|---|---|---|---|',
  ];
  for (const iface of ['B', 'A']) {
    const c = counts(checks.filter((check) => sideOf(check) === iface));
    lines.push(`| ${iface} | ${c.total} | ${c.must} | ${c.optional} | ${c.should} |`);
  }
  const all = counts(checks);
  lines.push(`| both | ${all.total} | ${all.must} | ${all.optional} | ${all.should} |`);
  lines.push(
    '',
    'A failed `must` check fails the run (exit 1); a failed `should` check is a warning, and fails the run only with',
    '`--fail-on warnings`. An optional check runs only when `--include` (or `--only`) names it; otherwise it is',
    'reported as skipped, with the flag that runs it. The first section listed is the main one.',
  );
  for (const iface of ['B', 'A']) {
    const listed = checks.filter((check) => sideOf(check) === iface);
    const own = listed.filter((check) => !check.callbackStages);
    if (listed.length === 0) continue;
    lines.push(
      '',
      `## ${INTERFACES[iface].title}`,
      '',
      `${listed.length} checks, run by \`${INTERFACES[iface].run}\`.`,
    );
    const areas = [...new Set(own.map((check) => check.id.split('-')[1]))];
    for (const area of areas) {
      const inArea = own.filter((check) => check.id.split('-')[1] === area);
      lines.push('', `### ${iface}-${area} (${inArea.length})`, '');
      if (AREAS[area]) lines.push(`${AREAS[area][0].toUpperCase()}${AREAS[area].slice(1)}.`, '');
      lines.push('| id | level | sections | tags | title |', '|---|---|---|---|---|');
      for (const check of inArea) {
        lines.push(
          `| ${check.id} | ${cell(levelCell(check))} | ${cell(check.sections.join(' '))} | ${cell(check.tags.join(', '))} | ${cell(check.title)} |`,
        );
      }
    }
    lines.push(...callbackPart(listed.filter((check) => check.callbackStages)));
  }
  lines.push(...senderPart(senderChecks));
  lines.push(
    '',
    '## Deliberate faults (`--break`)',
    '',
    'Each fault makes a reference receiver wrong in one realistic way. Give it to `cai mock platform` /',
    '`cai mock provider` (`--break FAULT`, repeatable), or to `cai conformance run --mock --break FAULT`, to see what',
    'a failure looks like. [conformance.md](conformance.md#the-suite-tests-itself) lists the checks each one fails.',
    '',
    '### `cai mock platform` (interface B)',
    '',
    '| fault | the defect |',
    '|---|---|',
    ...Object.entries(platformFaults).map(([name, text]) => `| \`${name}\` | ${cell(text)} |`),
    '',
    '### `cai mock provider` (interface A)',
    '',
    '| fault | the defect |',
    '|---|---|',
    ...Object.entries(providerFaults).map(([name, text]) => `| \`${name}\` | ${cell(text)} |`),
    '',
  );
  return lines.join('\n');
}

async function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const catalogue = await import(new URL('../dist/conformance/catalogue.js', import.meta.url).href);
  const faults = await import(new URL('../dist/mock/faults.js', import.meta.url).href);
  const text = renderCheckCatalogue({
    checks: catalogue.describeCatalogue('receiver'),
    senderChecks: catalogue.describeCatalogue('sender'),
    platformFaults: faults.PLATFORM_FAULTS,
    providerFaults: faults.PROVIDER_FAULTS,
  });
  writeOrCheck(root, PAGE, text, { regenerate: REGENERATE, source: 'the check catalogue' });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
