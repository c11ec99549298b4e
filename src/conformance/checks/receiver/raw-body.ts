/**
 * §5.2: the signature covers the raw body exactly as transmitted. Each framing is valid JSON that a verifier
 * which re-serialises the parsed body would sign differently; a receiver must accept every one of them.
 * Both interfaces, one row per framing (`<interface>-SIG-nnn`).
 */
import type { CheckMeta } from '../../check.js';
import { compact, escapedField, looseLayout, NON_ASCII_TEXT, reversedKeys, type Doc } from '../../probe/bodies.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import { checkId, forBoth, probeOn } from './receivers.js';

/** A framing; its title says what the body does, after "the signature covers the raw bytes: ". */
type Framing = Pick<CheckMeta, 'id' | 'title' | 'sections' | 'clauses'> & {
  /** The body as sent, from a valid document and the name of its free-text field. */
  frame(doc: Doc, textField: string): Buffer;
};

const FRAMINGS: readonly Framing[] = [
  {
    id: 'SIG-001',
    title: 'odd whitespace, tabs and CRLF are accepted',
    sections: ['§5.2', '§5.3'],
    clauses: ['§5.2-1', '§5.2-2'],
    frame: (doc) => Buffer.from(looseLayout(doc), 'utf8'),
  },
  {
    id: 'SIG-002',
    title: 'keys in an unusual order are accepted',
    sections: ['§5.2'],
    clauses: ['§5.2-1', '§5.2-2'],
    frame: (doc) => compact(reversedKeys(doc)),
  },
  {
    id: 'SIG-003',
    title: '\\u escapes and \\/ in strings are accepted',
    sections: ['§5.2', '§2'],
    clauses: ['§5.2-1', '§5.2-2', '§2-1'],
    frame: (doc, field) => Buffer.from(escapedField({ ...doc, [field]: NON_ASCII_TEXT }, field), 'utf8'),
  },
  {
    id: 'SIG-004',
    title: 'non-ASCII UTF-8 text is accepted',
    sections: ['§5.2', '§2', '§2.1'],
    clauses: ['§5.2-1', '§5.2-2', '§2-2'],
    frame: (doc, field) => compact({ ...doc, [field]: NON_ASCII_TEXT }),
  },
  {
    id: 'SIG-005',
    title: 'a trailing newline after the JSON is accepted',
    sections: ['§5.2'],
    clauses: ['§5.2-1', '§5.2-2'],
    frame: (doc) => Buffer.concat([compact(doc), Buffer.from('\n')]),
  },
];

export const rawBody = forBoth((receiver) =>
  FRAMINGS.map((framing) =>
    probeOn(receiver, checkId(receiver, framing.id), {
      sections: framing.sections,
      clauses: framing.clauses,
      tags: ['signature', 'raw-body'],
      title: `the signature covers the raw bytes: ${framing.title}`,
      send: (scope) => ({ body: framing.frame(receiver.document(scope), receiver.textField) }),
    }),
  ),
);

/**
 * Every way a valid body can be framed on the wire that the spec does not rule out: chunked transfer encoding
 * instead of Content-Length (RFC 9112 §7.1; a server may still answer 411, RFC 9110 §15.5.12), and
 * `Content-Type: application/json; charset=utf-8` (§2 names `application/json`; RFC 8259 §11: a charset
 * parameter "has no effect on compliant recipients"). Both are `should`: the spec's own words do not require them.
 */
type Wire = Pick<CheckMeta, 'id' | 'title' | 'sections' | 'clauses'> & { frame(body: Buffer): RequestRecipe };

const WIRE_FRAMINGS: readonly Wire[] = [
  {
    id: 'FRAME-001',
    title: 'a body sent with chunked transfer encoding (no Content-Length) is accepted',
    sections: ['§2', '§4.1', '§4.2'],
    clauses: ['§2-1'],
    frame: (body) => ({ body, chunked: true }),
  },
  {
    id: 'FRAME-002',
    title: 'Content-Type: application/json; charset=utf-8 is accepted',
    sections: ['§2', '§4.1', '§4.2'],
    clauses: ['§2-3'],
    frame: (body) => ({ body, contentType: 'application/json; charset=utf-8' }),
  },
];

export const framing = forBoth((receiver) =>
  WIRE_FRAMINGS.map((row) =>
    probeOn(receiver, checkId(receiver, row.id), {
      level: 'should',
      sections: row.sections.filter((section) => section === '§2' || section === receiver.spec.section),
      clauses: row.clauses,
      tags: ['framing', 'acceptance'],
      title: row.title,
      send: (scope) => row.frame(compact(receiver.document(scope))),
    }),
  ),
);
