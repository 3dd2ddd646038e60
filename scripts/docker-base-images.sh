#!/usr/bin/env bash
# Makes the Dockerfile's base images (node:20-bookworm to build, node:20-bookworm-slim to run)
# available to `docker build`: already present, or pulled, or (when no image registry answers)
# built here as stand-ins under the same names: a minimal Debian bookworm made by debootstrap
# from this machine's apt mirror, with this machine's Node.js 20 and npm in /usr/local, its C
# headers, and its CA bundle, which Node trusts too (NODE_EXTRA_CA_CERTS: the npm registry may be
# reached through a proxy that this machine's bundle vouches for); the build one also gets
# build-essential and python3 (the C addon and node-gyp).
# Used by `npm run test:compose` (scripts/test-compose.sh) and CI. Needs root and docker.
#   STRIPEFS_BASE_IMAGES_REBUILD=1  build the stand-ins even when the images exist
set -euo pipefail

FULL=node:20-bookworm
SLIM=node:20-bookworm-slim
PULL_TIMEOUT_S=${STRIPEFS_PULL_TIMEOUT_S:-60}

log() { printf 'docker-base-images: %s\n' "$*" >&2; }

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# The first Debian mirror apt is set up with (deb822 .sources or a one-line sources.list).
debian_mirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | grep -v security | awk '{print $2}' | head -1)
  if [ -z "$uri" ]; then
    uri=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | grep -v security |
      awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' | head -1)
  fi
  [ -n "$uri" ] || { log 'no Debian mirror found in /etc/apt; cannot build stand-in images'; exit 1; }
  printf '%s\n' "$uri"
}

# This machine's Node.js 20 and npm, copied into the image's /usr/local.
install_node() {
  local root=$1 node npm_dir
  node=$(readlink -f "$(command -v node)")
  "$node" -e 'process.exit(process.versions.node.split(".")[0] === "20" ? 0 : 1)' ||
    { log "the stand-ins need Node.js 20 on this machine, found $("$node" -v)"; exit 1; }
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules"
  cp "$node" "$root/usr/local/bin/node"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # Node's C headers, as the official images have them (native addons build against them).
  local headers
  for headers in "$(dirname "$(dirname "$node")")/include/node" /usr/include/node /usr/local/include/node; do
    if [ -f "$headers/node_api.h" ]; then
      mkdir -p "$root/usr/local/include"
      cp -a "$headers" "$root/usr/local/include/node"
      break
    fi
  done
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
}

# debootstrap a rootfs (with extra packages), add Node, import it as `tag`.
build_standin() {
  local tag=$1 include=$2 work=$3 root
  root="$work/$(echo "$tag" | tr ':/' '__')"
  log "building stand-in $tag (debootstrap bookworm${include:+ with $include})"
  debootstrap --variant=minbase ${include:+--include="$include"} --cache-dir="$work/cache" \
    bookworm "$root" "$(debian_mirror)" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  install_node "$root"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/tmp/*
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$(node -p process.versions.node)" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$tag" >/dev/null
  rm -rf "$root"
  log "$tag ready ($(docker image inspect -f '{{.Size}}' "$tag") bytes)"
}

main() {
  command -v docker >/dev/null || { log 'docker is not installed'; exit 1; }
  local missing=()
  for tag in "$FULL" "$SLIM"; do
    if [ "${STRIPEFS_BASE_IMAGES_REBUILD:-}" != 1 ] && have_image "$tag"; then continue; fi
    if [ "${STRIPEFS_BASE_IMAGES_REBUILD:-}" != 1 ] && timeout "$PULL_TIMEOUT_S" docker pull -q "$tag" >/dev/null 2>&1; then
      log "pulled $tag"
      continue
    fi
    missing+=("$tag")
  done
  [ ${#missing[@]} -gt 0 ] || { log "$FULL and $SLIM are present"; return 0; }
  log "no registry gave ${missing[*]}: building local stand-ins"
  if ! command -v debootstrap >/dev/null; then
    log 'installing debootstrap'
    apt-get -o DPkg::Lock::Timeout=600 install -y debootstrap >/dev/null 2>&1 || { apt-get -o DPkg::Lock::Timeout=600 update >/dev/null && apt-get -o DPkg::Lock::Timeout=600 install -y debootstrap >/dev/null; }
  fi
  WORK=$(mktemp -d /tmp/stripefs-base-images.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
  mkdir -p "$WORK/cache"
  for tag in "${missing[@]}"; do
    if [ "$tag" = "$FULL" ]; then build_standin "$tag" build-essential,python3 "$WORK"
    else build_standin "$tag" '' "$WORK"; fi
  done
}

main "$@"
