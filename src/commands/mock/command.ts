import { addFlags } from '../common/flags.js';
import { InvalidArgumentError, type Command } from 'commander';
import type { UiAddress } from './start.js';
import { FLAG_BOUNDS } from '../../bounds-flags.js';
import { runHandler, type RunState } from '../common/runner.js';
import { MOCK_HINTS } from './hints.js';
import {
  choiceOption,
  collectOneOf,
  collectValues,
  listenAddressParts,
  parseMilliseconds,
  parsePort,
  parseUrlPath,
  parseProbability,
  parseRatePerSecond,
  wholeNumber,
} from '../common/options.js';
import { parseCidrOption } from '../common/network-options.js';
import { addCaOptions } from '../common/transport-options.js';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../../mock/faults.js';
import { DEFAULT_FSYNC, FSYNC_MODES } from '../../mock/fsync.js';
import { declareCommand } from '../common/list.js';
import type { MockOptions } from './action.js';

const EXAMPLES =
  '\nExamples:\n  $ CAI_SECRET=whsec_events cai mock platform --provider acme --log platform.ndjson\n  $ CAI_SECRET=whsec_jobs CAI_CALLBACK_SECRET=whsec_events cai mock provider \\\n      --provider acme --source platform-eu --speed 60';

export function registerMock(program: Command, state: RunState): void {
  const mock = declareCommand(program, 'mock').addHelpText('after', EXAMPLES);
  registerPlatform(mock, state);
  registerProvider(mock, state);
}

/** A mock subcommand's name, description and the help of its --provider. */
interface MockText {
  name: 'platform' | 'provider';
  description: string;
  provider: string;
  /** The faults of --break. */
  faults: readonly string[];
  /** The example command lines of its help. */
  examples: string;
}

const PLATFORM: MockText = {
  name: 'platform',
  description: 'Receive signed Interface B events like the platform would (§4.2, §5–§8), with a durable log',
  provider: 'the provider code expected in X-CAI-Provider (§5.6)',
  faults: Object.keys(PLATFORM_FAULTS),
  examples: `
  $ cai mock platform --provider acme --secret-env CAI_SECRET --port 8787 --log events.ndjson
  $ cai mock platform --provider acme --secret-file new.secret --secret-file old.secret \\
      --test-provider acme-test --test-secret-env ACME_TEST_SECRET --rate-limit 20/s
  $ cai mock platform --provider acme --fail-first 2 --latency 200     # exercise a sender's retries
  $ cai mock platform --provider acme --break no-dedupe                # see a conformance failure`,
};

const PROVIDER: MockText = {
  name: 'provider',
  description: 'Receive signed contact jobs like a provider would (§4.1), then play each conversation back (§3)',
  provider: "this provider's code, sent as X-CAI-Provider on the events (§4.2)",
  faults: Object.keys(PROVIDER_FAULTS),
  examples: `
  $ cai mock provider --provider acme --source platform-eu \\
      --secret-env JOBS_SECRET --callback-secret-env EVENTS_SECRET --port 8788
  $ cai mock provider --provider acme --scenario closed:no_answer --speed 60 --catalog branches.json`,
};

/**
 * A mock's subcommand: --provider, the options both mocks share, the action that serves until Ctrl-C, and the end
 * of its help (its faults, its examples).
 */
function addMock(mock: Command, state: RunState, text: MockText): Command {
  const command = mock
    .command(text.name)
    .description(text.description)
    .requiredOption('--provider <code>', text.provider);
  command.addHelpText('after', `\nFaults for --break:\n  ${text.faults.join(', ')}\n\nExamples:${text.examples}`);
  command.action(async (options: MockOptions, cmd: Command) => {
    await runHandler(
      state,
      cmd,
      async (context) => (await import('./action.js')).runMock(text.name, options, context),
      MOCK_HINTS,
    );
  });
  command
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 = any free port', parsePort, 0)
    .option(
      '--log <file>',
      'append every accepted request to this NDJSON file before the 202; reloaded on start; one mock per log (locked)',
    )
    .addOption(
      choiceOption(
        '--fsync <mode>',
        'when --log reaches the disk: always (before each 202), everysec (written before each 202, synced every second) or never',
        [...FSYNC_MODES],
        DEFAULT_FSYNC,
      ),
    );
  return addFlags(command, {
    tlsCert: 'serve HTTPS (TLS 1.2+, §5.8) with this PEM certificate (needs --tls-key)',
    tlsKey: 'the PEM private key of --tls-cert',
  })
    .option('--latency <ms>', 'wait this long before every answer (fault injection)', parseMilliseconds)
    .option(
      '--dedupe-capacity <n>',
      'remember at most N event_ids per space for dedupe; past it the oldest is forgotten (default: all)',
      wholeNumber(1, FLAG_BOUNDS.dedupeCapacity),
    )
    .option(
      '--break <fault>',
      'deliberately misbehave in one way (repeatable; see the list below)',
      collectOneOf(text.faults, 'fault', `'cai mock ${text.name} --help'`),
    )
    .option(
      '--ui [host:port]',
      'serve a live web inspector of the requests on its own port (default 127.0.0.1, a free port); its URL goes to stderr',
      parseUiAddress,
    );
}

