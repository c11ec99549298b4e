/**
 * Every way a valid body can be framed on the wire that the spec does not rule out: chunked transfer encoding
 * instead of Content-Length (RFC 9112 §7.1; a server may still answer 411, RFC 9110 §15.5.12), and
 * `Content-Type: application/json; charset=utf-8` (§2 names `application/json`; RFC 8259 §11: a charset
 * parameter "has no effect on compliant recipients"). Both are `should`: the spec's own words do not require them.
 * How the body's JSON is laid out is raw-body.ts.
 */
import type { CheckMeta } from '../../check.js';
import { compact } from '../../probe/bodies.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import { checkId, forBoth, probeOn } from './receivers.js';

type Framing = Pick<CheckMeta, 'id' | 'title' | 'sections' | 'clauses'> & { frame(body: Buffer): RequestRecipe };

const FRAMINGS: readonly Framing[] = [
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
  FRAMINGS.map((row) =>
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
