/**
 * Headers as one flat record, for the client's answers and the receivers' requests alike: names lowercased, a
 * repeated header's values joined with ", " (as Node joins them, RFC 9110 §5.3), absent ones left out. No imports.
 */
export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
