/**
 * The reproductions of a run started from the library (runConformance, runSenderConformance) rather than the command
 * line: the command that runs a check again is built from the run's options, in the CLI's words, since a
 * reproduction is a shell script that runs cai. The CLI passes its own line instead: the command as the user wrote
 * it (./rerun.ts).
 */
import { isStateCheck } from '../../conformance/explore/setup.js';
import type { ReproducerFactory, ReproSetup } from '../../conformance/runner.js';
import type { ConformanceOptions } from '../../conformance/run-receiver.js';
import type { SenderConformanceOptions } from '../../conformance/run-sender.js';
import { shellQuote } from '../../output/curl.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { secretFlagFor } from '../common/secret-options.js';
import { reproducerOf, type Rerun } from './repro.js';
import { hostPort } from '../../http/address.js';

/** `--seed S` for a check of the stateful phase, or the seed and path of the conversation to replay. */
function seedOf(setup: ReproSetup, checkId: string, replay?: string): string {
  return setup.seed !== undefined && isStateCheck(checkId) ? ` --seed ${shellQuote(replay ?? String(setup.seed))}` : '';
}

/** ` --flag VALUE`, quoted, for a value given; nothing for none. */
const given = (flag: string, value: string | undefined) => (value === undefined ? '' : ` ${flag} ${shellQuote(value)}`);
const inMs = (ms: number | undefined) => (ms === undefined ? undefined : `${ms}ms`);

/** `cai conformance run … --only ID` for a receiver run: the same target (or mock and faults), identity, secrets and waits. */
function receiverRerun(options: ConformanceOptions, invocation: string, setup: ReproSetup): Rerun {
  if (options.mock) {
    const faults = (options.faults ?? []).map((fault) => given('--break', fault)).join('');
    return (checkId, replay) =>
      `${invocation} conformance run --interface ${options.interface} --mock${faults}${seedOf(setup, checkId, replay)} --only ${checkId}`;
  }
  const identity = given(`--${interfaceSpec(options.interface).identityOption}`, options.identity);
  // A provider's run again checks its callbacks as this one did: the same listener, code, branch, secret and waits.
  const listen = options.callbackListen && hostPort(options.callbackListen.host, options.callbackListen.port);
  const callbacks = options.callbackSecrets?.length
    ? ` --provider ${shellQuote(options.providerCode ?? '')} ${secretFlagFor(options.callbackSecretLabel, 'callback-secret', 'CAI_CALLBACK_SECRET')}${given('--callback-listen', listen)}${given('--callback-url', options.callbackUrl || undefined)}${given('--callback-wait', inMs(options.callbackWaitMs))}${given('--observe', inMs(options.observeMs))}`
    : '';
  return (checkId, replay) =>
    `${invocation} conformance run --interface ${options.interface} --to ${shellQuote(options.target ?? '')}${identity}${given('--branch-code', options.branchCode)} ${secretFlagFor(options.secretLabel)}${callbacks}${seedOf(setup, checkId, replay)} --only ${checkId}`;
}

/** The reproductions of a receiver run started from the library; `invocation` how cai is run (default `cai`). */
export function receiverReproducer(options: ConformanceOptions, invocation = 'cai'): ReproducerFactory {
  return reproducerOf(invocation, (setup) => receiverRerun(options, invocation, setup));
}

/** The reproductions of a sender run started from the library: the same trigger, identity and secret. */
export function senderReproducer(options: SenderConformanceOptions, invocation = 'cai'): ReproducerFactory {
  return reproducerOf(invocation, (setup) => (checkId, replay) => {
    return `${invocation} conformance run --interface ${options.interface} --role sender --${interfaceSpec(options.interface).identityOption} ${shellQuote(options.identity)} ${secretFlagFor(options.secretLabel)} --only ${checkId}${given('--trigger', options.trigger)}${seedOf(setup, checkId, replay)}`;
  });
}
