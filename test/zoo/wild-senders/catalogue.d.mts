/** One run of a wild sender: a trigger of `cai conformance run --role sender` (the runner appends `--identity CODE`). */
export interface WildSender {
  id: string;
  interface: 'A' | 'B';
  role: 'sender';
  kind: 'broken' | 'correct';
  /** The sender relation (relations.md, S1–S7) the fault breaks, or whose latitude a correct one uses. */
  relation: 'S1' | 'S2' | 'S3' | 'S4' | 'S5' | 'S6' | 'S7';
  clause: string;
  description: string;
  /** [interpreter, ...args], paths relative to the repository root. */
  command: string[];
  /** How many documents one run sends. */
  count: number;
}

export interface WildFault {
  name: string;
  interface: 'A' | 'B';
  relation: WildSender['relation'];
  clause: string;
  description: string;
}

export declare const PYTHON_FAULTS: WildFault[];
export declare const BROKEN: WildSender[];
export declare const CORRECT: WildSender[];
export declare const CATALOGUE: WildSender[];
export default CATALOGUE;
