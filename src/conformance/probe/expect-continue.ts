/**
 * One POST sent with `Expect: 100-continue` (RFC 9110 §10.1.1): the headers with Content-Length first, the body only
 * once the receiver answers `100 Continue` (or after a short wait, as the RFC lets a client do when none comes). A
 * receiver may answer before the body, a 413 from the declared length: the body is then never sent and the
 * connection is closed. undici, cai's HTTP client, does not send `Expect` over HTTP/1.1, so this one request goes out
 * through node:http (a connection of its own, never pooled).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { NETWORK_CAPS } from '../../bounds.js';
import type { HttpResponse } from '../../http/client.js';
import { flattenHeaders } from '../../http/headers.js';
import { MIN_TLS_VERSION, trustedAuthorities } from '../../http/tls.js';

interface ContinueRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  timeoutMs: number;
  signal: AbortSignal;
  /** How long to wait for `100 Continue` before sending the body anyway. */
  continueWaitMs: number;
  ca?: Buffer;
  insecure?: boolean;
}

interface ContinueAnswer extends HttpResponse {
  /** Whether the body went out (false when the answer came from the headers alone). */
  bodySent: boolean;
}

export function postExpectingContinue(request: ContinueRequest): Promise<ContinueAnswer> {
  const started = performance.now();
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const tls = secure
    ? {
        minVersion: MIN_TLS_VERSION,
        rejectUnauthorized: request.insecure !== true,
        ...(request.ca ? { ca: trustedAuthorities(request.ca) } : {}),
      }
    : {};
  return new Promise((resolve, reject) => {
    let bodySent = false;
    let settled = false;
    const outgoing = (secure ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: { ...request.headers, expect: '100-continue', 'content-length': String(request.body.length) },
      agent: false,
      signal: request.signal,
      timeout: request.timeoutMs,
      ...tls,
    });
    const sendBody = () => {
      if (bodySent || settled) return;
      bodySent = true;
      outgoing.end(request.body);
    };
    const fallback = setTimeout(sendBody, request.continueWaitMs);
    // The whole answer within the time-out, however slowly it comes (`timeout` below is only an idle one).
    const deadline = setTimeout(
      () => outgoing.destroy(new Error(`no complete answer within ${request.timeoutMs} ms`)),
      request.timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(fallback);
      clearTimeout(deadline);
      if (settled) return;
      settled = true;
      reject(error);
    };
    outgoing.on('continue', () => {
      clearTimeout(fallback);
      sendBody();
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${request.timeoutMs} ms`)));
    outgoing.on('error', fail);
    outgoing.on('response', (response: IncomingMessage) => {
      clearTimeout(fallback);
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      response.on('data', (chunk: Buffer) => {
        if (kept + chunk.length > NETWORK_CAPS.responseBodyBytes) {
          chunks.push(chunk.subarray(0, NETWORK_CAPS.responseBodyBytes - kept));
          kept = NETWORK_CAPS.responseBodyBytes;
          truncated = true;
          response.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      response.on('end', finish);
      response.on('error', fail);
      function finish() {
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        // A body never sent leaves the request unfinished: the connection goes (it was never pooled).
        if (!bodySent) outgoing.destroy();
        resolve({
          status: response.statusCode ?? 0,
          headers: flattenHeaders(response.headers),
          body: Buffer.concat(chunks),
          ...(truncated ? { bodyTruncated: true } : {}),
          latencyMs: performance.now() - started,
          bodySent,
        });
      }
    });
    outgoing.flushHeaders();
  });
}
