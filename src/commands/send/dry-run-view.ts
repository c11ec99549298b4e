/** `--dry-run` on the terminal: the request as raw HTTP (the default) or as a curl command, or one JSON document. */
import { rawHttpRequest, type DryRunRequest } from '../../send/dry-run.js';
import { curlCommand } from '../../output/curl.js';
import { SIGNATURE_WINDOW_SECONDS } from '../../spec/constants.js';
import type { Output } from '../../output/output.js';

export function renderDryRun(
  request: DryRunRequest,
  format: 'http' | 'curl',
  output: Output,
  signature: 'fresh' | 'kept' = 'fresh',
): number {
  output.info(
    signature === 'kept'
      ? 'dry run: nothing sent. A real send keeps the captured X-CAI-Timestamp and X-CAI-Signature, as shown.'
      : `dry run: nothing sent. The signature is valid for ${SIGNATURE_WINDOW_SECONDS} s from its timestamp (§5.5); a real send signs afresh.`,
  );
  if (output.json) {
    if (format === 'curl')
      output.note('--json prints the request as one JSON document; --format curl applies without --json');
    output.printJson({
      dryRun: true,
      method: 'POST',
      url: request.url,
      headers: request.headers,
      body: request.body.toString('utf8'),
      bodyBytes: request.body.length,
    });
    return 0;
  }
  if (format === 'curl') {
    output.result(curlForDryRun(request));
    return 0;
  }
  output.resultExact(rawHttpRequest(request));
  // Redirected to a file, the capture is exactly the request (`verify --request` and `replay` read it back whole);
  // on a terminal, a newline after a body without one keeps the prompt off the body's last line.
  const { body } = request;
  if (output.stdoutIsTTY && (body.length === 0 || body[body.length - 1] !== 0x0a)) output.resultRaw('\n');
  return 0;
}

/** The `--dry-run --format curl` of a sending command: the body's file when it came from one, else the body inline. */
export function curlForDryRun(request: DryRunRequest): string {
  const data = request.bodyFile !== undefined ? { file: request.bodyFile } : { text: request.body.toString('utf8') };
  return curlCommand({ url: request.url, headers: Object.entries(request.headers), data });
}
