/**
 * The TLS and proxy flags shared by the commands that send (send-job, send-event, replay, conformance run), and the
 * glue that builds their transport (src/http/transport.ts) and shows what it says. Light at start-up: the transport
 * code (undici) is loaded inside the action.
 */
import type { Command } from 'commander';
import type { Transport, TransportFlags } from '../http/transport.js';
import { parseHttpUrl } from './options.js';
import type { CommandContext } from './runner.js';

/** `--ca`, `--insecure` and `--proxy`. */
export function addTlsOptions(command: Command): Command {
  return command
    .option('--ca <file>', 'trust this certificate authority (PEM) for https')
    .option('--insecure', 'do not verify the TLS certificate (TLS 1.2+ still required; never in production)')
    .option('--proxy <url>', 'send through this http(s) proxy (default: $HTTPS_PROXY / $HTTP_PROXY, minus $NO_PROXY)', parseHttpUrl);
}

/** The transport for these flags, with the --insecure warning and the proxy in use shown on stderr. */
export async function openTransport(flags: TransportFlags, { io, output }: CommandContext, target?: string): Promise<Transport> {
  const { resolveTransport } = await import('../http/transport.js');
  const transport = await resolveTransport(flags, io, target);
  transport.warnings.forEach((line) => output.warn(line));
  transport.info.forEach((line) => output.info(line));
  return transport;
}
