/**
 * The shapes of a diagnosis, as a report carries them: plain data (no Buffers), rendered by every reporter and
 * printed by `--json`. A refusal diagnosis stops a receiver run whose first valid, correctly signed request was
 * refused; a cause groups the failures of any run that one cause explains.
 */

/** One diagnostic request: the same valid document, signed one way, and what the receiver answered. */
export interface SigningTrial {
  /** The signing's id: `raw` (the correct one), `wrong-secret`, `python-json-dumps`, `no-dot` … */
  variant: string;
  /** How it was signed, in words: `over the raw bytes (correctly)`, `over json.dumps(json.loads(body))` … */
  signed: string;
  /** The answer, as the checks describe it: `401 {"error":"bad signature"}`, `no response (timeout: …)`. */
  answer: string;
  status?: number;
  accepted: boolean;
}

/** What signing the same valid request differently showed. */
export interface SignatureFinding {
  /** The first signing the receiver accepted, and what that says; absent when it accepted none. */
  cause?: {
    variant: string;
    /** `your receiver accepts the signature computed over …: it must verify over the raw bytes (§5.2)`. */
    message: string;
    sections: readonly string[];
    /** The answer that accepted it. */
    answer: string;
  };
  /**
   * Set when a request with a wrong signature got another answer than the correct one: the receiver tells them
   * apart, so the signature is not what it refuses.
   */
  signatureAccepted?: { wrongSignatureAnswer: string };
  /** What the signings refused rule out, one phrase per family: `re-serialisations of the body (json.dumps, …)`. */
  ruledOut: string[];
  /** Every diagnostic request, in the order sent. */
  trials: SigningTrial[];
}

/** Why a receiver run stopped before its checks: its first valid, correctly signed request was refused. */
export interface RefusalDiagnosis extends SignatureFinding {
  /** The first valid, correctly signed request: what it got, and what the spec expects. */
  refused: { expected: string; actual: string; status?: number };
  /** When no cause was named: the likely causes left, most likely first. */
  remaining: string[];
  /** The checks the run would have judged, none of them run. */
  notRun: number;
}

/** Failures of one run that one cause explains, reported once. */
export interface FailureCause {
  /** `cause-1`, `cause-2` … in the order of the report. */
  id: string;
  /**
   * `valid-refused`: valid, correctly signed requests refused with the same answer (whatever each check probed);
   * `same-answer`: checks of the same kind (area and tags) that expected the same answer and got the same other one.
   */
  kind: 'valid-refused' | 'same-answer';
  verdict: 'failed' | 'warning';
  /** One line: what the checks have in common. */
  summary: string;
  expected: string;
  /** The first check's actual answer (the others differ at most in identifiers and numbers). */
  actual: string;
  /** The ids of the checks it explains, in report order. */
  checks: string[];
  /** A refusal of valid requests, diagnosed by signing one of them differently. */
  diagnosis?: SignatureFinding;
}
