/**
 * A receiver's failure judged on one answer's status, reproduced by sending its one request again from the shell
 * (./repro.ts chooses this way when it shows the failure): whether sending it again can show what the check saw, and
 * the script's lines that build it afresh (a fresh timestamp, signed by `cai sign` or, for what `cai sign` refuses, a
 * raw HMAC of §5.2), send it with curl and judge the answer's status as the check did.
 */
import { curlCommand, shellQuote as quote, type CurlRequest } from '../../output/curl.js';
import { HeaderNames, Headers } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { StatusSet } from '../../spec/model/answers.js';
import type { Exchange } from '../../conformance/evidence.js';
import { rebuiltBySign } from '../../conformance/probe/recipe.js';
import type { ReproSetup } from '../../conformance/runner.js';
import type { CheckResult } from '../../conformance/types.js';

/** A receiver run's probes (ReproSetup) in the CLI's words: the signing secret's source as a flag. */
export type ShellProbes = Omit<NonNullable<ReproSetup['probes']>, 'secretLabel'> & {
  /** How the signing secret is passed, e.g. `--secret-env CAI_SECRET` (never the value). */
  secretFlag: string;
};
/**
 * Whether the one request, sent again as it was, shows what the check saw. Not when the shell cannot build it
 * afresh (recipe.ts), nor when it was signed with a secret that is not the run's (a stale signature would be
 * refused for its timestamp by any receiver), nor when no answer came (the check runs again, as it judges that), nor
 * when the receiver accepted it while the rule wants it accepted: the same document again is a repeat (§6.1, §2.2),
 * answered as one, not as the first delivery was.
 */
export function sentAgainShows(exchange: Exchange, rule: StatusSet): boolean {
  const { recipe } = exchange.request;
  if (!rebuiltBySign(recipe) || recipe.signature?.kind === 'wrong-secret' || exchange.status === undefined)
    return false;
  const accepted = exchange.status >= 200 && exchange.status < 300;
  const acceptable = rule.any2xx === true || (rule.statuses ?? []).some((status) => status >= 200 && status < 300);
  return !(accepted && acceptable);
}

/**
 * The statuses a check judged its one answer by, when it judged the status alone: the model's set at the check's
 * level (src/spec/model), which the check's expected text then names as it is.
 */
export function statusRuleOf(exchange: Exchange, result: CheckResult): StatusSet | undefined {
  const expected = exchange.expected;
  if (expected === undefined) return undefined;
  const set = result.level === 'must' ? expected.must : expected.should;
  const outcome =
    expected.terms.find((term) => term.id === 'outcome' && term.level === result.level) ??
    expected.terms.find((term) => term.id === 'outcome');
  return outcome !== undefined && result.expected === outcome.expected ? set : undefined;
}

/** The shell patterns of the statuses that pass: `401|400`, `2[0-9][0-9]`, and 429 apart (the receiver asks to wait). */
function statusCase(rule: StatusSet): string {
  const passing = [
    ...(rule.statuses ?? []).map(String),
    ...(rule.any2xx ? ['2[0-9][0-9]'] : []),
    ...(rule.any4xx ? ['4[0-9][0-9]'] : []),
  ];
  const wait = (rule.statuses ?? []).includes(429)
    ? ''
    : ` 429) echo 'the receiver answered 429: run this again after its Retry-After' >&2; exit 2 ;;`;
  return `case "$status" in${wait} ${passing.join('|')}) exit 0 ;; *) exit 1 ;; esac`;
}

/**
 * The HMAC of §5.2 in the shell, for a timestamp `cai sign` refuses (milliseconds, a leading zero it would drop):
 * node's crypto over the timestamp as sent, a dot and the body file, with the secret read as cai reads it (the
 * variable, or the file less one trailing newline). Node is the one that runs cai.
 */
