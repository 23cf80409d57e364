#!/usr/bin/env bash
# `make release-check`: checks the zdm-local container image as far as a
# machine without a container engine can. goreleaser (`dockers:` in
# .goreleaser.yml) copies the linux/amd64 zdm-local binary into the build
# context of cmd/zdm-local/Dockerfile; this script takes that binary from
# dist/ and checks that
#   - the Dockerfile is FROM scratch, and COPYs the binary goreleaser puts in
#     the context to the path its ENTRYPOINT and HEALTHCHECK run;
#   - the binary is static (CGO_ENABLED=0), since the image holds nothing else;
#   - the ENTRYPOINT and CMD, run as they are with the binary (the ports
#     moved to free ones, as `docker run -p` would map them, and an env file
#     added to learn them), start a server that the HEALTHCHECK command finds
#     ready, on the bootstrap workspace and key the CMD names.
# Where a container engine answers (docker info), it also builds the image
# and asks the container through its published port; elsewhere it says that
# the image build, USER, EXPOSE and the container's network are not checked.
#
# Usage: scripts/check-zdm-local-image.sh DOCKERFILE ZDM_LOCAL_BINARY
set -euo pipefail

usage="usage: check-zdm-local-image.sh DOCKERFILE ZDM_LOCAL_BINARY"
dockerfile=${1:?$usage}
bin=${2:?$usage}
log() { echo "check-zdm-local-image: $*" >&2; }
fail() { log "$*"; exit 1; }

# instruction NAME: the rest of the first line of the Dockerfile starting with NAME.
instruction() { grep -E "^$1[[:space:]]" "$dockerfile" | head -n1 | sed -E "s/^$1[[:space:]]+//"; }
# json_words TEXT: the strings of a JSON array of strings, one a line.
json_words() { grep -oE '"[^"]*"' <<<"$1" | sed -E 's/^"(.*)"$/\1/'; }

from=$(grep -vE '^[[:space:]]*(#|$)' "$dockerfile" | head -n1)
[ "$from" = "FROM scratch" ] || fail "$dockerfile starts with '$from', want 'FROM scratch'"

read -r src dst <<<"$(instruction COPY)"
[ "$src" = "$(basename "$bin")" ] || fail "COPY copies '$src', but goreleaser puts '$(basename "$bin")' in the build context"

mapfile -t entry < <(json_words "$(instruction ENTRYPOINT)")
mapfile -t cmd < <(json_words "$(instruction CMD)")
health_line=$(instruction HEALTHCHECK)
mapfile -t health < <(json_words "${health_line#*CMD}")
[ "${#entry[@]}" -gt 0 ] || fail "no ENTRYPOINT in exec form"
[ "${#health[@]}" -gt 0 ] || fail "no HEALTHCHECK CMD in exec form"
[ "${entry[0]}" = "$dst" ] || fail "ENTRYPOINT runs ${entry[0]}, but COPY puts the binary at $dst"
[ "${health[0]}" = "$dst" ] || fail "HEALTHCHECK runs ${health[0]}, but COPY puts the binary at $dst"

go version -m "$bin" | grep -q 'CGO_ENABLED=0' || fail "$bin is not built with CGO_ENABLED=0: a FROM scratch image cannot run it"

work=$(mktemp -d)
pid=
cleanup() {
  [ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

# The container's command line: ENTRYPOINT then CMD, with the binary of
# dist/; the later -port, -storage-port and -env-file win.
"$bin" "${entry[@]:1}" "${cmd[@]}" -port 0 -storage-port 0 -env-file "$work/zdm.env" >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  grep -q ZDM_API_KEY "$work/zdm.env" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/log" >&2; fail "the ENTRYPOINT and CMD exited"; }
  sleep 0.1
done
grep -q ZDM_API_KEY "$work/zdm.env" 2>/dev/null || { cat "$work/log" >&2; fail "no env file from the ENTRYPOINT and CMD"; }
# shellcheck disable=SC1091
. "$work/zdm.env"
port=${ZDM_BASE_URL##*:}
port=${port%%/*}

# The HEALTHCHECK command, on the mapped port.
hc=("${health[@]:1}")
for i in "${!hc[@]}"; do
  if [ "${hc[$i]}" = "-port" ]; then hc[i+1]=$port; fi
done
ready=
for _ in $(seq 1 50); do
  if "$bin" "${hc[@]}" >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.1
done
[ -n "$ready" ] || { cat "$work/log" >&2; fail "the HEALTHCHECK command never found the server ready"; }

# The bootstrap the CMD asks for.
want() { # FLAG: the value the CMD gives FLAG
  local k
  for k in "${!cmd[@]}"; do [ "${cmd[$k]}" = "$1" ] && { echo "${cmd[k+1]}"; return; }; done
}
[ "$ZDM_WORKSPACE_ID" = "$(want -bootstrap-workspace-id)" ] || fail "workspace $ZDM_WORKSPACE_ID, want the CMD's $(want -bootstrap-workspace-id)"
[ "$ZDM_API_KEY" = "$(want -bootstrap-key)" ] || fail "the server's key is not the CMD's -bootstrap-key"
log "$dockerfile: FROM scratch, COPY $src $dst, static binary; ENTRYPOINT and CMD serve $ZDM_BASE_URL, HEALTHCHECK ready, workspace $ZDM_WORKSPACE_ID"

# Where a container engine runs, the image itself: built from the Dockerfile
# and this binary, run with its ports published, and asked through them.
if ! docker info >/dev/null 2>&1; then
  log "no container engine answers here (docker info): the image build, USER, EXPOSE and the container's network are not checked"
  exit 0
fi
ctx="$work/context"
mkdir -p "$ctx"
cp "$bin" "$ctx/$src"
cp "$dockerfile" "$ctx/Dockerfile"
tag="zdm-local-check:$$"
docker build -q -t "$tag" "$ctx" >/dev/null || fail "docker build of $dockerfile failed"
cid=$(docker run -d --rm -p 127.0.0.1::8080 "$tag") || fail "docker run of the image failed"
trap 'docker rm -f "$cid" >/dev/null 2>&1; docker rmi "$tag" >/dev/null 2>&1; cleanup' EXIT
hostport=$(docker port "$cid" 8080/tcp | head -n1)
ok=
for _ in $(seq 1 50); do
  if curl -fsS -H "X-API-KEY: $ZDM_API_KEY" "http://$hostport/v3/workspaces/$ZDM_WORKSPACE_ID" >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.2
done
[ -n "$ok" ] || fail "the container does not answer on its published port ($hostport)"
log "image built and run: the container serves workspace $ZDM_WORKSPACE_ID on its published port"
