/**
 * What may go into an HTTP header (RFC 9110 §5.1 field names, §5.5 field values), checked once, before any
 * request, capture or curl line is built: the X-CAI-Provider and X-CAI-Source values of §4.1/§4.2 come
 * from flags and profiles, and a CR or LF in one (`--provider $'acme\r\nX-Evil: 1'`) would add a header to a
 * `--dry-run` capture that `cai replay` then sends, or to a curl command. Pure, no imports.
 *
 * field-value = *( field-vchar / SP / HTAB ), no SP or HTAB at either end; field-vchar = VCHAR / obs-text. cai is
 * stricter than obs-text: a value is ASCII (RFC 9110 §5.5: new fields SHOULD limit their values to US-ASCII), so it
 * arrives as the same bytes whatever the receiver's decoding.
 */

/** RFC 9110 §5.6.2 token: the characters of a field name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export type HeaderValueProblemCode = 'control_character' | 'non_ascii' | 'surrounding_whitespace';

export interface HeaderValueProblem {
  code: HeaderValueProblemCode;
  /** What is wrong, in words: `holds a line feed (LF) at character 5`. */
  message: string;
}

const NAMED_CONTROLS: Record<number, string> = {
  0x00: 'a NUL byte',
  0x0a: 'a line feed (LF)',
  0x0d: 'a carriage return (CR)',
  0x1b: 'an escape character (ESC)',
  0x7f: 'a delete character (DEL)',
};

/** Why `value` cannot be a header value, or undefined when it can (an empty value can: RFC 9110 §5.5). */
export function headerValueProblem(value: string): HeaderValueProblem | undefined {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) {
      const name =
        NAMED_CONTROLS[code] ?? `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      return {
        code: 'control_character',
        message: `holds ${name} at character ${index + 1}: a header value cannot hold control characters (RFC 9110 §5.5)`,
      };
    }
    if (code > 0x7e)
      return {
        code: 'non_ascii',
        message: `holds a non-ASCII character at character ${index + 1}: header values are ASCII (RFC 9110 §5.5)`,
      };
  }
  if (/^[ \t]|[ \t]$/.test(value))
    return {
      code: 'surrounding_whitespace',
      message:
        'starts or ends with whitespace, which HTTP strips (RFC 9110 §5.5): the receiver would not get it as given',
    };
  return undefined;
}

export function isHeaderValue(value: string): boolean {
  return headerValueProblem(value) === undefined;
}

/** RFC 9110 §5.1: a field name is a token. */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

/** The first header of `headers` that cannot be sent, and why; undefined when every one can. */
export function headerProblem(
  headers: Iterable<readonly [string, string]>,
): { name: string; problem: string } | undefined {
  for (const [name, value] of headers) {
    if (!isHeaderName(name))
      return { name, problem: "is not a header name (RFC 9110 §5.1: letters, digits and !#$%&'*+-.^_`|~ only)" };
    const problem = headerValueProblem(value);
    if (problem) return { name, problem: `value ${problem.message}` };
  }
  return undefined;
}
