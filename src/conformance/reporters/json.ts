/**
 * `--json`: the report as one JSON document, the run's exit verdict (`ok`) and what fails it (`failOn`) included.
 * Characters that would end a line or a script in a page (U+2028, `</script>`) are escaped by jsonText.
 */
import { jsonText } from '../../output/safe-text.js';
import type { ReportView } from '../types.js';

export function renderJson(report: ReportView): string {
  return jsonText(report, 2);
}
