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

work=$(mktemp -d)
# shellcheck source=scripts/zdm-local-start.sh
. "$root/scripts/zdm-local-start.sh"
zdm_local_start "$root" "$build_dir" "$work"

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
