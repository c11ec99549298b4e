import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { CaiError } from '../errors.js';
import { formatCap, INPUT_CAPS } from '../bounds.js';
import { readSecretText, whyUnreadable } from '../input.js';

/**
 * Secrets in a deployment profile are references only: `{"env": "NAME"}` or `{"file": "PATH"}`, or a list of them
 * for a rotation overlap (§5.9: the first signs, any verifies). No zod here: the config-defaults hook uses it.
 */

export type SecretRef = { env: string } | { file: string };

/** The two directions of §5.1: jobs (Interface A, platform → provider) and events (Interface B, provider → platform). */
export type SecretDirection = 'jobs' | 'events';

export interface SecretRefStatus {
  kind: 'env' | 'file';
  /** The variable name, or the file path as written in the config. */
  ref: string;
  /** For files: the absolute path (relative paths are relative to the config file's directory). */
  path?: string;
  /** Safe to print: `env CAI_JOBS_SECRET`, `file secrets/jobs.secret`. */
  label: string;
  present: boolean;
  /** Why the secret is not usable, when it is not. */
  problem?: string;
  /** Number of characters (after one trailing newline is removed from files); never the value. */
  length?: number;
  /** For files readable by group or others: the octal mode, e.g. `644`. */
  looseMode?: string;
}

export function asRefList(refs: SecretRef | readonly SecretRef[] | undefined): SecretRef[] {
  if (refs === undefined) return [];
  return Array.isArray(refs) ? [...refs] : [refs as SecretRef];
}

export function resolveRefPath(file: string, baseDir: string): string {
  return isAbsolute(file) ? file : resolve(baseDir, file);
}

/** Checks one reference without returning its value: set/readable, non-empty, and file permissions. */
export function inspectSecretRef(ref: SecretRef, baseDir: string, env: NodeJS.ProcessEnv): SecretRefStatus {
  if ('env' in ref) {
    const value = env[ref.env];
    const status = { kind: 'env', ref: ref.env, label: `env ${ref.env}` } as const;
    const problem =
      value === undefined
        ? 'is not set'
        : value === ''
          ? 'is empty'
          : Buffer.byteLength(value, 'utf8') > INPUT_CAPS.secret.bytes
            ? `is over the ${formatCap(INPUT_CAPS.secret.bytes)} cap for a secret`
            : undefined;
    if (problem !== undefined)
      return { ...status, present: false, problem: `environment variable ${ref.env} ${problem}` };
    return { ...status, present: true, length: (value as string).length };
  }
  const path = resolveRefPath(ref.file, baseDir);
  const status = { kind: 'file', ref: ref.file, path, label: `file ${ref.file}` } as const;
  let content: string;
  let mode: number;
  try {
    mode = statSync(path).mode;
    content = readSecretText(path);
  } catch (error) {
    const why =
      error instanceof CaiError && error.code === 'input_too_large'
        ? `is over the ${formatCap(INPUT_CAPS.secret.bytes)} cap for a secret file`
        : error instanceof CaiError && error.code === 'not_utf8'
          ? 'is not UTF-8 text'
          : whyUnreadable(error instanceof CaiError ? (error.cause ?? error) : error);
    return { ...status, present: false, problem: `secret file ${ref.file} ${why}` };
  }
  const value = content.replace(/\r?\n$/, '');
  // Readable by group or others: anyone else on the machine can sign as this party.
  const looseMode = (mode & 0o044) !== 0 ? (mode & 0o777).toString(8) : undefined;
  if (value === '') return { ...status, present: false, problem: `secret file ${ref.file} is empty`, looseMode };
  return { ...status, present: true, length: value.length, looseMode };
}

export function looseModeWarning(status: SecretRefStatus): string | undefined {
  if (status.looseMode === undefined) return undefined;
  return `secret file ${status.ref} is readable by other users (mode ${status.looseMode}); run: chmod 600 ${status.path ?? status.ref}`;
}

/** The value of a reference, or undefined when it cannot be read. For comparisons only: never print it. */
export function readSecretRef(ref: SecretRef, baseDir: string, env: NodeJS.ProcessEnv): string | undefined {
  if ('env' in ref) return env[ref.env] || undefined;
  try {
    return readSecretText(resolveRefPath(ref.file, baseDir)).replace(/\r?\n$/, '') || undefined;
  } catch {
    return undefined;
  }
}
