/**
 * What an interrupted conformance run's report holds, said once, in the warning given when Ctrl-C comes (the receiver
 * role in ./receiver.ts, the sender role in ./sender.ts), not again under the report.
 * Plain text, imported statically: the warning's listener is subscribed before anything else is awaited.
 */
export const INTERRUPTED_REPORT = 'the checks not run are reported as skipped, those cut short as not judged';
