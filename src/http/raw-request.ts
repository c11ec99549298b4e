import { HeaderNames } from '../spec/constants.js';

/**
 * Parses a raw HTTP/1.1 request as captured (request line, headers, blank line, body), keeping the
 * body as the exact bytes received: signatures cover those bytes (§5.2). Used by `cai verify --request`
 * and `cai replay`. Returns a result; never throws.
 */

export interface RawRequest {
  method: string;
  target: string;
  httpVersion: string;
  /** Header names lowercased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Header lines as captured, in order, for faithful re-sending. */
  headerLines: [string, string][];
  body: Buffer;
  /** Things worth telling the user about the capture (extra bytes, missing bytes). */
  notes: string[];
}

type ParseRawRequestResult = { ok: true; request: RawRequest } | { ok: false; message: string };

const REQUEST_LINE = /^([A-Z]+) (\S+) (HTTP\/\d(?:\.\d)?)$/;

export function parseRawRequest(bytes: Buffer): ParseRawRequestResult {
  const crlf = bytes.indexOf('\r\n\r\n');
  const lf = bytes.indexOf('\n\n');
  const crlfFirst = crlf !== -1 && (lf === -1 || crlf < lf);
  const headEnd = crlfFirst ? crlf : lf;
  if (headEnd === -1) return { ok: false, message: 'no blank line between the headers and the body' };
  const separatorLength = crlfFirst ? 4 : 2;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const lines = head.split(/\r?\n/);
  // The inspector's capture of a request it cut at its bounds begins with `# ` lines saying so: not the request.
  if (lines[0]?.startsWith('# '))
    return {
      ok: false,
      message:
        "the first lines are comments (`# `): an inspector's capture of a request it cut at its bounds, not the request as received",
    };
  const requestLine = lines.shift() ?? '';
  const match = REQUEST_LINE.exec(requestLine.trim());
  // Where and what, never the bytes: the file may be a secret given by mistake.
  if (!match)
    return { ok: false, message: 'the first line is not an HTTP request line (such as POST /events HTTP/1.1)' };

  const headers: Record<string, string> = {};
  const headerLines: [string, string][] = [];
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, message: `line ${index + 2} is not a header line of the form "name: value"` };
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    headerLines.push([name, value]);
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }

  if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
    return {
      ok: false,
      message: 'chunked transfer encoding is not supported; capture the request with a Content-Length body',
    };
  }

  let body = bytes.subarray(headEnd + separatorLength);
  const notes: string[] = [];
  // §4.1, §4.2: one of each signed header. A server reads repeats as one value joined with ", ", which is then no
  // signature or timestamp at all: say so, rather than leave "malformed" unexplained.
  for (const name of [HeaderNames.signature, HeaderNames.timestamp]) {
    const count = headerLines.filter(([captured]) => captured.toLowerCase() === name.toLowerCase()).length;
    if (count > 1)
      notes.push(`the capture has ${count} ${name} headers (§4 sends one); read as one value, joined with ", "`);
  }
  const declared = headers['content-length'];
  if (declared !== undefined && !/^[0-9]+$/.test(declared)) {
    // RFC 9110 §8.6: Content-Length = 1*DIGIT. Not echoed: where and what, never the bytes.
    notes.push(
      'Content-Length is not a number of bytes (RFC 9110 §8.6: digits only); the body is every byte after the headers',
    );
  } else if (declared !== undefined) {
    const length = Number(declared);
    // One line break after the body is how a file ends (an editor's, or an older `cai … --dry-run > file`): not worth a note.
    const extra = body.subarray(length).toString('latin1');
    if (extra === '\n' || extra === '\r\n') {
      body = body.subarray(0, length);
    } else if (body.length > length) {
      notes.push(
        `the capture has ${body.length - length} byte(s) after the ${length} declared by Content-Length; they were left out`,
      );
      body = body.subarray(0, length);
    } else if (body.length < length) {
      notes.push(
        `Content-Length says ${asWritten(declared)} bytes but the capture holds ${body.length}; the capture may be cut short`,
      );
    }
  }
  return {
    ok: true,
    request: {
      method: match[1] as string,
      target: match[2] as string,
      httpVersion: match[3] as string,
      headers,
      headerLines,
      body: Buffer.from(body),
      notes,
    },
  };
}

/**
 * A Content-Length as its digits, without leading zeros: past 2^53 a Number would show another value (1e+23), and
 * past 64 digits only the first 64 and their count are shown.
 */
function asWritten(digits: string): string {
  const number = digits.replace(/^0+(?=[0-9])/, '');
  return number.length > 64 ? `${number.slice(0, 64)}… (${number.length} digits)` : number;
}
