/** What the load engine's HTTP/1.1 client (wire.ts) is given and gives back, apart so its connection needs no import of the pool. */
export interface WireAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** At most LOAD_BOUNDS.answerBodyBytes of the body. */
  body: Buffer;
}

export interface WireCallbacks {
  answered(answer: WireAnswer): void;
  /** No answer: the errno (ECONNREFUSED…), `timeout`, or `bad_response` for what is not HTTP/1.x. */
  failed(code: string): void;
}

export interface WireOptions {
  url: URL;
  /** Extra authority to trust (PEM), beside Node's bundled ones. */
  ca?: Buffer;
  insecure?: boolean;
  /** A request whose answer is not whole this long after it was written fails (connecting, headers and body). */
  timeoutMs: number;
}
