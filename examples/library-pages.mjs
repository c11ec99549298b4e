// The library API behind `cai mock … --ui`, `cai conformance run --role sender --html --summary` and
// `cai report --html`, imported by the package's own name. Run from the repository after `npm run build`:
//   node examples/library-pages.mjs
// It writes platform.ndjson (the mock's log), sender-report.html and operation-report.html in the current directory.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  InspectorStore,
  startInspectorServer,
  startMockPlatform,
  sendEvent,
  sampleEvent,
  reportFromLogs,
  runSenderConformance,
  renderConformanceHtml,
  renderJobSummary,
  renderOperationHtml,
} from 'cai-toolkit';

const secret = 'whsec_library_pages_secret';

// 1. The reference platform with its inspector: the store observes every request the mock answers.
const store = new InspectorStore();
const platform = await startMockPlatform({
  providerCode: 'acme',
  secrets: [secret],
  logFile: 'platform.ndjson',
  observe: store.observe,
});
const inspector = await startInspectorServer({
  kind: 'platform',
  store,
  mockUrl: platform.url,
  signing: { identity: 'provider', credentials: [{ code: 'acme', space: 'live', secrets: [secret] }] },
  postUrl: platform.url,
  secrets: [secret],
});
try {
  const event = Buffer.from(JSON.stringify(sampleEvent('conversation.message')));
  await sendEvent({ to: platform.url, body: event, secret, provider: 'acme' });
  await sendEvent({ to: platform.url, body: event, secret: 'whsec_wrong', provider: 'acme' }); // 401: not retried (§7)
  const list = await (await fetch(`${inspector.url}api/requests`)).json();
  console.log('inspector:', list.items.map((item) => `${item.status} ${item.verdict}`).join(', '));
} finally {
  await inspector.close();
  await platform.close();
}

// 2. Conformance of a sender: cai listens, the trigger makes the sender (here `cai send-event`) send.
const cai = `'${process.execPath}' '${fileURLToPath(new URL('../bin/cai.js', import.meta.url))}'`;
const report = await runSenderConformance({
  interface: 'B',
  identity: 'acme',
  secrets: [secret],
  trigger: `${cai} send-event --to "$CAI_TARGET_URL" --provider acme --sample --initial-delay 50ms --secret-env CAI_SECRET >/dev/null 2>&1`,
  env: { ...process.env, CAI_SECRET: secret },
  selection: { only: ['BS-RETRY-001'], skip: [], include: [] },
});
const retry = report.scenarios.find((scenario) => scenario.id === 'retry-5xx');
console.log('sender:', report.ok, retry.script, '→', retry.attempts.map((attempt) => attempt.answer).join(', '));

// 3. The pages: the HTML report and the job summary of that run, and an operation report with its charts.
writeFileSync('sender-report.html', renderConformanceHtml(report));
console.log(renderJobSummary(report).split('\n')[0]);
const operation = await reportFromLogs(['platform.ndjson'], { space: 'live' });
writeFileSync('operation-report.html', renderOperationHtml(operation));
console.log('pages written: sender-report.html operation-report.html');
