/**
 * The inspector page's script, from its assets (plain JavaScript, beside this module), joined into the one module
 * the page runs: lists.js (the state, the helpers, the requests and callbacks lists), then inspector.js (the
 * conversations, the detail pane and the routes, the events, the live stream). scripts/build.mjs inlines the files'
 * text here in the CLI bundle, and copies them beside the built module for the library (dist/); run from the
 * sources (the tests), they are read from here. The copy button's function, shared with the conformance report,
 * and the lead's path segment, the server's, take the places the script keeps for them.
 */
import { readFileSync } from 'node:fs';
import { COPY_TEXT_FUNCTION } from '../../output/html/copy-script.js';
import { decodeLead, encodeLead } from '../lead-path.js';

const LISTS: string = readFileSync(new URL('./lists.js', import.meta.url), 'utf8');
const PAGE: string = readFileSync(new URL('./inspector.js', import.meta.url), 'utf8');
const COPY_TEXT_PLACE =
  '/* copyText(button, pre, selectedLabel): src/output/html/copy-script.ts, put here when the page is made */';

const LEAD_PATH_PLACE =
  '/* encodeLead(lead), decodeLead(segment): src/inspector/lead-path.ts, put here when the page is made */';
/** The server's own functions (their source: self-contained, they name nothing outside themselves). */
const LEAD_PATH_FUNCTIONS = `const encodeLead = ${encodeLead.toString()};\nconst decodeLead = ${decodeLead.toString()};`;

export const INSPECTOR_SCRIPT = `${LISTS}\n${PAGE}`
  .replace(COPY_TEXT_PLACE, () => COPY_TEXT_FUNCTION)
  .replace(LEAD_PATH_PLACE, () => LEAD_PATH_FUNCTIONS);
