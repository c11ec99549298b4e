/**
 * The checks of this machine's set-up, which need no profile and no network: the Node.js version cai runs on, the
 * temporary directory its reports and reproductions are written to, where a profile was looked for, and (without a
 * profile) the secrets the commands read from the environment by default. `cai doctor` runs them first, so that
 * with nothing else to check it still says whether this machine can run cai.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigSearch } from '../config/locate.js';
import { hintOf, optionName } from '../errors.js';
import type { CheckResult } from './types.js';

/** package.json's `engines.node` (`>=20.19`): the oldest Node.js cai is built and tested for. */
export const MIN_NODE_VERSION = '20.19.0';

/** Secrets shorter than this get a warning, a profile's too (32 characters ≈ 128 bits as hex, 192 as base64). */
export const SHORT_SECRET_CHARACTERS = 32;
const SHORT_SECRET_HINT = `use at least ${SHORT_SECRET_CHARACTERS} random characters, e.g. openssl rand -hex 32`;
const SAME_SECRET_HINT = '§5.1: each direction has its own secret; ask for (or issue) a separate one';

/** The environment variables the commands take a secret from when no flag names one (docs/operations.md). */
const DEFAULT_SECRET_VARIABLES = [
  {
    name: 'CAI_SECRET',
    what: 'the secret of the commands that sign or verify, for the direction they work in',
    secret: 'signing',
  },
  {
    name: 'CAI_CALLBACK_SECRET',
    what: "the events secret of Interface A runs, for the provider's callbacks (§5.1)",
    secret: 'callback',
  },
] as const;

/** `20.19.0` ≤ `v20.20.2`: numeric, part by part. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (text: string) =>
    text
      .replace(/^v/, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const [have, need] = [parts(version), parts(minimum)];
  for (let index = 0; index < 3; index += 1) {
    const a = have[index] ?? 0;
    const b = need[index] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

export function checkNode(version: string): CheckResult {
  const wanted = `cai needs ${MIN_NODE_VERSION} or later`;
  if (versionAtLeast(version, MIN_NODE_VERSION))
    return { id: 'node', verdict: 'pass', message: `Node.js ${version.replace(/^v/, '')} (${wanted})` };
  return {
    id: 'node',
    verdict: 'fail',
    message: `Node.js ${version.replace(/^v/, '')} is too old: ${wanted}`,
    hint: `install Node.js ${MIN_NODE_VERSION.split('.').slice(0, 2).join('.')} or later (nodejs.org, or nvm install 20)`,
  };
}

/** The temporary directory takes the reproduction bodies of a conformance run and the reports written by default. */
export function checkTempDir(dir: string): CheckResult {
  try {
    const probe = mkdtempSync(join(dir, 'cai-doctor-'));
    try {
      writeFileSync(join(probe, 'probe'), 'cai doctor');
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
    return { id: 'temp', verdict: 'pass', message: `${dir} is writable (reproductions of failing checks go there)` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return {
      id: 'temp',
      verdict: 'fail',
      message: `${dir} is not writable (${code}): conformance runs cannot save their reproductions`,
      hint: hintOf('doctor_temp_unwritable', {}, 'set TMPDIR to a writable directory'),
    };
  }
}

/** No profile in use: where one was looked for, and how to make one. */
export function checkNoProfile(search: ConfigSearch, cwd: string): CheckResult {
  const where =
    search.top === cwd
      ? `in ${cwd}`
      : `from ${cwd} up to ${search.top}${search.repository ? ' (the repository root)' : ''}`;
  return {
    id: 'config',
    verdict: 'skip',
    message: `no deployment profile: no cai.config.json ${where}, and neither ${optionName('config')} nor CAI_CONFIG`,
    hint: "commands take their flags alone; for a deployment's values as defaults, 'cai config init'",
  };
}

/**
 * Without a profile, the commands read their secrets from CAI_SECRET and CAI_CALLBACK_SECRET unless a flag names
 * another source: each is set or not, long enough, and the two differ (§5.1: one secret per direction). Only the
 * length is shown, never the value.
 */
export function checkEnvironmentSecrets(env: NodeJS.ProcessEnv): CheckResult[] {
  const results = DEFAULT_SECRET_VARIABLES.map(({ name, what, secret }): CheckResult => {
    const value = env[name];
    if (value === undefined || value === '') {
      return {
        id: 'secrets',
        verdict: name === 'CAI_SECRET' ? 'warn' : 'skip',
        message: `${name} is not set: ${what}`,
        hint: hintOf('doctor_secret_unset', { variable: name, secret }, `export ${name}`),
      };
    }
    if (value.length < SHORT_SECRET_CHARACTERS) return shortSecret(name, value.length);
    return { id: 'secrets', verdict: 'pass', message: `${name} is set (${value.length} characters): ${what}` };
  });
  return [
    ...results,
    ...sameSecrets(env.CAI_SECRET, env.CAI_CALLBACK_SECRET, 'CAI_SECRET and CAI_CALLBACK_SECRET are the same secret'),
  ];
}

/** A secret shorter than SHORT_SECRET_CHARACTERS: a warning, naming it by `label`. */
export function shortSecret(label: string, length: number): CheckResult {
  return { id: 'secrets', verdict: 'warn', message: `${label} is only ${length} characters`, hint: SHORT_SECRET_HINT };
}

/** §5.1: each direction has its own secret; the two the same (both set) is a failure, with `message`. */
export function sameSecrets(a: string | undefined, b: string | undefined, message: string): CheckResult[] {
  return a && a === b ? [{ id: 'secrets', verdict: 'fail', message, hint: SAME_SECRET_HINT }] : [];
}
