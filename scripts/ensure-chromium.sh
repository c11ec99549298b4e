#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (test/helpers/chromium.mjs). `npm test` runs this first, so the one
# test command works on a fresh machine: when /usr/bin/chromium (or $CAI_CHROMIUM) is missing it is installed with
# apt-get as root, or the reason it cannot be is printed with what to do. CAI_SKIP_BROWSER=1 skips the check (and
# the browser tests skip themselves when Chromium is missing).
set -euo pipefail
chromium="${CAI_CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
[ "${CAI_SKIP_BROWSER:-}" = "1" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Chromium is missing at $chromium: installing Debian's chromium package for the browser tests" >&2
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  [ -x "$chromium" ] && exit 0
fi
echo "error: the browser tests need Chromium at $chromium" >&2
echo "hint: install it (sudo apt-get install -y chromium), point CAI_CHROMIUM at a Chromium build, or run with CAI_SKIP_BROWSER=1" >&2
exit 1
