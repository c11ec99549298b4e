/**
 * The exit codes' meanings, apart from src/errors.ts: plain text for the docs, which the modules that throw coded
 * errors (a bundle of them too: the Artillery processor) need not carry.
 */
import { ExitCode } from './errors.js';

/**
 * What each exit code means, for every command: the README's and docs/ci.md's tables are generated from it
 * (scripts/gen-exit-codes.mjs, `npm run docs`) and a test compares them. `meaning` is the general rule, `pipeline`
 * what a CI step that ends with it should look at.
 */
export const EXIT_CODES: readonly { code: ExitCode; meaning: string; pipeline: string }[] = [
  {
    code: ExitCode.ok,
    meaning: 'success: signed, valid, accepted, every mandatory check passed',
    pipeline: 'the step passes: every `must` check passed or is waived',
  },
  {
    code: ExitCode.negative,
    meaning: 'a negative verdict: signature invalid, document invalid, request rejected, conformance failures',
    pipeline:
      "the failed checks, in the test report; their bodies and repro scripts in the `--repro-dir`. Or no check at all: the receiver refused the first valid request, and the report's one block names why ([the diagnosis](conformance.md#a-diagnosis-instead-of-a-flood))",
  },
  {
    code: ExitCode.usage,
    meaning: 'usage or configuration: unknown flag, bad option value, missing secret, unreadable file',
    pipeline: 'a flag, a missing secret variable, an unreadable waivers file (one `error:` and one `hint:` line)',
  },
  {
    code: ExitCode.delivery,
    meaning:
      'delivery: target unreachable, redirecting or plainly not the endpoint, TLS failure, time-out, retries exhausted',
    pipeline:
      'the target is unreachable, redirects, or is plainly not the endpoint (a 404, 405, 501 or an HTML page to the first valid request): nothing was checked. A sender run: the sender sent nothing',
  },
  {
    code: ExitCode.internal,
    meaning: 'internal error: a bug in cai (please report it with the `--debug` output)',
    pipeline: 'a bug in cai: report it with the `--debug` output',
  },
  {
    code: ExitCode.interrupted,
    meaning: 'interrupted by Ctrl-C (SIGINT), after writing what the results and reports hold so far',
    pipeline: 'the job was cancelled; the reports hold the checks finished before',
  },
];
