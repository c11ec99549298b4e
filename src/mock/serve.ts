import type { IncomingMessage, ServerResponse } from 'node:http';
import { InFlight } from '../http/in-flight.js';
import { listen, type ReceiverLimits, type TlsFiles } from '../http/server.js';

export interface ServeOptions {
  host?: string;
  port?: number;
  /** Shown in the URL (the platform's events path; empty for the provider endpoint). */
  path: string;
  tls?: TlsFiles;
  limits: ReceiverLimits;
}

/** A receiver that is listening: its URL, and a close that finishes the requests in flight first. */
export interface Serving {
  url: string;
  port: number;
  /** Stops accepting, answers the requests in flight, then closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Listens with `handle` for every request, keeping track of the requests in flight so that close() answers them
 * before the connections go. `onFailedStart` runs when the port cannot be had (the log is closed again).
 */
export async function serve(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  options: ServeOptions,
  onFailedStart: () => Promise<void>,
): Promise<Serving> {
  // A failing onRequest callback (e.g. a closed stdout) must not take the server down: a rejection settles too.
  const inFlight = new InFlight();
  const listening = await listen((request, response) => inFlight.track(handle(request, response)), {
    ...options,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
  }).catch(async (error: unknown) => {
    await onFailedStart();
    throw error;
  });
  return {
    url: listening.url,
    port: listening.port,
    close: () => listening.close(() => inFlight.drained()),
  };
}
