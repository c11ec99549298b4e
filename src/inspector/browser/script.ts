/**
 * The inspector page's script, from its assets (plain JavaScript, beside this module), joined into the one module
 * the page runs: lists.js (the state, the helpers, the requests and callbacks lists), then inspector.js (the
 * conversations, the detail pane and the routes, the events, the live stream). scripts/build.mjs inlines the files'
 * text here in the CLI bundle, and copies them beside the built module for the library (dist/); run from the
 * sources (the tests), they are read from here. The copy button's function, shared with the conformance report,
 * and the server's own functions (the lead's path segment, a time, a status's tone, a count) take the places the
 * script keeps for them.
 */
import { readFileSync } from 'node:fs';
import { COPY_TEXT_FUNCTION } from '../../output/html/copy-script.js';
import { plural } from '../../text.js';
import { decodeLead, encodeLead } from '../lead-path.js';
import { time, tone } from '../views.js';

const LISTS: string = readFileSync(new URL('./lists.js', import.meta.url), 'utf8');
const PAGE: string = readFileSync(new URL('./inspector.js', import.meta.url), 'utf8');

/** The server's own functions, by name (their source: self-contained, they name nothing outside themselves). */
const functions = (named: Record<string, (...args: never[]) => unknown>) =>
  Object.entries(named)
    .map(([name, code]) => `const ${name} = ${code.toString()};`)
    .join('\n');

/** Each place the script keeps for a function of the server's (a comment naming it), and what goes there. */
const PLACES: readonly [what: string, code: string][] = [
  ['copyText(button, pre, selectedLabel): src/output/html/copy-script.ts', COPY_TEXT_FUNCTION],
  ['encodeLead(lead), decodeLead(segment): src/inspector/lead-path.ts', functions({ encodeLead, decodeLead })],
  [
    'time(iso), tone(status), plural(n, one, many): src/inspector/views.ts, src/text.ts',
    functions({ time, tone, plural }),
  ],
];

export const INSPECTOR_SCRIPT = PLACES.reduce(
  (script, [what, code]) => script.replace(`/* ${what}, put here when the page is made */`, () => code),
  `${LISTS}\n${PAGE}`,
);
