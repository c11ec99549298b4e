/**
 * The TLS and proxy flags shared by the commands that send (send-job, send-event, replay, conformance run), and the
 * glue that builds their transport (src/http/transport.ts) and shows what it says. Light at start-up: the transport
 * code (undici) is loaded inside the action.
 */
import type { SharedFlags } from './flags.js';
import { Option, type Command } from 'commander';
import { usageError } from '../../errors.js';
import { readPem } from '../../input.js';
import type { Io } from '../../io.js';
import { originOf } from '../../http/address.js';
import { isLoopbackUrl } from '../../http/loopback.js';
import type { Output } from '../../output/output.js';
import type { Transport, TransportFlags } from '../../http/transport.js';
import { choiceOption, parseHttpUrl } from './options.js';
import type { CommandContext } from './runner.js';

/** `--ca`, `--insecure`, `--proxy`, and what plain http is allowed: `--tls required`, `--allow-http`. */
export function addTlsOptions(command: Command): Command {
  return addCaOptions(command)
    .option(
      '--proxy <url>',
      'send through this http(s) proxy (default: $HTTPS_PROXY / $HTTP_PROXY, minus $NO_PROXY)',
      parseHttpUrl,
    )
    .addOption(
      choiceOption(
        '--tls <policy>',
        'required: refuse plain http to an address that is not this machine (§5.8); a profile\'s "tls" sets it',
        ['required', 'warn'],
        'warn',
      ),
    )
    .option(
      '--allow-http',
      'send plain http to an address that is not this machine on purpose: no warning, even with --tls required',
    );
}

/** What `--ca` and `--insecure` apply to, in their help. */
export interface CaOptionsText {
  /** What is https: `https` (the target), `https callback URLs`. */
  https: string;
  /** Whose certificate --insecure leaves unverified. */
  certificate: string;
}

/**
 * `--ca` and `--insecure` alone: for a command whose https goes elsewhere than a send, so that proxies and the plain
 * http policy do not apply (`cai load`'s target, the provider mock's callbacks). §5.8: TLS 1.2 or above either way.
 */
export function addCaOptions(
  command: Command,
  text: CaOptionsText = { https: 'https', certificate: 'the TLS certificate' },
): Command {
  return (
    command
      .option('--ca <file>', `trust this certificate authority (PEM) for ${text.https}`)
      // No certificate is verified: the authority --ca names would be used for nothing.
      .addOption(
        new Option(
          '--insecure',
          `do not verify ${text.certificate} (TLS 1.2+ still required; never in production)`,
        ).conflicts('ca'),
      )
  );
}

/** What the flags say of plain http (`--tls`, `--allow-http`). */
export interface PlainHttpFlags {
  tls?: string;
  allowHttp?: boolean;
}

/**
 * §5.8: "Transport is TLS 1.2 or above, in both directions". A send in clear text to an address that is not this
 * machine (a mock on loopback is fine) is said on stderr; under `--tls required` (a production profile's
 * `"tls": "required"`) it is a usage error, exit 2; `--allow-http` says it is on purpose. For every sending command.
 */
export function checkPlainHttp(url: string, flags: PlainHttpFlags, output: Output): void {
  if (flags.allowHttp === true || !isPlainHttpElsewhere(url)) return;
  const origin = originOf(url);
  if (flags.tls === 'required') {
    throw usageError(
      'tls_required',
      `${origin} is plain http, and TLS is required here (--tls required, or the profile's "tls": "required"; §5.8)`,
      'use the https:// URL of the endpoint, or pass --allow-http to send in clear text on purpose',
    );
  }
  output.warn(
    `sending in clear text to ${origin}: §5.8 requires TLS 1.2 or above (pass --allow-http if this is on purpose)`,
  );
}

/** http:// to a host that is not this machine (127.0.0.0/8, ::1, localhost). */
function isPlainHttpElsewhere(url: string): boolean {
  try {
    return new URL(url).protocol === 'http:' && !isLoopbackUrl(url);
  } catch {
    return false;
  }
}

/** The transport for these flags, with the --insecure warning and the proxy in use shown on stderr. */
export async function openTransport(
  flags: TransportFlags,
  { io, output }: CommandContext,
  target?: string,
): Promise<Transport> {
  const { resolveTransport } = await import('../../http/transport.js');
  const transport = await resolveTransport(flags, io, target);
  if (transport.client.insecure)
    output.warn(
      '--insecure: the TLS certificate is NOT verified; anyone on the path can read and change this request. Never use it in production.',
    );
  transport.info.forEach((line) => output.info(line));
  return transport;
}

/** `--tls-cert` and `--tls-key`: a listener's HTTPS. */
export type ServerTlsFlags = Pick<SharedFlags, 'tlsCert' | 'tlsKey'>;

/** `--tls-cert` and `--tls-key`, a listener's HTTPS (§5.8): both or neither. */
export function checkServerTlsPair(flags: ServerTlsFlags): void {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined))
    throw usageError(
      'missing_option',
      '--tls-cert and --tls-key go together',
      'pass both the PEM certificate and its PEM private key',
    );
}

/** The PEM certificate and key of `--tls-cert` and `--tls-key`, or none. */
export async function readServerTls(flags: ServerTlsFlags, io: Io): Promise<{ cert: Buffer; key: Buffer } | undefined> {
  checkServerTlsPair(flags);
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) return undefined;
  return { cert: await readPem(flags.tlsCert, io, 'tls-cert'), key: await readPem(flags.tlsKey, io, 'tls-key') };
}
