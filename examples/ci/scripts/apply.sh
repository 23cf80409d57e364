#!/usr/bin/env bash
# The apply after a merge: applies exactly the plan that was reviewed on the
# pull request (plan.sh's PLAN_DIR), and nothing else. It refuses when the
# commit's tree is not the one the plan was made from (main moved: plan
# again), and Terraform refuses the plan file when the state changed since
# it was made (a "stale" plan: plan again).
#
#   apply.sh PLAN_DIR [CONFIG_DIR]
#
# TF names the CLI (default terraform).
set -euo pipefail

log() { echo "apply: $*" >&2; }
fail() { log "$*"; exit 1; }

tf=${TF:-terraform}
plan_dir=${1:?usage: apply.sh PLAN_DIR [CONFIG_DIR]}
plan_dir=$(cd "$plan_dir" && pwd)
cd "${2:-.}"

if [ ! -s "$plan_dir/tfplan" ] || [ ! -s "$plan_dir/tree" ]; then
  fail "$plan_dir holds no reviewed plan (tfplan and tree of plan.sh)"
fi
want=$(cat "$plan_dir/tree")
got=$(git rev-parse 'HEAD^{tree}')
[ "$got" = "$want" ] || fail "this commit's tree ($got) is not the one the reviewed plan was made from ($want): the configuration changed after the review; plan the pull request again"
log "$tf init"
"$tf" init -input=false -no-color >&2
log "$tf apply of the reviewed plan ($(cat "$plan_dir/summary" 2>/dev/null || echo "summary unknown"))"
"$tf" apply -input=false -no-color "$plan_dir/tfplan"
