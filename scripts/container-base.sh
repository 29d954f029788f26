#!/usr/bin/env bash
# Builds the Dockerfile's base images locally, without a container registry: a Debian bookworm
# root filesystem made by debootstrap and imported into the local image store (podman/buildah).
#
#   localhost/amp-base:bookworm   minbase + ca-certificates: the runtime stage (Node 24 itself comes
#                                 from the `node` npm package, installed by `npm ci`)
#   localhost/amp-build:bookworm  the above + Node 24 and npm 11 from the npm registry (installed by
#                                 Debian's nodejs and npm: bookworm's npm 9 leaves platform packages
#                                 of this lock file out, e.g. @tailwindcss/oxide-linux-x64-gnu);
#                                 it also trusts the host's local CAs (/usr/local/share/ca-certificates,
#                                 e.g. a TLS-inspecting proxy's), so npm reaches the registry as the host does
#
# Idempotent: an image already in the store is kept (delete it with `podman rmi` to rebuild).
# Needs root, debootstrap, podman and buildah (apt-get install -y debootstrap podman buildah).
# The Debian mirror is the host's (from /etc/apt/sources.list*), or DEBIAN_MIRROR.
set -euo pipefail

BASE_IMAGE=localhost/amp-base:bookworm
BUILD_IMAGE=localhost/amp-build:bookworm

have_image() { podman image exists "$1"; }

debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  local found
  found=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -Eo 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ' || true)
  echo "${found:-http://deb.debian.org/debian}"
}

if ! have_image "$BASE_IMAGE"; then
  rootfs=$(mktemp -d /var/tmp/amp-rootfs.XXXXXX)
  trap 'rm -rf "$rootfs"' EXIT
  mirror=$(debian_mirror)
  echo "debootstrap bookworm (minbase) from $mirror"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror"
  # Smaller image: no package lists or downloaded .debs, no docs.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
  tar -C "$rootfs" --numeric-owner -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE"
  rm -rf "$rootfs"
  trap - EXIT
else
  echo "present: $BASE_IMAGE"
fi

if ! have_image "$BUILD_IMAGE"; then
  echo "adding nodejs and npm: $BUILD_IMAGE"
  container=$(buildah from "$BASE_IMAGE")
  trap 'buildah rm "$container" >/dev/null' EXIT
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    buildah copy "$container" /usr/local/share/ca-certificates/ /usr/local/share/ca-certificates/ >/dev/null
  fi
  buildah run --isolation chroot "$container" -- sh -c \
    'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm &&
     update-ca-certificates && rm -rf /var/lib/apt/lists/*'
  # Node 24 (the `node` package) and npm 11 first on the PATH (/usr/local/bin). Node's own build
  # trusts its bundled CAs only: NODE_EXTRA_CA_CERTS adds the system's (and the host's local ones).
  buildah config --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$container"
  buildah run --isolation chroot "$container" -- sh -c \
    'npm install -g --no-audit --no-fund node@24 && npm install -g --no-audit --no-fund npm@11 && hash -r && node -v && npm -v'
  buildah commit --rm "$container" "$BUILD_IMAGE"
  trap - EXIT
else
  echo "present: $BUILD_IMAGE"
fi
