#!/usr/bin/env bash
# `npm run test:dashboard`: the MDS's dashboard in a real browser, Debian's chromium driven by
# playwright-core (test/dashboard/). Installs chromium with apt-get when it is missing; skips,
# saying so in a banner, only when it cannot get it (not root, apt unreachable).
# STRIPEFS_REQUIRE_CHROMIUM=1 turns such a skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'test:dashboard: %s\n' "$*" >&2; }

skip() {
  printf '\n%s\n' '########################################################################' >&2
  printf '# test:dashboard SKIPPED: %s\n' "$1" >&2
  printf '# the dashboard was NOT tested in a browser.\n' >&2
  printf '%s\n\n' '########################################################################' >&2
  if [ "${STRIPEFS_REQUIRE_CHROMIUM:-}" = 1 ]; then exit 1; fi
  exit 0
}

chromium="${STRIPEFS_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  [ "$(id -u)" = 0 ] || skip "$chromium missing and not root, so apt-get cannot install chromium"
  log "installing chromium with apt-get"
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y chromium >/tmp/stripefs-chromium-apt.log 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update >>/tmp/stripefs-chromium-apt.log 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y chromium >>/tmp/stripefs-chromium-apt.log 2>&1 ||
      skip "apt-get could not install chromium (see /tmp/stripefs-chromium-apt.log)"
  fi
fi
log "browser: $("$chromium" --version 2>/dev/null | head -1)"
npm run build >/dev/null
STRIPEFS_CHROMIUM="$chromium" npx vitest run --config vitest.dashboard.config.ts
