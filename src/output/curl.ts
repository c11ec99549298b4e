/**
 * The one curl command line of cai (its quoting is src/shell.ts's): `cai sign --format curl`, the `--dry-run --format
 * curl` of the sending commands (src/commands/send/dry-run-view.ts), and the conformance reproductions. Output for
 * the user to run, so it lives with the views: curl's flags are no domain's words.
 */

import { shellQuote } from '../shell.js';

export { shellQuote } from '../shell.js';

/** A shell word written out already, used as is: a `"…$(…)…"` that must expand when the command runs. */
interface ShellWord {
  shell: string;
}

export interface CurlRequest {
  url: string;
  /** Each header as [name, value] (quoted here), or as a shell word written out already. */
  headers: readonly (readonly [name: string, value: string] | ShellWord)[];
  /** Further options, before the body: [flag, value], the value quoted here (`--interface`, an address). */
  options?: readonly (readonly [flag: string, value: string])[];
  /** The body: a file (`@file`: its bytes exactly), or the text itself (exact too: single quotes keep every byte but NUL). */
  data: { file: string } | { text: string };
}

/** `curl -sS -i -X POST URL -H … --data-binary …`: one argument a line for a person, or all on one line for a script. */
export function curlCommand(request: CurlRequest, layout: 'lines' | 'one-line' = 'lines'): string {
  const words = [
    `curl -sS -i -X POST ${shellQuote(request.url)}`,
    ...request.headers.map(
      (header) => `-H ${'shell' in header ? header.shell : shellQuote(`${header[0]}: ${header[1]}`)}`,
    ),
    ...(request.options ?? []).map(([flag, value]) => `${flag} ${shellQuote(value)}`),
    `--data-binary ${shellQuote('file' in request.data ? `@${request.data.file}` : request.data.text)}`,
  ];
  return words.join(layout === 'lines' ? ' \\\n  ' : ' ');
}