const RAW_HMAC = [
  'const { createHmac } = require("node:crypto"), { readFileSync } = require("node:fs");',
  'const [ts, body, kind, ref] = process.argv.slice(1);',
  'const secret = kind === "env" ? process.env[ref] : readFileSync(ref, "utf8").replace(/\\r?\\n$/, "");',
  'if (!secret) { console.error("no secret in " + ref); process.exit(2); }',
  'process.stdout.write("sha256=" + createHmac("sha256", secret).update(ts + ".").update(readFileSync(body)).digest("hex"));',
].join(' ');

/**
 * The answer as the script prints it, from the target and so untrusted: read as UTF-8 (a byte that is not becomes
 * U+FFFD), its line feeds and tabs kept, and escaped visibly as cai's own output escapes it (src/output/safe-text.ts):
 * C0 controls (a lone CR too) as `\x1b`, DEL, the C1 controls (U+009B is CSI to some terminals), the line and paragraph
 * separators and the bidi controls as `\u009b`. A line GitHub Actions would run as a workflow command (`::` first
 * after blanks; `##[` anywhere, the old syntax) is shown with the colon or hash that starts it escaped (`\x3a:error`,
 * `#\x23[`): a CI log that runs the script reads the target's text, never its commands. `tr` or `sed` cannot see a
 * character of several bytes portably (macOS and Linux differ); node, which runs cai, can.
 */
export const ANSWER_FILTER = [
  'const text = require("node:fs").readFileSync(0, "utf8");',
  'const hex = (c, width) => c.charCodeAt(0).toString(16).padStart(width, "0");',
  'const escaped = text.replace(/[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]|\\r(?!\\n)/g,',
  '  (c) => (c === "\\r" ? "\\\\r" : c < " " ? "\\\\x" + hex(c, 2) : "\\\\u" + hex(c, 4)));',
  'process.stdout.write(escaped.split("\\n").map((line) => line.replace(/^(\\s*):/, "$1\\\\x3a").replace(/##\\[/g, "#\\\\x23[")).join("\\n"));',
].join(' ');

/** `sig=…` for a fresh signature over `file` with the timestamp `ts` (a shell word); `cut` keeps only its start. */
function signLines(cai: string, secretFlag: string, file: string, ts: string, cut?: number): string[] {
  const keep = cut !== undefined ? [`sig=$(printf '%s' "$sig" | cut -c1-${cut})`] : [];
  if (/^\$(ts|\(\(ts - \d+\)\))$/.test(ts)) {
    // Plain unix seconds: `cai sign` signs them, as the user would.
    return [
      `sig=$(${cai} sign ${secretFlag} --body ${quote(file)} --timestamp ${ts}) || exit 2`,
      `sig=$(printf '%s\\n' "$sig" | sed -n 's/^${HeaderNames.signature}: //p')`,
      ...keep,
    ];
  }
  const source = /^--[a-z-]*secret-(env|file) (.+)$/.exec(secretFlag);
  const [kind, ref] = source ? [source[1] as string, source[2] as string] : ['env', 'CAI_SECRET'];
  return [
    `sig=$(${quote(process.execPath)} -e ${quote(RAW_HMAC)} "${ts}" ${quote(file)} ${kind} ${ref}) || exit 2`,
    ...keep,
  ];
}

