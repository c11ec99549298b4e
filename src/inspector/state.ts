/**
 * What the inspector's server is given (its options) and what its steps share once it is prepared (its state): the
 * server (server.ts) and its routes (routes.ts) both take them from here.
 */
import type { INSPECTOR_SERVER_CAPS } from '../bounds.js';
import type { CopyCommandsOf } from './detail.js';
import type { InspectorSigning } from './explain.js';
import type { renderInspectorPage } from './page.js';
import type { Redactor } from './redact.js';
import type { InspectorStore } from './store.js';
import type { StreamHub } from './stream.js';

export interface InspectorServerOptions {
  kind: 'platform' | 'provider';
  /** Where to listen (default 127.0.0.1, any free port). */
  host?: string;
  port?: number;
  store: InspectorStore;
  signing: InspectorSigning;
  /** The mock's URL as it prints it (the events URL, or the provider endpoint). */
  mockUrl: string;
  /** Where the requests are POSTed: the events URL, or the provider endpoint with /contact-jobs. */
  postUrl: string;
  /** The commands that send a kept request again, for the page's copy buttons (none when left out). */
  copyCommands?: CopyCommandsOf;
  /** Every secret the mock holds, both directions: never served (see Redactor). */
  secrets: readonly string[];
  /** e.g. `cai 0.2.0`. */
  generator?: string;
  /** The server's bounds (INSPECTOR_SERVER_CAPS by default; tests shorten the time-outs). */
  caps?: Partial<InspectorServerCaps>;
}

export type InspectorServerCaps = { -readonly [K in keyof typeof INSPECTOR_SERVER_CAPS]: number };

/** What the server's steps share: the options, the page, the headers, the live streams, and its own address. */
export interface InspectorState {
  options: InspectorServerOptions;
  store: InspectorStore;
  redactor: Redactor;
  /** What the inspector keeps, in words (for the page and the "not kept" answers). */
  bounds: string;
  page: ReturnType<typeof renderInspectorPage>;
  pageHeaders: Record<string, string>;
  dataHeaders: Record<string, string>;
  hub: StreamHub;
  /** Set once the server listens. */
  url: string;
  allowedHosts: (value: string | undefined) => boolean;
}
