/**
 * `--dry-run`: the exact request that would be sent, signed now (§5.3, §5.5) unless a captured signature is kept,
 * as a raw HTTP request (its curl command is src/output/curl.ts's). Nothing is sent.
 */
import { sign } from '../signing/sign.js';
import { HeaderNames } from '../spec/constants.js';
import { usageError } from '../errors.js';
import { headerProblem } from '../spec/header-value.js';

export interface DryRunRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The file the body came from, for a curl command that sends the file. */
  bodyFile?: string;
}

/** The request with X-CAI-Timestamp and X-CAI-Signature for `nowMs`; without a secret, the headers as they are. */
export function signForDryRun(request: DryRunRequest, secret: string | undefined, nowMs: number): DryRunRequest {
  // The capture is what `cai replay` sends later: no header in it may hold what HTTP cannot carry.
  assertSendableHeaders(Object.entries(request.headers), 'the request');
  if (secret === undefined) return { ...request, headers: { ...request.headers } };
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    ...request,
    headers: {
      ...request.headers,
      [HeaderNames.timestamp]: timestamp,
      [HeaderNames.signature]: sign(secret, timestamp, request.body),
    },
  };
}

/** The request line, the headers (Host and Content-Length as HTTP/1.1 adds them) and the body bytes. */
export function rawHttpRequest(request: DryRunRequest): Buffer {
  const url = new URL(request.url);
  const head = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${request.body.length}`,
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), request.body]);
}

/**
 * Refuses headers HTTP cannot carry as given (RFC 9110 §5.1, §5.5): a CR or LF in a value would add a header to a
 * capture or a curl line. The flags are checked before any of this runs (src/commands/common/header-options.ts); this
 * is for what comes from elsewhere (a capture's header lines) and a guard for the builders. `where` names the source.
 */
export function assertSendableHeaders(headers: Iterable<readonly [string, string]>, where: string): void {
  const bad = headerProblem(headers);
  if (bad)
    throw usageError(
      'bad_header_value',
      `${where}: the ${JSON.stringify(bad.name)} header ${bad.problem}`,
      'a header is one line of printable ASCII: correct it at its source',
    );
}
