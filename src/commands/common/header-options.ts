/**
 * The flags whose values go into a request header (§4.1 X-CAI-Source, §4.2 X-CAI-Provider), checked once, before
 * any request, capture or curl line is built: by the one preAction hook (src/commands/common/config-defaults.ts),
 * after a deployment profile has filled its defaults, so a value from the command line, the environment or the
 * profile is checked alike, for every command that sends, signs, mocks or tests with it.
 */
import type { Command } from 'commander';
import { FLAG_BOUNDS } from '../../bounds-flags.js';
import { usageError } from '../../errors.js';
import { HeaderNames } from '../../spec/constants.js';
import { headerValueProblem } from '../../spec/header-value.js';

/** Flag → the header its value is. */
const HEADER_OPTIONS: Readonly<Record<string, string>> = {
  '--provider': HeaderNames.provider,
  '--test-provider': HeaderNames.provider,
  '--source': HeaderNames.source,
};

/** The commands where those flags are header values (`report --provider` is a filter of log records, not a header). */
const HEADER_COMMANDS: ReadonlySet<string> = new Set([
  'sign',
  'send-job',
  'send-event',
  'trigger',
  'conformance run',
  'mock platform',
  'mock provider',
]);

/** Throws a usage error for the first header-valued option of `command` that HTTP cannot carry as given. */
export function checkHeaderOptions(command: Command, path: string): void {
  if (!HEADER_COMMANDS.has(path)) return;
  for (const option of command.options) {
    const header = option.long !== undefined ? HEADER_OPTIONS[option.long] : undefined;
    if (header === undefined) continue;
    const value: unknown = command.getOptionValue(option.attributeName());
    if (typeof value !== 'string') continue;
    const problem = identityValueProblem(value);
    if (!problem) continue;
    const fromProfile = command.getOptionValueSource(option.attributeName()) === 'config';
    throw usageError(
      'bad_header_value',
      `${option.long}${fromProfile ? ' (from the deployment profile)' : ''} is the ${header} header, and ${problem}`,
      fromProfile
        ? 'correct the value in cai.config.json (cai config show lists where it comes from)'
        : `pass the ${option.long === '--source' ? 'platform id' : 'provider code'} alone, printable ASCII on one line`,
    );
  }
}

/**
 * Why an identity (a provider code, a platform id) cannot be sent as its header, as the end of a sentence that
 * names the header: the value and what HTTP refuses in it (RFC 9110 §5.5), or its length past the bound
 * (docs/limits.md), without echoing a value that long. Undefined when it can be sent.
 */
export function identityValueProblem(value: string): string | undefined {
  if (value.length > FLAG_BOUNDS.identityCharacters)
    return `its ${value.length} characters are over the ${FLAG_BOUNDS.identityCharacters} cai takes (docs/limits.md)`;
  const problem = headerValueProblem(value);
  return problem ? `${JSON.stringify(value)} ${problem.message}` : undefined;
}
