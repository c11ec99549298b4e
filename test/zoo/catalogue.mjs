// The zoo's deliberate faults, one table for each program that takes `--fault NAME`: `{name, clause, description}`.
export { FAULTS as SENDER_FAULTS } from './node/sender.mjs';
export { FAULTS as B_RECEIVER_FAULTS } from './node/receiver-b.mjs';
export { FAULTS as A_RECEIVER_FAULTS } from './node/receiver-a.mjs';

/** The faults of python/receiver_b.py: the usual first-day mistake, verifying over re-serialised JSON (§5.2). */
export const PYTHON_B_RECEIVER_FAULTS = [
  {
    name: 'reserialised',
    clause: '§5.2',
    description:
      "verifies the signature over json.dumps(json.loads(body)), Python's re-serialisation, not the raw bytes",
  },
  {
    name: 'compact',
    clause: '§5.2',
    description:
      'verifies the signature over json.dumps(obj, separators=(",", ":")), the compact form, not the raw bytes',
  },
];
