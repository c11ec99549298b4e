#!/usr/bin/env bash
# The exported Artillery project, run for real (a CI step beside `npm test`; docs/load.md): installs Artillery 2.0.21
# (the last release that runs on Node 20) into a temporary folder, never into the project's package.json or lockfile;
# starts `cai mock platform --log F`; writes the project with `cai load export --engine artillery`; runs it for a few
# seconds; then checks from the mock's log (`cai report --log F --format json`) and its request lines that every
# request was accepted (0 rejected) and every repeat recognised as a duplicate, and that the counts agree with
# Artillery's own. Exit 0 when all hold, 1 otherwise. Needs the built binary (npm run build) and the npm registry.
#
# CAI_ARTILLERY_PREFIX=DIR reuses an install of artillery@2.0.21 in DIR (node_modules/.bin/artillery) instead of
# installing one; it must be that version.
set -euo pipefail
cd "$(dirname "$0")/.."

ARTILLERY_VERSION=2.0.21
RATE=20
SECONDS_RUN=5
work="$(mktemp -d "${TMPDIR:-/tmp}/cai-artillery-e2e.XXXXXX")"
mock_pid=''
cleanup() {
  if [ -n "$mock_pid" ] && kill -0 "$mock_pid" 2>/dev/null; then
    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf 'artillery-e2e: %s\n' "$*"; }
fail() { printf 'artillery-e2e: FAILED: %s\n' "$*" >&2; exit 1; }

prefix="${CAI_ARTILLERY_PREFIX:-$work/artillery}"
if [ -z "${CAI_ARTILLERY_PREFIX:-}" ]; then
  say "installing artillery@$ARTILLERY_VERSION into $prefix (no browser: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1)"
  mkdir -p "$prefix"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 900 npm install --prefix "$prefix" --no-save --no-package-lock \
    --no-audit --no-fund --loglevel=error "artillery@$ARTILLERY_VERSION" >"$work/npm.log" 2>&1 ||
    { cat "$work/npm.log" >&2; fail "npm install artillery@$ARTILLERY_VERSION"; }
fi
artillery="$prefix/node_modules/.bin/artillery"
installed="$(node -p "require('$prefix/node_modules/artillery/package.json').version")"
[ "$installed" = "$ARTILLERY_VERSION" ] || fail "artillery $installed in $prefix, not $ARTILLERY_VERSION"

export CAI_SECRET="whsec_artillery_e2e_$(node -p "require('node:crypto').randomBytes(8).toString('hex')")"
log="$work/mock.ndjson"
node bin/cai.js mock platform --provider acme --port 0 --log "$log" --json >"$work/mock.out" 2>"$work/mock.err" &
mock_pid=$!
for _ in $(seq 1 200); do
  [ -s "$work/mock.out" ] && break
  kill -0 "$mock_pid" 2>/dev/null || { cat "$work/mock.err" >&2; fail 'the mock did not start'; }
  sleep 0.1
done
url="$(head -1 "$work/mock.out" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).url')"
say "mock platform at $url"

node bin/cai.js load export --engine artillery --out "$work/project" --to "$url" --provider acme \
  --rate "$RATE/s" --duration "${SECONDS_RUN}s" --repeat 10% --mix conversation.message=80,job.closed=20 \
  --threshold 'http_req_duration: p(99)<5000' --threshold 'status=401 == 0' --threshold 'rate(status=5xx) < 0.005' \
  --threshold 'repeats_unrecognised: count == 0'

say "running artillery $ARTILLERY_VERSION: $RATE/s for ${SECONDS_RUN} s"
status=0
(cd "$work/project" &&
  ARTILLERY_DISABLE_TELEMETRY=true timeout 180 "$artillery" run cai-load.yml --output "$work/artillery.json") \
  >"$work/artillery.log" 2>&1 || status=$?
tail -n 12 "$work/artillery.log"
[ "$status" = 0 ] || {
  cat "$work/artillery.log" >&2
  fail "artillery run exited $status (a failed ensure condition exits 1)"
}

kill "$mock_pid"
wait "$mock_pid" 2>/dev/null || true
mock_pid=''

node bin/cai.js report --log "$log" --format json >"$work/report.json"
node - "$work" <<'EOF'
const { readFileSync } = require('node:fs');
const work = process.argv[2];
const counters = JSON.parse(readFileSync(`${work}/artillery.json`, 'utf8')).aggregate.counters;
const report = JSON.parse(readFileSync(`${work}/report.json`, 'utf8'));
const lines = readFileSync(`${work}/mock.out`, 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line));
const verdicts = {};
for (const line of lines) verdicts[line.verdict] = (verdicts[line.verdict] ?? 0) + 1;
const sent = counters['http.requests'] ?? 0;
const repeats = counters['cai.repeats_sent'] ?? 0;
const facts = {
  'requests Artillery sent': sent,
  'answered 202 (Artillery)': counters['http.codes.202'] ?? 0,
  'repeats sent (processor)': repeats,
  'duplicates confirmed (processor)': counters['cai.duplicates_confirmed'] ?? 0,
  'requests the mock answered': lines.length,
  'rejected by the mock': verdicts.rejected ?? 0,
  'accepted in the log (cai report)': report.records.used,
  'duplicates in the log (cai report)': report.records.duplicates,
  'failed virtual users': counters['vusers.failed'] ?? 0,
};
console.log(Object.entries(facts).map(([name, value]) => `  ${name}: ${value}`).join('\n'));
const problems = [];
if (sent < 50) problems.push(`only ${sent} requests sent`);
if (repeats === 0) problems.push('no repeat was sent');
if (facts['answered 202 (Artillery)'] !== sent) problems.push('not every request was answered 202');
if (facts['requests the mock answered'] !== sent)
  problems.push('the mock answered another number of requests than Artillery sent');
if (facts['rejected by the mock'] !== 0) problems.push(`${facts['rejected by the mock']} requests rejected`);
if (report.records.used + report.records.duplicates !== sent) problems.push('the log does not hold every request');
if (report.records.duplicates !== repeats || facts['duplicates confirmed (processor)'] !== repeats)
  problems.push('not every repeat was recognised as a duplicate');
if (report.records.used !== sent - repeats) problems.push('the log does not hold one accepted record per new document');
if (facts['failed virtual users'] !== 0) problems.push('virtual users failed');
if (problems.length > 0) {
  console.error(`artillery-e2e: FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('artillery-e2e: ok: every request accepted (0 rejected), every repeat recognised');
EOF
