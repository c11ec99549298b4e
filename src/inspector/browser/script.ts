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
const COPY_TEXT_PLACE =
  '/* copyText(button, pre, selectedLabel): src/output/html/copy-script.ts, put here when the page is made */';
const SERVER_PLACE =
  '/* encodeLead, decodeLead (lead-path.ts), time, tone (views.ts), plural (src/text.ts): put here when the page is made */';
/** The server's own functions (their source: self-contained, they name nothing outside themselves). */
const SERVER_FUNCTIONS = Object.entries({ encodeLead, decodeLead, time, tone, plural })
  .map(([name, code]) => `const ${name} = ${code.toString()};`)
  .join('\n');

export const INSPECTOR_SCRIPT = `${LISTS}\n${PAGE}`
  .replace(COPY_TEXT_PLACE, () => COPY_TEXT_FUNCTION)
  .replace(SERVER_PLACE, () => SERVER_FUNCTIONS);
