// The library API end to end, imported by the package's own name: sign and verify, validate a sample,
// start the reference platform, send it an event with the retry policy, and run the conformance suite on it.
// Run from the repository after `npm run build`:  node examples/library.mjs
import { sign, verify, sampleEvent, validateDocument, startMockPlatform, sendEvent, runConformance } from 'cai-toolkit';

const secret = 'whsec_library_example_secret';
const event = sampleEvent('conversation.message');
const body = Buffer.from(JSON.stringify(event));

// §5: sign the exact bytes; verify them.
const timestamp = Math.floor(Date.now() / 1000);
const signature = sign(secret, timestamp, body);
console.log('verify:', verify({ secrets: [secret], signature, timestamp, rawBody: body }).reason);

// §2: validate a document.
console.log('valid:', validateDocument(event).valid);

// A reference receiver, an event sent to it, and the conformance suite against it.
const platform = await startMockPlatform({ providerCode: 'acme', secrets: [secret] });
try {
  const sent = await sendEvent({ to: platform.url, body, secret, provider: 'acme' });
  console.log('send:', sent.verdict, sent.delivery.attempts.length, 'attempt(s)');
  const again = await sendEvent({ to: platform.url, body, secret, provider: 'acme' });
  console.log('again:', again.verdict);
  const report = await runConformance({
    interface: 'B',
    target: platform.url,
    identity: 'acme',
    secrets: [secret],
    selection: { only: ['dedupe', 'auth'], skip: [], include: [] },
  });
  console.log('conformance:', report.ok, JSON.stringify(report.summary));
} finally {
  await platform.close();
}
