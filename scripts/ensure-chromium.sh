#!/usr/bin/env bash
# What the tests need beyond npm, installed before them: `npm test` runs this first, so the one test command works on
# a fresh machine.
# - Debian's Chromium for the browser tests (test/helpers/chromium.mjs): when /usr/bin/chromium (or $CAI_CHROMIUM)
#   is missing it is installed with apt-get as root, or the reason it cannot be is printed with what to do (exit 1).
#   CAI_SKIP_BROWSER=1 skips it (and the browser tests skip themselves when Chromium is missing).
# - zsh and fish, so that `cai completion zsh|fish` scripts are checked by the shells themselves
#   (test/commands/completion.test.ts): installed the same way when missing; where they cannot be, the two tests
#   that need them skip, and this says so without failing.
# apt-get update runs once, and only when something is missing.
set -euo pipefail
chromium="${CAI_CHROMIUM:-/usr/bin/chromium}"

missing=()
if [ ! -x "$chromium" ] && [ "${CAI_SKIP_BROWSER:-}" != "1" ]; then missing+=(chromium); fi
for shell in zsh fish; do
  command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "missing for the tests: ${missing[*]}: installing Debian's packages" >&2
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

for shell in zsh fish; do
  if ! command -v "$shell" >/dev/null 2>&1; then
    echo "note: $shell is missing: the completion test that runs '$shell -n' on cai's script skips" \
      "(sudo apt-get install -y $shell)" >&2
  fi
done
if [ ! -x "$chromium" ] && [ "${CAI_SKIP_BROWSER:-}" != "1" ]; then
  echo "error: the browser tests need Chromium at $chromium" >&2
  echo "hint: install it (sudo apt-get install -y chromium), point CAI_CHROMIUM at a Chromium build," \
    "or run with CAI_SKIP_BROWSER=1" >&2
  exit 1
fi
exit 0
