#!/usr/bin/env bash
# The setup-zdm-local action (action.yml beside this file), also runnable
# alone: installs a pinned zdm-local release, checked against the release's
# SHA256SUMS, starts it in the background, waits until it answers its
# readiness check, and exports its addresses and key.
#
#   ZDM_LOCAL_VERSION=0.1.0 setup.sh
#
# Environment:
#   ZDM_LOCAL_VERSION      the release (required; pin it)
#   ZDM_LOCAL_SHA256       the archive's SHA-256, when you pin it too (checked
#                          in addition to SHA256SUMS)
#   ZDM_LOCAL_RELEASE_URL  where the release's files are (default: the
#                          project's GitHub release of that version; a
#                          file:// URL works too)
#   ZDM_LOCAL_DIR          where to install and run it (default: RUNNER_TEMP
#                          or a temporary directory)
#   ZDM_LOCAL_ARGS         more zdm-local flags (such as -devices-answer=false)
#
# Exports ZDM_BASE_URL, ZDM_STORAGE_URL, ZDM_API_KEY, ZDM_WORKSPACE_ID and
# ZDM_ADMIN_URL: to GITHUB_ENV when set (the later steps of the job see
# them), and as export lines in $ZDM_LOCAL_DIR/zdm.env always. The API key is
# masked in the job's log. GITHUB_OUTPUT, when set, gets admin-url and
# env-file.
set -euo pipefail

log() { echo "setup-zdm-local: $*" >&2; }
fail() { log "$*"; exit 1; }

version=${ZDM_LOCAL_VERSION:-}
[ -n "$version" ] || fail "set ZDM_LOCAL_VERSION (the input version) to the zdm-local release to install, such as 0.1.0"
version=${version#v}
case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "unsupported operating system $(uname -s): zdm-local releases are for Linux and macOS runners here" ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "unsupported architecture $(uname -m)" ;;
esac
base=${ZDM_LOCAL_RELEASE_URL:-https://github.com/zdm/terraform-provider-zdm/releases/download/v$version}
dir=${ZDM_LOCAL_DIR:-${RUNNER_TEMP:-$(mktemp -d)}/zdm-local}
mkdir -p "$dir"

zip="zdm-local_${version}_${os}_${arch}.zip"
sums="terraform-provider-zdm_${version}_SHA256SUMS"
log "downloading $zip and $sums from $base"
curl -fsSL --retry 3 -o "$dir/$zip" "$base/$zip" || fail "cannot download $base/$zip: check the version and ZDM_LOCAL_RELEASE_URL"
curl -fsSL --retry 3 -o "$dir/$sums" "$base/$sums" || fail "cannot download $base/$sums"
want=$(awk -v f="$zip" '$2 == f || $2 == "*" f { print $1 }' "$dir/$sums")
[ -n "$want" ] || fail "$sums lists no $zip"
got=$(sha256sum "$dir/$zip" | awk '{ print $1 }')
[ "$got" = "$want" ] || fail "$zip has SHA-256 $got, but $sums says $want: not installed"
if [ -n "${ZDM_LOCAL_SHA256:-}" ] && [ "$got" != "$ZDM_LOCAL_SHA256" ]; then
  fail "$zip has SHA-256 $got, but the pinned sha256 is $ZDM_LOCAL_SHA256: not installed"
fi
unzip -oq "$dir/$zip" zdm-local -d "$dir"
chmod +x "$dir/zdm-local"
installed=$("$dir/zdm-local" -version)
[ "$installed" = "zdm-local $version" ] || fail "the archive's binary says '$installed', want 'zdm-local $version'"
log "installed $installed (SHA-256 checked)"

rm -f "$dir/zdm.env"
# shellcheck disable=SC2086 # ZDM_LOCAL_ARGS is a list of flags
"$dir/zdm-local" -env-file "$dir/zdm.env" ${ZDM_LOCAL_ARGS:-} >"$dir/zdm-local.log" 2>&1 &
pid=$!
echo "$pid" >"$dir/zdm-local.pid"
for _ in $(seq 1 100); do
  [ -s "$dir/zdm.env" ] && grep -q '^export ZDM_ACCOUNT_ID=' "$dir/zdm.env" && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/zdm-local.log" >&2; fail "zdm-local exited"; }
  sleep 0.1
done
[ -s "$dir/zdm.env" ] || { cat "$dir/zdm-local.log" >&2; fail "zdm-local wrote no env file"; }
# shellcheck disable=SC1091
. "$dir/zdm.env"
port=${ZDM_BASE_URL##*:}
host=${ZDM_BASE_URL#http://}
host=${host%:*}
ready=
for _ in $(seq 1 50); do
  if "$dir/zdm-local" -health-check -listen "$host" -port "$port" >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.2
done
[ -n "$ready" ] || { cat "$dir/zdm-local.log" >&2; fail "zdm-local did not answer its readiness check at $ZDM_BASE_URL"; }
log "zdm-local $version is ready at $ZDM_BASE_URL (storage $ZDM_STORAGE_URL), workspace $ZDM_WORKSPACE_ID, pid $pid"

if [ -n "${GITHUB_ACTIONS:-}" ]; then
  echo "::add-mask::$ZDM_API_KEY"
fi
if [ -n "${GITHUB_ENV:-}" ]; then
  {
    echo "ZDM_BASE_URL=$ZDM_BASE_URL"
    echo "ZDM_STORAGE_URL=$ZDM_STORAGE_URL"
    echo "ZDM_API_KEY=$ZDM_API_KEY"
    echo "ZDM_WORKSPACE_ID=$ZDM_WORKSPACE_ID"
    echo "ZDM_ADMIN_URL=$ZDM_ADMIN_URL"
  } >>"$GITHUB_ENV"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "admin-url=$ZDM_ADMIN_URL"
    echo "env-file=$dir/zdm.env"
  } >>"$GITHUB_OUTPUT"
fi
