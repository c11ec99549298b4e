/** A deliberate fault of a zoo program: its `--fault` name, the spec clause it breaks, and what it does. */
export interface ZooFault {
  name: string;
  clause: string;
  description: string;
  /** A sender's fault: the answers of the scripted judge that show it apart from cai (zoo.test.ts), and how many runs. */
  witness?: (200 | 201 | 202 | 204 | 400 | 500 | 503 | 'cut' | '429-date')[];
  runs?: number;
}

export declare const SENDER_FAULTS: ZooFault[];
export declare const B_RECEIVER_FAULTS: ZooFault[];
export declare const A_RECEIVER_FAULTS: ZooFault[];
export declare const PYTHON_B_RECEIVER_FAULTS: ZooFault[];
