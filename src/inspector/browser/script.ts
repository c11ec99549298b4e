/**
 * The inspector page's script, from its asset inspector.js (plain JavaScript, beside this module): scripts/build.mjs
 * inlines the file's text here in the CLI bundle, and copies it beside the built module for the library (dist/);
 * run from the sources (the tests), it is read from here. The copy button's function, shared with the conformance
 * report, takes the place the script keeps for it.
 */
import { readFileSync } from 'node:fs';
import { COPY_TEXT_FUNCTION } from '../../output/html/copy-script.js';

const ASSET: string = readFileSync(new URL('./inspector.js', import.meta.url), 'utf8');
const COPY_TEXT_PLACE = '/* copyText(button, pre, selectedLabel): src/output/html/copy-script.ts, put here when the page is made */';

export const INSPECTOR_SCRIPT = ASSET.replace(COPY_TEXT_PLACE, () => COPY_TEXT_FUNCTION);