/** `--ui` values: `PORT`, `:PORT`, `HOST`, `HOST:PORT`, `[IPv6]:PORT`; the host defaults to 127.0.0.1, the port to any free one. */
export function parseUiAddress(value: string): UiAddress {
  const parts = listenAddressParts(value);
  if (parts === undefined)
    throw new InvalidArgumentError('expected HOST:PORT, HOST, :PORT or PORT, e.g. 127.0.0.1:4040.');
  return { host: parts.host ?? '127.0.0.1', port: parts.port === undefined ? 0 : parsePort(parts.port) };
}

function registerPlatform(mock: Command, state: RunState): void {
  const command = addMock(mock, state, PLATFORM)
    .option('--path <path>', 'path of the events endpoint', parseUrlPath, '/events')
    .option(
      '--test-provider <code>',
      'provider code of the test credential (§1): its events land in a separate test space',
    )
    .option(
      '--test-secret-env <name>',
      'secret of the test credential, from environment variable NAME (repeatable)',
      collectValues,
    )
    .option('--test-secret-file <path>', 'secret of the test credential, from a file (repeatable)', collectValues)
    .option(
      '--rate-limit <rate>',
      'answer 429 with Retry-After above this rate, e.g. 20/s or 600/m (§7)',
      parseRatePerSecond,
    )
    .option(
      '--allow-origin <cidr>',
      'accept requests only from these addresses or CIDR blocks, IPv4 or IPv6 (§5.7; repeatable)',
      (value: string, previous?: string[]) => collectValues(parseCidrOption(value), previous),
    )
    .option(
      '--fail-rate <p>',
      'answer this fraction of valid events 503, from 0 to 1 (fault injection)',
      parseProbability,
    )
    .option(
      '--fail-first <n>',
      'answer the first N attempts of each event_id 503 (fault injection)',
      wholeNumber(0, FLAG_BOUNDS.attempts),
    )
    .option(
      '--known-lead <id>',
      'a lead_id the platform knows (repeatable); others are accepted and marked for reconciliation (§6.3)',
      collectValues,
    )
    .option('--catalog <file>', 'branch catalog (JSON); appointment events with another branch_code are rejected 400');
  addFlags(command, {
    secret: 'secret of the live credential, Interface B direction (default: $CAI_SECRET); several = rotation overlap',
  });
}

function registerProvider(mock: Command, state: RunState): void {
  const command = addMock(mock, state, PROVIDER)
    .option('--source <platform-id>', 'accept only jobs whose X-CAI-Source is this platform id (§4.1)')
    .option(
      '--scenario <name>',
      'booked | rescheduled | cancelled | closed:<outcome> | random (default: from brief.intent)',
    )
    .option('--speed <factor>', 'compress the conversation delays by this factor, e.g. 60', parseSpeed, 1)
    .option(
      '--catalog <file>',
      "branch catalog (JSON) with each unit's number_e164; jobs with another branch_code are rejected 400",
    );
  addCaOptions(command, { https: 'https callback URLs', certificate: "the callback's TLS certificate" });
  addFlags(command, {
    secret: 'secret of the jobs direction, to verify jobs (default: $CAI_SECRET); several = rotation overlap',
    callbackSecret: 'secret of the events direction, to sign events (default: $CAI_CALLBACK_SECRET); the first signs',
  });
}

/** A factor within its bound (docs/limits.md, "Flag values"). */
function parseSpeed(value: string): number {
  const n = Number(value);
  const { least, most } = FLAG_BOUNDS.speed;
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError('expected a positive number such as 10 or 0.5.');
  }
  if (n < least || n > most) throw new InvalidArgumentError(`expected from ${least} to ${most} (docs/limits.md).`);
  return n;
}
