/**
 * A diagnosis and a cause as every reporter words them: a title and labelled rows, plain text (each reporter
 * escapes it for its format). The cause comes first: it is what the reader acts on.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { FailureCause, RefusalDiagnosis, SignatureFinding } from './types.js';
import { optionName } from '../../errors.js';
import { plural } from '../../text.js';

export interface Block {
  title: string;
  /** Label and text; a row with an empty label continues the one before. */
  rows: [string, string][];
}

/** The block of a run stopped by a refusal diagnosis. */
export function diagnosisBlock(diagnosis: RefusalDiagnosis, iface: InterfaceId): Block {
  const name = interfaceSpec(iface).documentName;
  const notRun = `the suite not run (${plural(diagnosis.notRun, 'check')})`;
  const title = diagnosis.cause
    ? `valid, correctly signed ${name}s are refused: diagnosed, ${notRun}`
    : diagnosis.signatureAccepted
      ? `valid, correctly signed ${name}s are refused, though their signature is right: ${notRun}`
      : `valid, correctly signed ${name}s are refused, however cai signs them: ${notRun}`;
  const rows: [string, string][] = [];
  if (diagnosis.cause) rows.push(['cause', diagnosis.cause.message]);
  rows.push([
    'refused',
    `a valid ${name} signed over its raw bytes got ${diagnosis.refused.actual} (expected ${diagnosis.refused.expected})`,
  ]);
  rows.push(...findingRows(diagnosis, name));
  diagnosis.remaining.forEach((cause, index) => rows.push([index === 0 ? 'likely' : '', cause]));
  if (!diagnosis.cause && diagnosis.ruledOut.length > 0) rows.push(['excluded', diagnosis.ruledOut.join('; ')]);
  rows.push([
    'requests',
    `${diagnosis.trials.length} diagnostic requests, the same ${name} signed each way (${optionName('json')} lists them)`,
  ]);
  return { title, rows };
}

/** What signing it differently showed: the signing accepted, or the answer that tells a wrong signature apart. */
function findingRows(finding: SignatureFinding, name: string): [string, string][] {
  const accepted = finding.cause ? finding.trials.find((trial) => trial.variant === finding.cause?.variant) : undefined;
  if (accepted && finding.cause)
    return [['accepted', `the same ${name} signed ${accepted.signed}: ${finding.cause.answer}`]];
  if (finding.signatureAccepted)
    return [
      [
        'note',
        `a wrong signature gets another answer (${finding.signatureAccepted.wrongSignatureAnswer}): the signature is not what is refused`,
      ],
    ];
  return [];
}

/** The block of failures one cause explains. */
export function causeBlock(cause: FailureCause): Block {
  const rows: [string, string][] = [];
  if (cause.diagnosis?.cause) rows.push(['cause', cause.diagnosis.cause.message]);
  rows.push(['expected', cause.expected], ['actual', cause.actual]);
  if (cause.diagnosis) rows.push(...findingRows(cause.diagnosis, 'request'));
  rows.push(['checks', cause.checks.join(', ')]);
  return { title: cause.summary, rows };
}

/** Each check's cause, by check id. */
export function causesByCheck(causes: readonly FailureCause[] | undefined): Map<string, FailureCause> {
  return new Map((causes ?? []).flatMap((cause) => cause.checks.map((id) => [id, cause] as const)));
}

/** A block's rows as plain lines, `label: text` (a continuation without its label). */
export function rowLines(block: Block): string[] {
  return block.rows.map(([label, value]) => `${label === '' ? '' : `${label}: `}${value}`);
}
