/**
 * A kept request as commands to send it again, for the inspector's copy buttons: a `cai replay` of its capture
 * (fetched from the inspector), and a `curl` line that signs it afresh with `cai sign` when it runs. The secret is
 * named by the flag that gives it (`--secret-env NAME`, `--secret-file PATH`), never written out.
 */
import { isUtf8 } from 'node:buffer';
import { curlCommand, shellQuote } from '../../output/curl.js';
import { HeaderNames, Headers } from '../../spec/constants.js';
import { bodyCut, headerOf, type InspectedRequest } from '../../inspector/capture.js';
import type { CopyCommands, CopyCommandsOf } from '../../inspector/detail.js';
import { secretFlagFor } from '../common/secret-options.js';

export interface CommandTargets {
  /** Where the requests are POSTed: the events URL, or the provider endpoint with /contact-jobs. */
  postUrl: string;
  /** The inspector's URL (the capture and the body are fetched from it). */
  inspectorUrl: string;
  /** How `cai` gets the secret of each space: `--secret-env CAI_SECRET` (see secretFlagOf). */
  secretFlags: { live: string; test?: string };
  /** The identity header of the interface: X-CAI-Provider (B) or X-CAI-Source (A). */
  identity: 'provider' | 'source';
  /** Said with the commands (e.g. the mock's secret was given inline: export it first). */
  notes?: readonly string[];
}

/** Bodies up to this size go into the curl line itself; longer ones are fetched into a file first. */
const INLINE_BODY_BYTES = 8 * 1024;

/** The flag that gives a `cai` command the secret a mock was started with (secretFlagFor). */
export const secretFlagOf = (label: string | undefined): string => secretFlagFor(label);

/** The inspector's copy commands for a mock: `targets` but the inspector's URL, which it gives when it asks. */
export function copyCommandsFor(targets: Omit<CommandTargets, 'inspectorUrl'>): CopyCommandsOf {
  return (request, inspectorUrl) => copyCommands(request, { ...targets, inspectorUrl });
}

export function copyCommands(request: InspectedRequest, targets: CommandTargets): CopyCommands {
  if (request.body === undefined)
    return {
      notes: ['the body was not read (the headers alone decided the answer): there is no request to send again'],
    };
  if (bodyCut(request))
    return {
      notes: [`only the first ${request.body.length} bytes of the body were kept: it cannot be sent again from here`],
    };
  const secretFlag =
    (request.entry.space === 'test' ? targets.secretFlags.test : undefined) ?? targets.secretFlags.live;
  const base = targets.inspectorUrl.replace(/\/$/, '');
  const captureFile = `cai-request-${request.id}.http`;
  const replay = `curl -sS -o ${captureFile} ${shellQuote(`${base}/api/requests/${request.id}/request.http`)} && cai replay --request ${captureFile} --to ${shellQuote(targets.postUrl)} ${secretFlag}`;
  return { replay, curl: resignedCurl(request, targets, secretFlag, base), notes: [...(targets.notes ?? [])] };
}

/** `curl` with the same body and identity, X-CAI-Timestamp and X-CAI-Signature computed when it runs (§5). */
function resignedCurl(request: InspectedRequest, targets: CommandTargets, secretFlag: string, base: string): string {
  const body = request.body as Buffer;
  const identityName = targets.identity === 'provider' ? HeaderNames.provider : HeaderNames.source;
  const identity = headerOf(request, targets.identity === 'provider' ? Headers.provider : Headers.source);
  const inline = body.length <= INLINE_BODY_BYTES && isUtf8(body) && !body.includes(0);
  const bodyFile = `cai-body-${request.id}`;
  const sign = inline
    ? `printf %s "$body" | cai sign ${secretFlag} --timestamp "$ts"`
    : `cai sign ${secretFlag} --body ${bodyFile} --timestamp "$ts"`;
  const headers = [
    ['Content-Type', headerOf(request, Headers.contentType) ?? 'application/json'] as const,
    ...(identity !== undefined ? [[identityName, identity] as const] : []),
    { shell: `"${HeaderNames.timestamp}: $ts"` },
    { shell: `"${HeaderNames.signature}: $(${sign} | sed -n 's/^${HeaderNames.signature}: //p')"` },
  ];
  const curl = curlCommand({ url: targets.postUrl, headers, data: { file: inline ? '-' : bodyFile } }, 'one-line');
  if (inline) return `body=${shellQuote(body.toString('utf8'))}; ts=$(date +%s); printf %s "$body" | ${curl}`;
  return `curl -sS -o ${bodyFile} ${shellQuote(`${base}/api/requests/${request.id}/body`)} && ts=$(date +%s) && ${curl}`;
}
