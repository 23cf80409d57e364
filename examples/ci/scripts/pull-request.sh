#!/usr/bin/env bash
# The functional check of a pull request, against zdm-local (the
# setup-zdm-local action started it and exported its ZDM_* variables):
# format, init with a throwaway local backend, validate, `terraform test`,
# then an apply of the configuration and a second plan that must be empty.
# The configuration's own backend is never used: the production state is
# neither read nor written.
#
#   pull-request.sh [CONFIG_DIR]    (default: the current directory)
#
# TF names the CLI (default terraform; tofu works too). Test files that
# declare a variable "suffix" get -var suffix=<run>-<attempt>, so that every
# run creates names of its own (nothing can be deleted through the API).
# Between the tests and the apply, zdm-local is reset through its admin API
# (ZDM_ADMIN_URL), so the apply starts from an empty workspace, with the same
# key and workspace.
set -euo pipefail

log() { echo "pull-request: $*" >&2; }
fail() { log "$*"; exit 1; }

tf=${TF:-terraform}
cd "${1:-.}"
: "${ZDM_BASE_URL:?set by setup-zdm-local: the pull request runs against zdm-local}"
: "${ZDM_ADMIN_URL:?set by setup-zdm-local: the pull request runs against zdm-local, never against the service}"
# Only zdm-local has an admin API: this refuses to run against the service.
curl -fsS "$ZDM_ADMIN_URL/health" >/dev/null ||
  fail "no zdm-local answers at ZDM_ADMIN_URL=$ZDM_ADMIN_URL: the pull-request check runs against zdm-local only"

state_dir=${RUNNER_TEMP:-$(mktemp -d)}
override=backend_override.tf
[ ! -e "$override" ] || fail "$PWD/$override exists already: remove it (this script writes its own)"
trap 'rm -f "$override"' EXIT
cat >"$override" <<CONF
terraform {
  backend "local" {
    path = "$state_dir/pull-request.tfstate"
  }
}
CONF
rm -f "$state_dir/pull-request.tfstate"

log "$tf fmt -check"
"$tf" fmt -check -recursive
log "$tf init (throwaway local backend)"
"$tf" init -input=false -reconfigure -no-color
log "$tf validate"
"$tf" validate -no-color

shopt -s nullglob
tests=(tests/*.tftest.hcl *.tftest.hcl)
if [ ${#tests[@]} -gt 0 ]; then
  args=()
  if grep -qsE '^[[:space:]]*variable[[:space:]]+"suffix"' "${tests[@]}"; then
    args=(-var "suffix=${GITHUB_RUN_ID:-$(date +%s)}-${GITHUB_RUN_ATTEMPT:-$$}")
  fi
  log "$tf test ${args[*]}"
  "$tf" test -no-color "${args[@]}"
  # What the tests created stays (destroy only forgets): start the apply
  # from an empty workspace, so that its names are free.
  log "resetting zdm-local (the workspace and key stay valid)"
  curl -fsS -X POST "$ZDM_ADMIN_URL/reset" >/dev/null
fi

log "$tf apply"
"$tf" apply -auto-approve -input=false -no-color
log "$tf plan: a second plan must be empty"
rc=0
"$tf" plan -detailed-exitcode -input=false -no-color || rc=$?
[ "$rc" -eq 0 ] || fail "the plan after the apply is not empty (exit code $rc): the configuration does not converge"
log "passed"
