/**
 * `cai validate`, its action: documents read whole or as NDJSON lines, each validated (§2, §8), and the verdicts. Loaded when the
 * command runs, not at every start-up.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandContext } from '../common/runner.js';
import { formatCap, INPUT_CAPS, READ_CHUNK_BYTES } from '../../bounds.js';
import { emptyPath, openInputStream, readFileInput, readStreamCapped, tooLarge, unreadable } from '../../input.js';
import { pipeWriter, type PipeWriter } from '../../output/pipe-writer.js';
import { jsonText, safeText } from '../../output/safe-text.js';
import { CaiError, usageError } from '../../errors.js';
import { describeIssue } from '../../spec/issues.js';
import type { DocumentKind, DocumentVerdict, ValidateOptions } from '../../spec/validate-fast.js';
import { plural } from '../../text.js';

export interface ValidateCommandOptions {
  ndjson?: boolean;
  strict?: boolean;
  catalog?: string;
}

const KIND_WORDS = ['auto', 'job', 'event', 'ack', 'duplicate-ack'] as const;
type KindWord = (typeof KIND_WORDS)[number];
const STDIN = '-';

type Totals = Record<'documents' | 'valid' | 'invalid' | 'errors' | 'warnings', number>;

/**
 * The verdicts: validate-fast.ts's, and validate.ts's (zod, for the messages of a schema's refusal) loaded at the
 * first document a schema refuses, so that valid documents never load the schemas (start-up of `cai validate`).
 */
class Validators {
  private full: typeof import('../../spec/validate.js') | undefined;

  constructor(readonly fast: typeof import('../../spec/validate-fast.js')) {}

  /** The verdict of `bytes`, at once when no schema refuses them; else once the schemas are loaded. */
  verdictOf(bytes: Uint8Array, options: ValidateOptions): DocumentVerdict | Promise<DocumentVerdict> {
    return this.fast.fastBodyVerdict(bytes, options) ?? this.refused(bytes, options);
  }

  private async refused(bytes: Uint8Array, options: ValidateOptions): Promise<DocumentVerdict> {
    this.full ??= await import('../../spec/validate.js');
    return this.full.validateBody(bytes, options);
  }
}
/** `line` is the line number of an NDJSON document: the source is then `label:line`, built only when it is shown. */
type Recorder = (label: string, line: number | undefined, verdict: DocumentVerdict, showValid: boolean) => void;

export async function runValidate(
  kindArg: string | undefined,
  fileArgs: string[],
  options: ValidateCommandOptions,
  context: CommandContext,
): Promise<number> {
  const { io, output } = context;
  const { kind, files } = splitKind(kindArg, fileArgs);
  if (files.filter((file) => file === STDIN).length > 1)
    throw usageError('usage', 'stdin (-) can be read only once', 'pass - at most once');
  if (files.length === 0 && io.stdin.isTTY) {
    throw usageError(
      'missing_input',
      'no documents to validate',
      'pass one or more files, or pipe a document on stdin (cai sample job | cai validate)',
    );
  }
  const sources = files.length === 0 ? [STDIN] : files;
  await Promise.all(
    sources.map((source) =>
      checkReadable(source, context, source === kindArg && kind === 'auto', isStreamed(source, options)),
    ),
  );
  const validators = new Validators(await import('../../spec/validate-fast.js'));
  const validateOptions: ValidateOptions = { kind, strict: options.strict === true };
  if (options.catalog !== undefined) {
    const { loadCatalog } = await import('../../spec/catalog.js');
    validateOptions.catalog = await loadCatalog(options.catalog, (file) => readFileInput(file, io, 'catalog'));
  }
  // Names given twice are looked for in a document read whole, and in a stream's lines with --strict only: the
  // scan costs about half a JSON.parse, which a stream of a million documents pays in full.
  const wholeOptions: ValidateOptions = { ...validateOptions, repeatedNames: true };
  const streamOptions: ValidateOptions = { ...validateOptions, repeatedNames: validateOptions.strict === true };

  const renderer = new Renderer(context, kind === 'auto');
  const totals: Totals = { documents: 0, valid: 0, invalid: 0, errors: 0, warnings: 0 };
  const record: Recorder = (label, line, verdict, showValid) => {
    totals.documents++;
    if (verdict.valid) totals.valid++;
    else totals.invalid++;
    totals.errors += verdict.errors.length;
    totals.warnings += verdict.warnings.length;
    renderer.document(label, line, verdict, showValid);
  };
  const run: RunControl = { interrupted: false };
  const unsubscribe = io.onInterrupt(() => {
    if (run.interrupted) return;
    run.interrupted = true;
    output.warn('interrupted: reporting what was validated so far');
    run.reading?.destroy();
  });
  try {
    renderer.start();
    for (const source of sources) {
      if (isStreamed(source, options))
        await validateNdjson(source, validators, streamOptions, context, record, renderer, run);
      else {
        const verdict = await validateWhole(source, validators, wholeOptions, context, run);
        if (verdict) record(labelOf(source), undefined, verdict, true);
      }
      await renderer.flush();
      if (renderer.closed || run.interrupted) break;
    }
    renderer.finish(totals, run.interrupted);
    await renderer.flush();
  } finally {
    unsubscribe();
  }
  // An interrupted run has not shown every document valid: a gate must not pass on it.
  return totals.invalid === 0 && !run.interrupted ? 0 : 1;
}

