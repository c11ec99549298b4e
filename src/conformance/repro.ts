/**
 * Reproductions: for each failing check, the body saved to a file and a command line that sends the same
 * request again later. The signature is always computed when the command runs (never a stale one): a plain
 * `cai send-event` / `cai send-job` where the check sent a normal signed request, otherwise a `curl` line whose
 * deliberately wrong part (header, timestamp, signature) is rebuilt from `cai sign` at run time.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InterfaceId } from '../spec/constants.js';
import { HeaderNames, Headers } from '../spec/constants.js';
import { curlCommand, shellQuote as quote, type CurlRequest } from '../http/curl.js';
import type { CheckResult, Exchange, Reproduction, RequestRecipe } from './types.js';

export interface ReproContext {
  dir: string;
  interface: InterfaceId;
  /** The URL the user gave: events URL (B) or provider endpoint (A). */
  target: string;
  /** Where requests were posted (A: `{endpoint}/contact-jobs`). */
  postUrl: string;
  identity: string;
  /** How the signing secret is passed, e.g. `--secret-env CAI_SECRET` (never the value). */
  secretFlag: string;
  clockOffsetSeconds: number;
}

/** `--secret-env NAME` / `--secret-file PATH` as given; an inline or generated secret becomes `--secret-env CAI_SECRET`. */
export function secretFlagFor(label: string | undefined, prefix = 'secret', defaultEnv = 'CAI_SECRET'): string {
  if (label === undefined) return `--${prefix}-env ${defaultEnv}`;
  const flag = new RegExp(`^--${prefix}-(env|file) (.+)$`).exec(label);
  if (flag) return `--${prefix}-${flag[1]} ${quote(flag[2] as string)}`;
  if (/^[A-Z_][A-Z0-9_]*$/.test(label)) return `--${prefix}-env ${label}`;
  return `--${prefix}-env ${defaultEnv}`;
}

export function createReproducer(context: ReproContext): (result: CheckResult, evidence: Exchange) => Promise<Reproduction> {
  let prepared: Promise<unknown> | undefined;
  return async (result, evidence) => {
    prepared ??= mkdir(context.dir, { recursive: true });
    await prepared;
    const bodyFile = join(context.dir, `${result.id}.body`);
    await writeFile(bodyFile, evidence.request.body);
    const recipe = evidence.request.recipe;
    let otherFile: string | undefined;
    if (recipe.signature?.kind === 'other-body') {
      otherFile = join(context.dir, `${result.id}.signed-body`);
      await writeFile(otherFile, recipe.signature.body);
    }
    return { command: commandFor(context, recipe, evidence, bodyFile, otherFile), bodyFile };
  };
}

function isPlain(recipe: RequestRecipe): boolean {
  const signature = recipe.signature?.kind ?? 'valid';
  const timestamp = recipe.timestamp ?? { kind: 'now' as const };
  const identity = recipe.identity?.kind ?? 'default';
  return (
    signature === 'valid' &&
    timestamp.kind === 'now' &&
    !timestamp.shiftSeconds &&
    !timestamp.prefix &&
    identity === 'default' &&
    !recipe.sourceAddress &&
    recipe.contentType === undefined &&
    !recipe.chunked
  );
}

