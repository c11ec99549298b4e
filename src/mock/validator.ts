import type { validateBody, validateDocument } from '../spec/validate.js';

/** The records API's validators (§2), loaded on demand: zod is the slowest part of a mock's start. */
export interface Validator {
  validateBody: typeof validateBody;
  validateDocument: typeof validateDocument;
  /** §2.4–§2.7: every field the schema of some event names (`reject-unknown-fields` refuses any other). */
  eventFields: ReadonlySet<string>;
}

/**
 * Starts loading the validators now (while the server starts listening: the URL is out before they are ready)
 * and returns how to get them once they are needed.
 */
export function preloadValidator(): () => Validator | Promise<Validator> {
  let loaded: Validator | undefined;
  const loading = Promise.all([import('../spec/validate.js'), import('../spec/schemas.js')]).then(
    ([{ validateBody, validateDocument }, { EventSchemas }]) => {
      const eventFields = new Set(Object.values(EventSchemas).flatMap((schema) => Object.keys(schema.shape)));
      return (loaded = { validateBody, validateDocument, eventFields });
    },
  );
  loading.catch(() => {});
  return () => loaded ?? loading;
}
