#!/usr/bin/env bash
# `npm run test:prometheus`: monitoring/ (the scrape configurations and the Grafana dashboard)
# with Debian's prometheus and promtool against a real cluster (test/monitoring/). Installs the
# prometheus package with apt-get when it is missing; skips, saying so in a banner, only when it
# cannot get it (not root, apt unreachable). STRIPEFS_REQUIRE_PROMETHEUS=1 turns such a skip
# into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'test:prometheus: %s\n' "$*" >&2; }

skip() {
  printf '\n%s\n' '########################################################################' >&2
  printf '# test:prometheus SKIPPED: %s\n' "$1" >&2
  printf '# monitoring/ was NOT tested with Prometheus.\n' >&2
  printf '%s\n\n' '########################################################################' >&2
  if [ "${STRIPEFS_REQUIRE_PROMETHEUS:-}" = 1 ]; then exit 1; fi
  exit 0
}

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  [ "$(id -u)" = 0 ] || skip "prometheus missing and not root, so apt-get cannot install it"
  log "installing prometheus with apt-get"
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y prometheus >/tmp/stripefs-prometheus-apt.log 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update >>/tmp/stripefs-prometheus-apt.log 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y prometheus >>/tmp/stripefs-prometheus-apt.log 2>&1 ||
      skip "apt-get could not install prometheus (see /tmp/stripefs-prometheus-apt.log)"
  fi
fi
log "$(prometheus --version 2>&1 | head -1)"
npm run build >/dev/null
npx vitest run --config vitest.prometheus.config.ts
