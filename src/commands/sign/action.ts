/**
 * `cai sign`, its action: the body signed (§5), printed as headers, JSON or a curl command. Loaded when the
 * command runs, not at every start-up.
 */
import type { CommandContext } from '../common/runner.js';
import { signingSecrets } from '../common/secret-options.js';
import { identityFlagOf, requireOptions } from '../common/options.js';
import { readBodyInput } from '../../input.js';
import { usageError } from '../../errors.js';
import { HeaderNames, type InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';

export interface SignOptions {
  body?: string;
  timestamp?: number;
  format: 'headers' | 'json' | 'curl';
  url?: string;
  interface?: InterfaceId;
  provider?: string;
  source?: string;
  example?: string | boolean;
  [key: string]: unknown;
}

export async function runSign(options: SignOptions, { io, output }: CommandContext): Promise<number> {
  if (options.example !== undefined) {
    // The worked example's modules load only when asked for (start-up of plain signing and verifying).
    return (await import('./example.js')).showSignatureExample(options.example, { io, output });
  }
  const secrets = signingSecrets(options, { io, output });
  const secret = secrets[0];
  if (!secret) throw usageError('missing_secret', 'no signing secret', 'pass --secret-env NAME or --secret-file PATH');
  const body = await readBodyInput(options.body, io);
  // An empty pipe is most often a command before cai that failed (`cat missing.json | cai sign`): signing it would
  // hand a pipeline a valid signature of nothing. An empty file is signed, since it can only have been meant.
  if (body.length === 0 && (options.body === undefined || options.body === '-'))
    throw usageError(
      'empty_input',
      'stdin is empty: there is no body to sign',
      'pipe the body in, or pass --body FILE (an empty file signs the empty body)',
    );
  const timestamp = options.timestamp ?? Math.floor(io.now() / 1000);
  // The signing core (and node:crypto) loads with the command that signs, not with every start-up.
  const { sign } = await import('../../signing/sign.js');
  const signature = sign(secret.value, timestamp, body);
  if (secrets.length > 1) output.info(`signed with the first of ${secrets.length} secrets (${secret.label})`);
  describeBody(body, output);

  if (output.json || options.format === 'json') {
    output.printJson({ timestamp, signature });
    return 0;
  }
  if (options.format === 'curl') {
    // Checked before the body from stdin is saved: a refused run leaves no file behind.
    const target = curlTarget(options);
    const bodyFile = await bodyFileForCurl(options.body, body, output);
    output.result(await curlFor(target, timestamp, signature, bodyFile));
    return 0;
  }
  output.result(`${HeaderNames.timestamp}: ${timestamp}`);
  output.result(`${HeaderNames.signature}: ${signature}`);
  return 0;
}

/** Notes on stderr about bodies that are signed exactly as given but are probably not what was meant. */
function describeBody(body: Buffer, output: CommandContext['output']): void {
  if (body.length === 0) {
    output.note('the body is empty (0 bytes): a document of the interface is a JSON object (§2); signed as given');
    return;
  }
  if (body[body.length - 1] === 0x0a) {
    output.note('the body ends with a newline; it is signed with it, so the request must send it too');
  }
  try {
    JSON.parse(body.toString('utf8'));
  } catch {
    output.note('the body is not valid JSON; it is signed exactly as given');
  }
}

async function bodyFileForCurl(
  path: string | undefined,
  body: Buffer,
  output: CommandContext['output'],
): Promise<string> {
  if (path !== undefined && path !== '-') return path;
  // The body came from stdin: keep its exact bytes in a file so --data-binary sends what was signed.
  const { writeFile, mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const directory = await mkdtemp(join(tmpdir(), 'cai-sign-'));
  const file = join(directory, 'body.json');
  await writeFile(file, body);
  output.info(`the body from stdin was saved to ${file} for the curl command`);
  return file;
}

/** Where the curl command posts, and the identity header it sends: every flag it needs, named at once. */
function curlTarget(options: SignOptions): { url: string; header: string; identity: string } {
  const iface =
    options.interface ?? (options.source !== undefined ? 'A' : options.provider !== undefined ? 'B' : undefined);
  const spec = iface === undefined ? undefined : interfaceSpec(iface);
  const identity = spec
    ? {
        flag: identityFlagOf(spec),
        value: options[spec.identityOption],
        how: `${identityFlagOf(spec)} ${spec.identityValue}: interface ${spec.id} sends ${spec.identityHeaderName} (${spec.section})`,
      }
    : {
        flag: '--interface',
        value: undefined,
        how: '--interface B --provider CODE (events) or --interface A --source ID (contact jobs)',
      };
  const [url, value] = requireOptions(
    [{ flag: '--url', value: options.url, how: '--url with the full address to POST to' }, identity],
    'with --format curl',
  ) as [string, string];
  return { url, header: spec?.identityHeaderName ?? HeaderNames.provider, identity: value };
}

async function curlFor(
  target: { url: string; header: string; identity: string },
  timestamp: number,
  signature: string,
  bodyFile: string,
): Promise<string> {
  const [{ curlCommand }, { assertSendableHeaders }] = await Promise.all([
    import('../../output/curl.js'),
    import('../../send/dry-run.js'),
  ]);
  const headers = [
    ['Content-Type', 'application/json'],
    [target.header, target.identity],
    [HeaderNames.timestamp, String(timestamp)],
    [HeaderNames.signature, signature],
  ] as const;
  assertSendableHeaders(headers, 'the curl command');
  return curlCommand({ url: target.url, headers, data: { file: bodyFile } });
}
