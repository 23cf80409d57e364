#!/usr/bin/env bash
# `make demo`: starts a local ZDM server (cmd/zdm-local) on free loopback ports,
# applies examples/quickstart against it with the provider built from this
# checkout, prints the outputs, proves a second plan is empty, and stops the
# server. Nothing is written inside the repository: the configuration is
# copied to a temporary directory, state included.
#
# Usage: scripts/demo.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR
set -euo pipefail

tf=${1:?usage: demo.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR}
build_dir=${2:?usage: demo.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { echo "demo: $*" >&2; }

[ -x "$build_dir/terraform-provider-zdm" ] || { log "no provider binary in $build_dir (run make build)"; exit 1; }

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

log "building zdm-local"
go build -o "$work/zdm-local" "$root/cmd/zdm-local"

log "starting zdm-local"
"$work/zdm-local" -env-file "$work/zdm.env" >"$work/zdm-local.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  [ -s "$work/zdm.env" ] && grep -q ZDM_API_KEY "$work/zdm.env" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/zdm-local.log" >&2; log "zdm-local exited"; exit 1; }
  sleep 0.1
done
[ -s "$work/zdm.env" ] || { cat "$work/zdm-local.log" >&2; log "zdm-local wrote no env file"; exit 1; }
# shellcheck disable=SC1091
. "$work/zdm.env"
log "zdm-local is serving $ZDM_BASE_URL (storage $ZDM_STORAGE_URL), workspace $ZDM_WORKSPACE_ID"

cat > "$work/cli.tfrc" <<CONF
provider_installation {
  dev_overrides {
    "registry.terraform.io/zdm/zdm" = "$build_dir"
  }
  direct {}
}
CONF
export TF_CLI_CONFIG_FILE="$work/cli.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

cfg="$work/quickstart"
mkdir -p "$cfg"
cp "$root"/examples/quickstart/*.tf "$cfg"/

log "terraform apply (examples/quickstart)"
"$tf" -chdir="$cfg" apply -auto-approve -input=false -no-color
log "terraform output"
"$tf" -chdir="$cfg" output -no-color

log "terraform plan again: expecting no changes"
rc=0
"$tf" -chdir="$cfg" plan -detailed-exitcode -input=false -no-color >"$work/plan.txt" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
  cat "$work/plan.txt" >&2
  log "second plan is not empty (exit code $rc)"
  exit 1
fi
log "second plan is empty; stopping zdm-local"
