#!/usr/bin/env bash
# `make test-examples-tftest`: runs `terraform test` on examples/modules/fleet
# (its tests/*.tftest.hcl: an apply against zdm-local and a plan against a
# mock provider) with the provider built from this checkout, twice in a row
# against one zdm-local, each run with its own name suffix; then, as a
# control, once more with the first run's suffix, which must be refused
# because the API cannot delete the first run's fleet. Fails if either run
# fails or the control passes. Nothing is written inside the repository: the
# module is copied to a temporary directory.
#
# Usage: scripts/test-examples-tftest.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR
set -euo pipefail

usage="usage: test-examples-tftest.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR"
tf=${1:?$usage}
build_dir=${2:?$usage}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
module="$root/examples/modules/fleet"

log() { echo "test-examples-tftest: $*" >&2; }

[ -d "$module/tests" ] || { log "no tests/ in ${module#"$root"/}"; exit 1; }

work=$(mktemp -d)
# shellcheck source=scripts/zdm-local-start.sh
. "$root/scripts/zdm-local-start.sh"
zdm_local_start "$root" "$build_dir" "$work"

cfg="$work/fleet"
mkdir -p "$cfg"
cp "$module"/*.tf "$cfg"/
cp -R "$module/tests" "$cfg"/

# init installs the helper module that a run of the tests reads back with;
# the provider itself comes from dev_overrides.
"$tf" -chdir="$cfg" init -input=false -no-color >"$work/init.txt" 2>&1 || {
  cat "$work/init.txt" >&2; log "terraform init failed"; exit 1
}

# tftest SUFFIX OUT: one `terraform test` run; its exit code.
tftest() {
  "$tf" -chdir="$cfg" test -no-color -var "suffix=$1" >"$2" 2>&1
}
# summary OUT: the lines naming each file and run with its result.
summary() { grep -E '^(tests/|  run |Success!|Failure!)' "$1" >&2 || true; }

base="$(date +%s)-$$"
for i in 1 2; do
  log "terraform test, run $i of 2 (suffix $base-$i)"
  if ! tftest "$base-$i" "$work/run$i.txt"; then
    cat "$work/run$i.txt" >&2
    log "run $i failed"
    exit 1
  fi
  summary "$work/run$i.txt"
done

# The control: the first run's names again. Its fleet is still in the
# service (destroy only forgets), so the plan must be refused.
log "control: run 1's suffix again, expecting the duplicate fleet name to be refused"
if tftest "$base-1" "$work/control.txt"; then
  cat "$work/control.txt" >&2
  log "control passed: a repeated name was not refused, so the runs above do not show that names must differ per run"
  exit 1
fi
if ! grep -q 'A fleet with this name already exists' "$work/control.txt"; then
  cat "$work/control.txt" >&2
  log "control failed for another reason than the repeated fleet name"
  exit 1
fi
log "control refused as expected; both runs passed against one zdm-local"
