import { E164_PATTERN } from './formats.js';
import { usageError } from '../errors.js';
import { readFileCapped } from '../input.js';
import { asObject } from './json.js';
import { jsonOrUsageError } from './json-text.js';

/** A catalog entry (§2.2): the platform's branch_code and name, plus, for the provider mock, its origin number. */
export interface CatalogBranch {
  branch_code: string;
  name: string;
  /** The provider's origin number for this unit (§3 step 4), E.164. */
  number_e164?: string;
}

/**
 * The one reader of branch catalogs (§1: issued per deployment), for `cai validate --catalog` and the mocks alike.
 * Reads a catalog file: a JSON array of `{branch_code, name, number_e164?}`, or an object with such an array
 * under `branches`. Anything else is a usage error naming the first problem. `read` reads the file (the commands
 * pass theirs, which takes `-` for stdin); by default, at most INPUT_CAPS.catalog bytes of the path (src/bounds.ts),
 * a file that cannot be read a usage error in words.
 */
export async function loadCatalog(
  path: string,
  read: (path: string) => Promise<Buffer> | Buffer = (file) => readFileCapped(file, 'catalog'),
): Promise<CatalogBranch[]> {
  const text = (await read(path)).toString('utf8');
  const value = jsonOrUsageError(
    text,
    'bad_catalog',
    (failure) => `the catalog ${path} is not JSON: ${failure}`,
    'write it as [{"branch_code": "MAD-01", "name": "Madrid Centro", "number_e164": "+34910000001"}]',
  );
  const list = Array.isArray(value) ? value : asObject(value)?.branches;
  if (!Array.isArray(list)) {
    throw usageError(
      'bad_catalog',
      `the catalog ${path} is not a list of branches`,
      'write it as a JSON array of {"branch_code", "name", "number_e164"} objects (or {"branches": [...]})',
    );
  }
  if (list.length === 0)
    throw usageError(
      'bad_catalog',
      `the catalog ${path} is empty`,
      'list at least one {"branch_code", "name"}: an empty catalog would refuse every branch_code',
    );
  return list.map((item: unknown, index) => toBranch(item, index, path));
}

function toBranch(item: unknown, index: number, path: string): CatalogBranch {
  const fail = (what: string) =>
    usageError(
      'bad_catalog',
      `the catalog ${path}, entry ${index + 1}: ${what}`,
      'each entry needs a string branch_code; name and number_e164 (E.164, e.g. +34910000001) are optional',
    );
  if (typeof item !== 'object' || item === null) throw fail('not an object');
  const entry = item as Record<string, unknown>;
  if (typeof entry.branch_code !== 'string' || entry.branch_code === '')
    throw fail('branch_code is missing or not a string');
  const number = entry.number_e164 ?? entry.assigned_number_e164;
  if (number !== undefined && (typeof number !== 'string' || !E164_PATTERN.test(number)))
    throw fail(`number_e164 ${JSON.stringify(number)} is not E.164`);
  return {
    branch_code: entry.branch_code,
    name: typeof entry.name === 'string' ? entry.name : entry.branch_code,
    ...(typeof number === 'string' ? { number_e164: number } : {}),
  };
}
