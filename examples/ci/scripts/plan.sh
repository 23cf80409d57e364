#!/usr/bin/env bash
# The production plan of a pull request: a speculative plan of the
# configuration against the real state and service, for review. It never
# writes: a plan sends only reads to the service (GET requests; a key that
# may only read is enough), -lock=false takes no state lock, and a plan
# writes no state. The plan file and its text go to PLAN_DIR, with the git
# tree of the commit it was made from, for apply.sh.
#
#   plan.sh PLAN_DIR [CONFIG_DIR]
#
# TF names the CLI (default terraform). With GITHUB_STEP_SUMMARY set, the
# summary line and the whole plan are added to the job's summary, which the
# pull request shows.
set -euo pipefail

log() { echo "plan: $*" >&2; }

tf=${TF:-terraform}
plan_dir=${1:?usage: plan.sh PLAN_DIR [CONFIG_DIR]}
mkdir -p "$plan_dir"
plan_dir=$(cd "$plan_dir" && pwd)
cd "${2:-.}"

git rev-parse 'HEAD^{tree}' >"$plan_dir/tree"
log "$tf init"
"$tf" init -input=false -no-color >&2
log "$tf plan -lock=false (speculative: nothing is written)"
rc=0
"$tf" plan -lock=false -input=false -no-color -detailed-exitcode -out="$plan_dir/tfplan" >"$plan_dir/plan-run.txt" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
  cat "$plan_dir/plan-run.txt" >&2
  log "the plan failed (exit code $rc)"
  exit "$rc"
fi
"$tf" show -no-color "$plan_dir/tfplan" >"$plan_dir/plan.txt"
summary=$(grep -E '^(Plan: |No changes\.)' "$plan_dir/plan.txt" | head -n1 || true)
[ -n "$summary" ] || summary="No changes."
echo "$summary" >"$plan_dir/summary"
log "$summary"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### Production plan"
    echo
    echo "**$summary** (tree \`$(cat "$plan_dir/tree")\`; applied as is after the merge)"
    echo
    echo "<details><summary>The whole plan</summary>"
    echo
    echo '```'
    cat "$plan_dir/plan.txt"
    echo '```'
    echo "</details>"
  } >>"$GITHUB_STEP_SUMMARY"
fi
