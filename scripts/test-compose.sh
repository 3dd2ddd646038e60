#!/usr/bin/env bash
# `npm run test:compose`: stripefs under a real container engine, end to end
# (test/compose/compose.e2e.ts). Installs docker.io and docker-compose with apt-get when they
# are missing, starts dockerd when none answers (and stops only the one it started), makes the
# base images available (scripts/docker-base-images.sh: pulled, or local stand-ins), builds the
# project for the host CLI, then runs the test with Compose v2 (`docker compose`) when present,
# else v1 (`docker-compose`).
# It skips, saying so in a banner, only when it cannot get docker (not root, apt unreachable);
# STRIPEFS_REQUIRE_COMPOSE=1 turns such a skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

started_ms=$(date +%s%3N)
log() { printf 'test:compose: %s\n' "$*" >&2; }

skip() {
  printf '\n%s\n' '########################################################################' >&2
  printf '# test:compose SKIPPED: %s\n' "$1" >&2
  printf '# stripefs under docker compose was NOT tested.\n' >&2
  printf '%s\n\n' '########################################################################' >&2
  if [ "${STRIPEFS_REQUIRE_COMPOSE:-}" = 1 ]; then exit 1; fi
  exit 0
}

install_docker() {
  local need=()
  command -v dockerd >/dev/null || need+=(docker.io)
  if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then need+=(docker-compose); fi
  [ ${#need[@]} -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || skip "${need[*]} missing and not root, so apt-get cannot install them"
  log "installing ${need[*]} with apt-get"
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >/tmp/stripefs-compose-apt.log 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update >>/tmp/stripefs-compose-apt.log 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >>/tmp/stripefs-compose-apt.log 2>&1 ||
      skip "apt-get could not install ${need[*]} (see /tmp/stripefs-compose-apt.log)"
  fi
}

DOCKERD_PID=
stop_dockerd() {
  if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
    log "stopping the dockerd this test started (pid $DOCKERD_PID)"
    kill "$DOCKERD_PID"
    for _ in $(seq 1 30); do kill -0 "$DOCKERD_PID" 2>/dev/null || return 0; sleep 1; done
    kill -9 "$DOCKERD_PID" 2>/dev/null || true
  fi
}

start_dockerd() {
  docker info >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || skip 'no docker daemon answers and only root can start one'
  log 'no docker daemon answers: starting dockerd'
  nohup dockerd >/tmp/stripefs-compose-dockerd.log 2>&1 &
  DOCKERD_PID=$!
  trap stop_dockerd EXIT
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    kill -0 "$DOCKERD_PID" 2>/dev/null || break
    sleep 1
  done
  tail -20 /tmp/stripefs-compose-dockerd.log >&2
  skip 'dockerd did not start (log above)'
}

install_docker
start_dockerd
bash scripts/docker-base-images.sh
if docker compose version >/dev/null 2>&1; then
  export STRIPEFS_COMPOSE='docker compose'
else
  export STRIPEFS_COMPOSE=docker-compose
fi
log "using $STRIPEFS_COMPOSE ($($STRIPEFS_COMPOSE version --short 2>/dev/null || $STRIPEFS_COMPOSE version | head -1))"
npm run build >/dev/null
export STRIPEFS_COMPOSE_PREP_MS=$(($(date +%s%3N) - started_ms))
npx vitest run --config vitest.compose.config.ts
log "whole run: $((($(date +%s%3N) - started_ms) / 1000)) s"
