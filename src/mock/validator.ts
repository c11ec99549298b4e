import type { validateBody, validateDocument } from '../spec/validate.js';

/** The records API's validators (§2), loaded on demand: zod is the slowest part of a mock's start. */
export interface Validator {
  validateBody: typeof validateBody;
  validateDocument: typeof validateDocument;
}

export async function loadValidator(): Promise<Validator> {
  const { validateBody, validateDocument } = await import('../spec/validate.js');
  return { validateBody, validateDocument };
}
