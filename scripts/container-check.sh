#!/usr/bin/env bash
# Builds the image and checks that it serves, without a registry and without `podman run` (which
# needs cgroups this machine lacks): the image's entrypoint runs with `buildah run --isolation
# chroot`, which shares the host's network, against PostgreSQL and Redis on 127.0.0.1. Checks:
# GET /api/v1/health answers 200, a tenant registers, a built-in module executes, and the
# service wrote nothing under /app (it runs as uid 10001 with DATA_DIR a mounted directory).
# Run as root from anywhere; CI runs it after the tests (.ci/run). docs/operations.md, Container.
#
#   AMP_CHECK_IMAGE     image tag (amp:ci)
#   AMP_CHECK_PORT      port the service listens on (3999)
#   AMP_CHECK_DB        database created afresh for the check (amp_container), as postgres@127.0.0.1
#   AMP_CHECK_REDIS_URL (redis://127.0.0.1:6379)
#   AMP_CHECK_SKIP_BUILD=1 checks the image as it is (no base images, no build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

IMAGE=${AMP_CHECK_IMAGE:-amp:ci}
PORT=${AMP_CHECK_PORT:-3999}
DB=${AMP_CHECK_DB:-amp_container}
REDIS_URL=${AMP_CHECK_REDIS_URL:-redis://127.0.0.1:6379}
BASE_URL="http://127.0.0.1:$PORT"

step() { printf '\n--> %s\n' "$*"; }
timed() {
  local started=$SECONDS
  "$@"
  echo "($(($SECONDS - started)) s: $*)"
}
fail() {
  echo "container check failed: $*" >&2
  exit 1
}

step 'tools'
missing=()
for tool in buildah podman debootstrap curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  while fuser /var/lib/dpkg/lock /var/lib/dpkg/lock-frontend >/dev/null 2>&1; do sleep 2; done
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

if [ "${AMP_CHECK_SKIP_BUILD:-0}" != 1 ]; then
  step 'base images (scripts/container-base.sh; kept between runs)'
  timed scripts/container-base.sh

  step "image $IMAGE"
  # The host's npm cache (filled by its own npm ci) is lent to the build's npm ci, which then takes
  # the packages it holds from it instead of downloading them again; the image is the same.
  npm_cache=$(npm config get cache 2>/dev/null || true)
  cache_volume=()
  if [ -n "$npm_cache" ] && [ -d "$npm_cache" ]; then
    echo "npm cache lent to the build: $npm_cache"
    cache_volume=(--volume "$npm_cache:/root/.npm")
  fi
  timed buildah bud --isolation chroot --layers --format docker "${cache_volume[@]}" -t "$IMAGE" .
fi
echo "image size: $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

step "database $DB"
psql -h 127.0.0.1 -U postgres -w -v ON_ERROR_STOP=1 -q \
  -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"

step 'start the entrypoint'
container=$(buildah from "$IMAGE")
data_dir=$(mktemp -d /var/tmp/amp-container-data.XXXXXX)
log=$(mktemp /var/tmp/amp-container-log.XXXXXX)
chown 10001:10001 "$data_dir"
server_pid=
# `buildah run` does not pass signals on to the container's process: the entrypoint (start.mjs)
# is signalled itself, found among the descendants of `buildah run`.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
entrypoint_pid() {
  local pid
  for pid in $(descendants "$server_pid"); do
    # Node itself (buildah's own helper processes carry the command line as arguments too).
    if [ "$(head -z -n 1 "/proc/$pid/cmdline" 2>/dev/null | tr -d '\0' | xargs -r basename)" = node ] &&
      tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'scripts/start.mjs'; then
      echo "$pid"
      return
    fi
  done
}
stop_server() {
  local pid
  pid=$(entrypoint_pid)
  [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$server_pid" 2>/dev/null || return 0; sleep 1; done
  return 1
}
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    stop_server || {
      # Last resort: everything under `buildah run`, then buildah itself.
      for pid in $(descendants "$server_pid"); do kill -KILL "$pid" 2>/dev/null || true; done
      kill -KILL "$server_pid" 2>/dev/null || true
    }
  fi
  buildah umount "$container" >/dev/null 2>&1 || true
  buildah rm "$container" >/dev/null || true
  rm -rf "$data_dir" "$log"
}
trap cleanup EXIT
mapfile -t entrypoint < <(buildah inspect --format '{{range .OCIv1.Config.Entrypoint}}{{println .}}{{end}}' "$container")
app_dir=$(buildah mount "$container")/app
marker=$(mktemp /var/tmp/amp-container-marker.XXXXXX)
touch -d '1 second ago' "$marker"

# The image's USER, WORKDIR and ENV apply; DATA_DIR (/data) is the mounted directory.
buildah run --isolation chroot --volume "$data_dir:/data" \
  --env PORT="$PORT" \
  --env DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB" \
  --env REDIS_URL="$REDIS_URL" \
  --env PUBLIC_BASE_URL="$BASE_URL" \
  "$container" -- "${entrypoint[@]}" >"$log" 2>&1 &
server_pid=$!
echo "started: ${entrypoint[*]} (pid $server_pid), log $log"

step 'health'
started=$SECONDS
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL/api/v1/health")" = 200 ]; do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    tail -n 60 "$log" >&2
    fail 'the service exited before it was healthy'
  fi
  if [ $((SECONDS - started)) -gt 300 ]; then
    tail -n 60 "$log" >&2
    fail 'no 200 from /api/v1/health within 300 s'
  fi
  sleep 2
