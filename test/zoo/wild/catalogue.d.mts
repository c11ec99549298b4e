/** One program of the wild zoo, started as `command` (from the repository root) with `env` added. */
export interface WildEntry {
  id: string;
  interface: 'A' | 'B';
  role: 'receiver';
  /** broken: one mistake (relation and clause: what it breaks); correct: a latitude (where it lies). */
  kind: 'broken' | 'correct';
  relation: string;
  clause: string;
  description: string;
  command: string[];
  env: Record<string, string>;
  /** false: judged on demand, not in CI's run of every entry (ON_DEMAND). */
  ci?: false;
}

/** A fault of receiver_b.py or receiver-a.mjs: its `--fault` name. */
export interface WildFault {
  name: string;
  relation: string;
  clause: string;
  description: string;
}

export declare const B_PROVIDER: string;
export declare const B_SECRET: string;
export declare const A_SOURCE: string;
export declare const A_PROVIDER: string;
export declare const A_JOBS_SECRET: string;
export declare const A_EVENTS_SECRET: string;
export declare const B_FAULTS: WildFault[];
export declare const A_FAULTS: WildFault[];
export declare const ON_DEMAND: ReadonlySet<string>;
export declare const catalogue: WildEntry[];
export default catalogue;
