#!/usr/bin/env bash
# `make examples-ci`: runs the users' CI example (examples/ci) end to end
# with the CLI given, through the very scripts its workflow calls:
#
#   1. setup-zdm-local/setup.sh installs zdm-local from a release built here
#      (a zip and its SHA256SUMS, as goreleaser lays them out, read over
#      file://), checks its checksum, starts it and exports its variables;
#      a control with a wrong checksum must be refused.
#   2. The pull-request check (examples/ci/scripts/pull-request.sh) on a git
#      repository holding examples/ci/config: test, reset, apply, empty plan.
#   3. The production flow against a second zdm-local, "production", whose
#      state is a local file standing in for the remote backend: plan.sh then
#      apply.sh (the first merge), a pull request that adds a device planned
#      with plan.sh (no write to the service or the state: checked) and
#      applied with apply.sh; then the controls: apply.sh refuses a plan whose
#      commit tree moved, and Terraform refuses a plan whose state moved.
#
# Usage: scripts/test-ci-example.sh CLI_BINARY PROVIDER_BUILD_DIR
set -euo pipefail

usage="usage: test-ci-example.sh CLI_BINARY PROVIDER_BUILD_DIR"
tf=${1:?$usage}
build_dir=${2:?$usage}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli=$(basename "$tf")

log() { echo "test-ci-example ($cli): $*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

[ -x "$build_dir/terraform-provider-zdm" ] || fail "no provider binary in $build_dir (run make build)"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# A release of zdm-local as the setup action downloads it.
version=0.0.0-ci
rel="$work/release"
mkdir -p "$rel/bin"
case $(uname -m) in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) fail "architecture $(uname -m)" ;; esac
os=$(uname -s | tr '[:upper:]' '[:lower:]')
log "building a zdm-local release $version"
go build -ldflags "-X main.version=$version" -o "$rel/bin/zdm-local" "$root/cmd/zdm-local"
zip="zdm-local_${version}_${os}_${arch}.zip"
(cd "$rel/bin" && zip -q "../$zip" zdm-local)
(cd "$rel" && sha256sum "$zip" >"terraform-provider-zdm_${version}_SHA256SUMS")

# The CLI installs the provider built from this checkout from a local
# mirror, as version 0.1.0 (a release that the configuration's constraint
# allows), with `init` as usual: no development overrides, which make init
# look the provider up in the registry once a state names it.
for host in registry.terraform.io registry.opentofu.org; do
  d="$work/mirror/$host/zdm/zdm/0.1.0/${os}_${arch}"
  mkdir -p "$d"
  cp "$build_dir/terraform-provider-zdm" "$d/terraform-provider-zdm_v0.1.0"
done
cat >"$work/cli.tfrc" <<CONF
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["registry.terraform.io/zdm/zdm", "registry.opentofu.org/zdm/zdm"]
  }
  direct {
    exclude = ["registry.terraform.io/zdm/zdm", "registry.opentofu.org/zdm/zdm"]
  }
}
CONF
export TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF="$tf" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1

# setup NAME [ENV...]: runs the setup action's script into $work/NAME, with
# its GITHUB_ENV, and loads what it exported into this shell.
setup() {
  local name=$1
  shift
  : >"$work/$name.github_env"
  env "$@" ZDM_LOCAL_VERSION=$version ZDM_LOCAL_RELEASE_URL="file://$rel" ZDM_LOCAL_DIR="$work/$name" \
    GITHUB_ENV="$work/$name.github_env" GITHUB_OUTPUT="$work/$name.github_output" \
    "$root/setup-zdm-local/setup.sh"
  pids+=("$(cat "$work/$name/zdm-local.pid")")
  set -a
  # shellcheck disable=SC1090
  . "$work/$name.github_env"
  set +a
  grep -q "^admin-url=$ZDM_ADMIN_URL\$" "$work/$name.github_output" || fail "setup wrote no admin-url output"
}

log "control: the setup action refuses an archive whose checksum is not the pinned one"
if env ZDM_LOCAL_SHA256=0000 ZDM_LOCAL_VERSION=$version ZDM_LOCAL_RELEASE_URL="file://$rel" \
  ZDM_LOCAL_DIR="$work/bad" "$root/setup-zdm-local/setup.sh" 2>"$work/bad.txt"; then
  kill "$(cat "$work/bad/zdm-local.pid")" 2>/dev/null || true
  fail "a wrong sha256 was not refused"
fi
grep -q "not installed" "$work/bad.txt" || { cat "$work/bad.txt" >&2; fail "the refusal does not say why"; }

# The repository of the configuration.
repo="$work/repo"
mkdir -p "$repo"
cp -R "$root/examples/ci/config/." "$repo/"
git -C "$repo" init -q
git -C "$repo" -c user.name=ci -c user.email=ci@example.com add -A
git -C "$repo" -c user.name=ci -c user.email=ci@example.com commit -qm "sensors"
commit() { git -C "$repo" -c user.name=ci -c user.email=ci@example.com commit -qam "$1"; }
# checkout NAME: a fresh clone of the repository's last commit, as each job
# of the workflow starts from; prints its path.
checkout() {
  rm -rf "${work:?}/${1:?}"
  git clone -q "$repo" "$work/$1"
  echo "$work/$1"
}