done
echo "healthy after $((SECONDS - started)) s: $(curl -s "$BASE_URL/api/v1/health")"
until curl -sf -o /dev/null "$BASE_URL/api/v1/health/ready"; do
  [ $((SECONDS - started)) -le 300 ] || fail "/api/v1/health/ready: $(curl -s "$BASE_URL/api/v1/health/ready")"
  sleep 1
done
echo "ready: $(curl -s "$BASE_URL/api/v1/health/ready")"

step 'register'
registered=$(curl -s -w '\n%{http_code}' -X POST "$BASE_URL/api/v1/auth/register" \
  -H 'content-type: application/json' \
  -d '{"agent_name":"container-check","owner_email":"container-check@example.com"}')
[ "$(tail -n 1 <<<"$registered")" = 201 ] || fail "register: $registered"
api_key=$(head -n 1 <<<"$registered" | grep -o '"api_key":"[^"]*"' | cut -d'"' -f4)
[ -n "$api_key" ] || fail "register returned no api_key: $registered"
echo 'registered: 201, api_key received'

step 'execute text.slugify'
executed=$(curl -s -w '\n%{http_code}' -X POST "$BASE_URL/api/v1/modules/text/execute" \
  -H 'content-type: application/json' -H "x-api-key: $api_key" \
  -d '{"action":"slugify","input":{"text":"Hello Container"}}')
[ "$(tail -n 1 <<<"$executed")" = 200 ] || fail "execute: $executed"
grep -q '"slug":"hello-container"' <<<"$executed" || fail "execute: unexpected output: $executed"
echo "executed: $(head -n 1 <<<"$executed")"

step 'nothing written into /app'
written=$(find "$app_dir" -newer "$marker" -print | head -n 20)
rm -f "$marker"
[ -z "$written" ] || fail "the service wrote into /app: $written"
echo 'none'

step 'stop (SIGTERM to the entrypoint)'
if ! stop_server; then
  tail -n 30 "$log" >&2
  fail 'the service did not stop within 30 s of SIGTERM'
fi
# start.mjs exits the way the server did (here: by the signal), so buildah reports a failure.
wait "$server_pid" || true
server_pid=
tail -n 3 "$log"
psql -h 127.0.0.1 -U postgres -w -q -c "DROP DATABASE IF EXISTS $DB" || true
echo 'container check passed'