/** The request of one exchange in the shell, signed afresh as its recipe says, then its answer judged by `rule`. */
export function judgedRequest(
  cai: string,
  context: ShellProbes,
  exchange: Exchange,
  files: { bodyFile: string; otherFile: string | undefined },
  rule: StatusSet,
): string[] {
  const { recipe } = exchange.request;
  const spec = interfaceSpec(context.interface);
  const lines: string[] = [];
  const timestamp = recipe.timestamp ?? { kind: 'now' as const };
  const shift = (timestamp.kind === 'now' ? (timestamp.shiftSeconds ?? 0) : 0) + context.clockOffsetSeconds;
  lines.push(shift === 0 ? 'ts=$(date +%s)' : `ts=$(( $(date +%s) ${shift < 0 ? '-' : '+'} ${Math.abs(shift)} ))`);
  if (timestamp.kind === 'milliseconds') lines.push('ts_sent=$(( ts * 1000 + 123 ))');
  // Inside double quotes: `$ts` expands; a literal (an ISO date in the malformed-timestamp checks) has no `$` or `"`.
  const prefix = timestamp.kind === 'now' ? (timestamp.prefix ?? '').replace(/["$`\\]/g, '') : '';
  const sentTimestamp =
    timestamp.kind === 'literal'
      ? timestamp.value.replace(/["$`\\]/g, '')
      : timestamp.kind === 'milliseconds'
        ? '$ts_sent'
        : `${prefix}$ts`;
  const signTimestamp = timestamp.kind === 'milliseconds' ? '$ts_sent' : '$ts';
  const sign = (file: string, ts: string, cut?: number) => signLines(cai, context.secretFlag, file, ts, cut);
  const sent = () => [`sig=${quote(exchange.request.headers[Headers.signature] ?? '')}`];
  const signature = recipe.signature ?? { kind: 'valid' as const };
  const signing: Record<typeof signature.kind, () => string[]> = {
    valid: () =>
      timestamp.kind === 'literal'
        ? sent()
        : sign(files.bodyFile, prefix === '' ? signTimestamp : `${prefix}${signTimestamp}`),
    'bare-timestamp': () => sign(files.bodyFile, signTimestamp),
    'other-body': () => sign(files.otherFile ?? files.bodyFile, signTimestamp),
    'other-timestamp': () => sign(files.bodyFile, '$((ts - 7))'),
    truncated: () => sign(files.bodyFile, signTimestamp, 70),
    // Deliberately wrong whatever the time (a signature no secret of the run makes): the value sent, as it was.
    'wrong-secret': sent,
    literal: sent,
    none: () => [],
    // Not rebuilt in the shell (recipe.ts: the check runs again): listed so that every kind has its lines.
    respelled: sent,
    rotation: sent,
    damaged: sent,
    'other-string': sent,
  };
  lines.push(...signing[signature.kind]());
  const identity = recipe.identity ?? { kind: 'default' as const };
  const identityValue =
    identity.kind === 'default' ? context.identity : identity.kind === 'value' ? identity.value : undefined;
  const headers: CurlRequest['headers'] = [
    ['Content-Type', recipe.contentType ?? 'application/json'],
    ...(recipe.chunked ? [['Transfer-Encoding', 'chunked'] as const] : []),
    ...(identityValue !== undefined ? [[spec.identityHeaderName, identityValue] as const] : []),
    ...(timestamp.kind !== 'none' ? [{ shell: `"${HeaderNames.timestamp}: ${sentTimestamp}"` }] : []),
    ...(signature.kind !== 'none' ? [{ shell: `"${HeaderNames.signature}: $sig"` }] : []),
  ];
  // The answer and, on its last line, its status (curl's -w): the answer is shown, the status judged.
  const options: [string, string][] = [
    ['-w', '\\n%{http_code}'],
    ...(recipe.sourceAddress ? [['--interface', recipe.sourceAddress] as [string, string]] : []),
  ];
  const curl = curlCommand({ url: context.postUrl, headers, options, data: { file: files.bodyFile } }, 'one-line');
  lines.push(
    `answer=$(${curl}) || { echo 'no answer from ${context.postUrl.replace(/'/g, '')}' >&2; exit 3; }`,
    `status=$(printf '%s\\n' "$answer" | tail -n 1)`,
    // The answer (its last line, the status, left out), escaped: it comes from the target.
    `printf '%s\\n' "$answer" | sed '$d' | ${quote(process.execPath)} -e ${quote(ANSWER_FILTER)}`,
    statusCase(rule),
  );
  return lines;
}