log "pull request: the functional check against zdm-local"
setup pr
job=$(checkout pr-job)
(cd "$job" && "$root/examples/ci/scripts/pull-request.sh") || fail "pull-request.sh"
[ -z "$(git -C "$job" status --porcelain --untracked-files=no)" ] || fail "pull-request.sh changed files of the repository"
[ ! -e "$job/backend_override.tf" ] || fail "pull-request.sh left its backend override"
log "pull request again on the same zdm-local (a re-run): fresh names, then a reset"
job=$(checkout pr-job)
(cd "$job" && "$root/examples/ci/scripts/pull-request.sh") || fail "pull-request.sh, second run"

# Production: another zdm-local, and a state file that outlives the jobs.
setup prod
cat >"$repo/backend.tf" <<CONF
terraform {
  backend "local" {
    path = "$work/production.tfstate"
  }
}
CONF
git -C "$repo" add backend.tf
commit "production backend"
# posts: the number of requests that are not GET the production server
# counted (its admin counters, by method and route).
posts() {
  curl -fsS "$ZDM_ADMIN_URL/counters" | grep -oE '"(POST|PUT|PATCH|DELETE) [^"]*": *[0-9]+' |
    sed 's/.*: *//' | awk '{ s += $1 } END { print s + 0 }'
}

log "first merge: plan.sh, then apply.sh of that plan"
"$root/examples/ci/scripts/plan.sh" "$work/plan1" "$(checkout plan-job)" || fail "plan.sh"
grep -q "^Plan: 2 to add" "$work/plan1/summary" || fail "first plan: $(cat "$work/plan1/summary"), want 2 to add"
"$root/examples/ci/scripts/apply.sh" "$work/plan1" "$(checkout apply-job)" || fail "apply.sh"
[ "$(posts)" -gt 0 ] || fail "control: the apply's writes were not counted, so the no-write check below would see nothing"

log "a pull request adds a device: its production plan writes nothing"
sed -i 's/default     = \["sn-0001", "sn-0002"\]/default     = ["sn-0001", "sn-0002", "sn-0003"]/' "$repo/main.tf"
grep -q 'sn-0003' "$repo/main.tf" || fail "could not edit the configuration"
commit "a third sensor"
before_posts=$(posts)
before_state=$(sha256sum "$work/production.tfstate")
"$root/examples/ci/scripts/plan.sh" "$work/plan2" "$(checkout plan-job)" || fail "plan.sh of the pull request"
grep -q "^Plan: 0 to add, 1 to change" "$work/plan2/summary" || fail "plan of the pull request: $(cat "$work/plan2/summary")"
[ "$(posts)" = "$before_posts" ] || fail "the production plan sent $(($(posts) - before_posts)) writes to the service"
[ "$(sha256sum "$work/production.tfstate")" = "$before_state" ] || fail "the production plan changed the state"

log "control: apply.sh refuses the plan once the commit's tree moved"
echo "# moved" >>"$repo/main.tf"
commit "moved"
if "$root/examples/ci/scripts/apply.sh" "$work/plan2" "$(checkout apply-job)" 2>"$work/moved.txt"; then fail "a plan of another tree was applied"; fi
grep -q "not the one the reviewed plan was made from" "$work/moved.txt" || { cat "$work/moved.txt" >&2; fail "apply.sh refused for another reason"; }
git -C "$repo" reset -q --hard HEAD~1

log "merge: apply.sh applies the reviewed plan"
job=$(checkout apply-job)
"$root/examples/ci/scripts/apply.sh" "$work/plan2" "$job" || fail "apply.sh of the reviewed plan"
(cd "$job" && "$tf" output -json device_ids) | grep -q 'sn-0003' || fail "the third device is not in the outputs"

log "control: a reviewed plan whose state moved since is refused"
sed -i 's/"sn-0003"\]/"sn-0003", "sn-0004"]/' "$repo/main.tf"
commit "a fourth sensor"
"$root/examples/ci/scripts/plan.sh" "$work/plan3" "$(checkout plan-job)" || fail "plan.sh (stale control)"
(cd "$job" && "$tf" apply -auto-approve -input=false -no-color -var 'serials=["sn-0001","sn-0002","sn-0003","sn-0005"]' >/dev/null) ||
  fail "the apply that moves the state"
if "$root/examples/ci/scripts/apply.sh" "$work/plan3" "$(checkout apply-job)" >"$work/stale.txt" 2>&1; then
  fail "a plan made before the state moved was applied"
fi
grep -qi "stale" "$work/stale.txt" || { cat "$work/stale.txt" >&2; fail "the stale plan was refused for another reason"; }
log "passed: setup action, pull request twice, production plan with no write, apply of the reviewed plan, both refusals"