function commandFor(context: ReproContext, recipe: RequestRecipe, evidence: Exchange, bodyFile: string, otherFile: string | undefined): string {
  if (isPlain(recipe)) {
    // The sending commands sign at send time; --no-validate keeps deliberately odd bodies, --no-retry shows the first answer.
    return context.interface === 'B'
      ? `cai send-event --to ${quote(context.target)} --provider ${quote(context.identity)} ${context.secretFlag} --body ${quote(bodyFile)} --no-validate --no-retry`
      : `cai send-job --to ${quote(context.target)} --source ${quote(context.identity)} ${context.secretFlag} --body ${quote(bodyFile)} --no-validate --no-retry`;
  }
  const lines: string[] = [];
  const timestamp = recipe.timestamp ?? { kind: 'now' as const };
  const offset = context.clockOffsetSeconds;
  const shift = (timestamp.kind === 'now' ? (timestamp.shiftSeconds ?? 0) : 0) + offset;
  lines.push(shift === 0 ? 'ts=$(date +%s)' : `ts=$(( $(date +%s) ${shift < 0 ? '-' : '+'} ${Math.abs(shift)} ))`);
  if (timestamp.kind === 'milliseconds') lines.push('ts_sent=$(( ts * 1000 + 123 ))');
  // Inside double quotes: `$ts` expands; a literal (an ISO date in the malformed-timestamp checks) has no `$` or `"`.
  const prefix = timestamp.kind === 'now' ? (timestamp.prefix ?? '').replace(/["$`\\]/g, '') : '';
  const sentTimestamp = timestamp.kind === 'literal' ? timestamp.value.replace(/["$`\\]/g, '') : timestamp.kind === 'milliseconds' ? '$ts_sent' : `${prefix}$ts`;
  const signTimestamp = timestamp.kind === 'milliseconds' ? '$ts_sent' : '$ts';
  const signWith = (file: string, ts: string) =>
    `$(cai sign ${context.secretFlag} --body ${quote(file)} --timestamp ${ts} | sed -n 's/^${HeaderNames.signature}: //p')`;

  const signature = recipe.signature ?? { kind: 'valid' as const };
  let signatureHeader: string | undefined;
  switch (signature.kind) {
    case 'valid':
      signatureHeader =
        timestamp.kind === 'literal'
          ? quote(`${HeaderNames.signature}: ${evidence.request.headers[Headers.signature] ?? ''}`)
          : `"${HeaderNames.signature}: ${signWith(bodyFile, prefix === '' ? signTimestamp : `${prefix}${signTimestamp}`)}"`;
      break;
    case 'bare-timestamp':
      signatureHeader = `"${HeaderNames.signature}: ${signWith(bodyFile, signTimestamp)}"`;
      break;
    case 'other-body':
      signatureHeader = `"${HeaderNames.signature}: ${signWith(otherFile ?? bodyFile, signTimestamp)}"`;
      break;
    case 'other-timestamp':
      signatureHeader = `"${HeaderNames.signature}: ${signWith(bodyFile, '$((ts - 7))')}"`;
      break;
    case 'truncated':
      signatureHeader = `"${HeaderNames.signature}: $(cai sign ${context.secretFlag} --body ${quote(bodyFile)} --timestamp ${signTimestamp} | sed -n 's/^${HeaderNames.signature}: //p' | cut -c1-70)"`;
      break;
    case 'wrong-secret':
    case 'literal':
      // Deliberately wrong whatever the time: the value used in the run is shown as is.
      signatureHeader = quote(`${HeaderNames.signature}: ${evidence.request.headers[Headers.signature] ?? ''}`);
      break;
    case 'none':
      signatureHeader = undefined;
      break;
  }
  const identityName = context.interface === 'B' ? HeaderNames.provider : HeaderNames.source;
  const identity = recipe.identity ?? { kind: 'default' as const };
  const identityValue = identity.kind === 'default' ? context.identity : identity.kind === 'value' ? identity.value : undefined;
  const headers: CurlRequest['headers'] = [
    ['Content-Type', recipe.contentType ?? 'application/json'],
    ...(recipe.chunked ? [['Transfer-Encoding', 'chunked'] as const] : []),
    ...(identityValue !== undefined ? [[identityName, identityValue] as const] : []),
    ...(timestamp.kind !== 'none' ? [{ shell: `"${HeaderNames.timestamp}: ${sentTimestamp}"` }] : []),
    ...(signatureHeader !== undefined ? [{ shell: signatureHeader }] : []),
  ];
  const options = recipe.sourceAddress ? [['--interface', recipe.sourceAddress] as const] : [];
  const curl = curlCommand({ url: context.postUrl, headers, options, data: { file: bodyFile } }, 'one-line');
  return [...lines, curl].join('; ');
}
