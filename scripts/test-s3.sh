#!/usr/bin/env bash
# `npm run test:s3`: the S3 gateway (`stripefs s3`) with the real S3 clients from Debian's
# packages: awscli, s3cmd, rclone and python3-boto3 (test/s3-clients/). Installs them with
# apt-get when missing; newer clients already on PATH (a pip awscli or boto3, which send
# CRC32 checksum trailers by default) are tested too. It skips, saying so in a banner, only
# when it cannot get the clients (not root, apt unreachable); STRIPEFS_REQUIRE_S3_CLIENTS=1
# turns such a skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'test:s3: %s\n' "$*" >&2; }

skip() {
  printf '\n%s\n' '########################################################################' >&2
  printf '# test:s3 SKIPPED: %s\n' "$1" >&2
  printf '# the S3 gateway was NOT tested with real S3 clients.\n' >&2
  printf '%s\n\n' '########################################################################' >&2
  if [ "${STRIPEFS_REQUIRE_S3_CLIENTS:-}" = 1 ]; then exit 1; fi
  exit 0
}

need=()
[ -x /usr/bin/aws ] || need+=(awscli)
command -v s3cmd >/dev/null || need+=(s3cmd)
command -v rclone >/dev/null || need+=(rclone)
/usr/bin/python3 -c 'import boto3' 2>/dev/null || need+=(python3-boto3)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || skip "${need[*]} missing and not root, so apt-get cannot install them"
  log "installing ${need[*]} with apt-get"
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >/tmp/stripefs-s3-apt.log 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update >>/tmp/stripefs-s3-apt.log 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >>/tmp/stripefs-s3-apt.log 2>&1 ||
      skip "apt-get could not install ${need[*]} (see /tmp/stripefs-s3-apt.log)"
  fi
fi
log "clients: $(/usr/bin/aws --version 2>&1 | head -1); s3cmd $(s3cmd --version | awk '{print $3}'); $(rclone version | head -1); boto3 $(/usr/bin/python3 -c 'import boto3; print(boto3.__version__)')"
npm run build >/dev/null
npx vitest run --config vitest.s3.config.ts
