/** A deliberate fault of a zoo program: its `--fault` name, the spec clause it breaks, and what it does. */
export interface ZooFault {
  name: string;
  clause: string;
  description: string;
}

export declare const SENDER_FAULTS: ZooFault[];
export declare const B_RECEIVER_FAULTS: ZooFault[];
export declare const A_RECEIVER_FAULTS: ZooFault[];
export declare const PYTHON_B_RECEIVER_FAULTS: ZooFault[];