/** Ctrl-C: stop reading (destroying the stream in use), then report what was validated. */
interface RunControl {
  interrupted: boolean;
  reading?: { destroy(): void };
}

function splitKind(kindArg: string | undefined, files: string[]): { kind: KindWord; files: string[] } {
  if (kindArg === undefined) return { kind: 'auto', files };
  if ((KIND_WORDS as readonly string[]).includes(kindArg)) return { kind: kindArg as KindWord, files };
  // The first word is a file: `cai validate job.json` (write ./job for a file named "job").
  return { kind: 'auto', files: [kindArg, ...files] };
}

function labelOf(source: string): string {
  return source === STDIN ? '<stdin>' : source;
}

async function checkReadable(
  source: string,
  { io }: CommandContext,
  firstWord: boolean,
  streamed: boolean,
): Promise<void> {
  if (source === STDIN) return;
  if (source === '') throw emptyPath('document');
  let info;
  try {
    info = await stat(resolve(io.cwd, source));
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (error) {
    if (firstWord && /^[a-z-]+$/i.test(source)) {
      // `cai validate evnt x.json`: more likely a mistyped kind than a file named "evnt".
      throw usageError(
        'usage',
        `${source} is neither a kind of document nor a file`,
        `the first word is one of ${KIND_WORDS.join(', ')}, or a file`,
        error,
      );
    }
    throw unreadable(source, 'document', error);
  }
  // One document a file: a regular file over the cap is refused before anything is validated (src/bounds.ts).
  if (!streamed && info.isFile() && info.size > INPUT_CAPS.document.bytes)
    throw tooLarge('document', `document file ${source}`, { size: info.size });
}

/** `--ndjson`, or a file named .ndjson / .jsonl: one document a line, streamed. */
function isStreamed(source: string, options: ValidateCommandOptions): boolean {
  return options.ndjson === true || /\.(ndjson|jsonl)$/i.test(source);
}

async function validateWhole(
  source: string,
  validators: Validators,
  options: ValidateOptions,
  { io }: CommandContext,
  run: RunControl,
): Promise<DocumentVerdict | undefined> {
  const stream = source === STDIN ? io.stdin : openInputStream(resolve(io.cwd, source));
  run.reading = stream;
  let bytes: Buffer;
  try {
    // Reading stops one byte past the cap: stdin, a pipe or /dev/zero is never read to exhaustion.
    const subject = source === STDIN ? 'the document on stdin' : `document file ${source}`;
    bytes = await readStreamCapped(stream, 'document', subject);
  } catch (error) {
    if (run.interrupted) return undefined;
    throw error instanceof CaiError && error.code === 'input_too_large' ? error : unreadable(source, 'document', error);
  } finally {
    run.reading = undefined;
  }
  if (run.interrupted) return undefined; // read only in part
  // As `cai sign`'s: an empty pipe is most often a command before cai that failed (`cat missing.json | cai validate`),
  // not a document; an empty file given by name is one, and invalid.
  if (source === STDIN && isWhiteSpace(bytes))
    throw usageError(
      'empty_input',
      `stdin ${bytes.length === 0 ? 'is empty' : 'holds only white space'}: there is no document to validate`,
      'pipe a document in (cai sample job | cai validate), or pass a file',
    );
  return validators.verdictOf(bytes, options);
}

/** Only JSON's white space (RFC 8259 §2), or nothing. */
function isWhiteSpace(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return true;
}

async function validateNdjson(
  source: string,
  validators: Validators,
  options: ValidateOptions,
  context: CommandContext,
  record: Recorder,
  renderer: Renderer,
  run: RunControl,
): Promise<void> {
  const { io, output } = context;
  const { isBlankLine, readNdjsonBatches } = await import('../../spec/ndjson.js');
  const label = labelOf(source);
  const stream = source === STDIN ? io.stdin : openInputStream(resolve(io.cwd, source), READ_CHUNK_BYTES);
  run.reading = stream;
  const spinner = await output.spinner(`validating ${label}`);
  let lastUpdate = io.now();
  let lines = 0;
  let bytes = 0;
  let stoppedAt: number | undefined;
  try {
    // A line over its cap stops the reading of this input (src/bounds.ts): an endless line is never read to its end.
    for await (const batch of readNdjsonBatches(stream as AsyncIterable<Buffer>, INPUT_CAPS.ndjsonLine.bytes, {
      stopAtOversize: true,
    })) {
      for (const line of batch) {
        lines = line.number;
        bytes += line.byteLength + 1;
        if (line.byteLength === 0 || (!line.oversize && isBlankLine(line.bytes))) continue; // blank lines separate nothing
        if (line.oversize) stoppedAt = line.number;
        const verdict = line.oversize
          ? validators.fast.unreadVerdict(line.byteLength, options, {
              subject: line.cut ? 'the line is at least' : 'the line is',
              advice: `a line is at most ${formatCap(INPUT_CAPS.ndjsonLine.bytes)}; reading ${label} stopped here`,
            })
          : validators.verdictOf(line.bytes, options);
        // A refused line waits for the schemas' messages (loaded once); the others go on at once.
        record(label, line.number, verdict instanceof Promise ? await verdict : verdict, false);
      }
      await renderer.flush(); // waits for a slow reader of stdout, so memory stays flat
      if (renderer.closed || run.interrupted) break;
      if (io.now() - lastUpdate > 200) {
        lastUpdate = io.now();
        spinner.update(`validating ${label}: line ${lines.toLocaleString('en')} (${formatBytes(bytes)})`);
      }
    }
  } catch (error) {
    spinner.stop();
    if (!run.interrupted) throw unreadable(source, 'document', error);
  } finally {
    run.reading = undefined;
  }
  spinner.stop();
  if (run.interrupted) output.note(`stopped at ${label}:${lines}`);
  if (stoppedAt !== undefined)
    output.warn(
      `${label}:${stoppedAt} is over the ${formatCap(INPUT_CAPS.ndjsonLine.bytes)} cap for one line; the rest of ${label} was not read`,
    );
  if (lines === 0) output.note(`${label} has no lines`);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

const KIND_LABELS: Record<DocumentKind | 'unknown', string> = {
  job: 'contact job',
  event: 'event',
  ack: 'job acknowledgment',
  'duplicate-ack': 'duplicate acknowledgment',
  unknown: 'document',
};

/**
 * Writes results as they come, awaiting 'drain' so a slow reader of stdout cannot make memory grow.
 * In --json mode the one JSON document is itself streamed: `{"documents":[…],"valid":…,"summary":…}`.
 */
class Renderer {
  private readonly out: PipeWriter;
  private first = true;
  private pending: string[] = [];

  constructor(
    private readonly context: CommandContext,
    private readonly auto: boolean,
  ) {
    this.out = pipeWriter(context.io.stdout);
  }

  /** The reader of stdout has gone (`| head`): nothing more can be shown, so validation stops. */
  get closed(): boolean {
    return this.out.closed;
  }

  /** Writes what has been rendered, waiting for 'drain' when stdout is behind. */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    // As Output writes: secrets masked, anything unsafe from the documents escaped.
    await this.out.write(this.context.output.printable(text));
  }

  start(): void {
    if (this.context.output.json) this.pending.push('{"documents":[');
  }

  document(label: string, line: number | undefined, verdict: DocumentVerdict, showValid: boolean): void {
    const { output } = this.context;
    // Nothing to show for a valid document without warnings (the usual case of a long NDJSON file): no work either.
    if (!output.json && verdict.valid && verdict.warnings.length === 0 && !showValid) return;
    const source = line === undefined ? label : `${label}:${line}`;
    if (output.json) {
      const entry: Record<string, unknown> = { source, kind: verdict.kind };
      if (verdict.eventType !== undefined) entry.eventType = verdict.eventType;
      entry.valid = verdict.valid;
      entry.errors = verdict.errors;
      entry.warnings = verdict.warnings;
      this.pending.push((this.first ? '' : ',') + jsonText(entry));
      this.first = false;
      return;
    }
    if (verdict.valid && verdict.warnings.length === 0 && !showValid) return;
    const { color } = output;
    const what = `${KIND_LABELS[verdict.kind]}${verdict.eventType ? ` ${verdict.eventType}` : ''}${this.auto && verdict.kind !== 'unknown' ? ' (detected by shape)' : ''}`;
    // Paths and values come from the document: escaped before anything is coloured.
    const lines = [
      `${safeText(source)}: ${verdict.valid ? color.green('valid') : color.red('invalid')} ${safeText(what)}`,
    ];
    for (const issue of verdict.errors) lines.push(`  ${safeText(describeIssue(issue))}`);
    for (const issue of verdict.warnings) lines.push(`  ${color.yellow('warning:')} ${safeText(describeIssue(issue))}`);
    // On a terminal, long issues wrap under their indent; piped, each stays one line.
    this.pending.push(lines.map((line) => output.fit(line, '    ')).join('\n') + '\n');
  }

  finish(totals: Totals, interrupted: boolean): void {
    if (this.context.output.json) {
      const tail = interrupted ? ',"interrupted":true' : '';
      this.pending.push(
        `],"valid":${totals.invalid === 0 && !interrupted},"summary":${JSON.stringify(totals)}${tail}}\n`,
      );
      return;
    }
    const stopped = interrupted ? '; interrupted, the rest was not validated' : '';
    this.pending.push(
      `${this.context.output.fit(`${plural(totals.documents, 'document')}: ${totals.valid} valid, ${totals.invalid} invalid (${plural(totals.errors, 'error')}, ${plural(totals.warnings, 'warning')})${stopped}`)}\n`,
    );
  }
}
