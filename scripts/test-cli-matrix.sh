#!/usr/bin/env bash
# Smoke test of the provider on the older Terraform releases we support
# (make test-cli-matrix; `make test` runs the whole acceptance suite on the
# newest Terraform and OpenTofu). Each CLI is built once from the Go module
# proxy by scripts/install-terraform.sh and cached.
#
# The smoke subset: create, read, update and import of every resource kind,
# the import errors, one data source of each kind, the provider's validation,
# the waits of the scheduling resources (and that a failed wait is never sent
# again), and one list resource and one action. Tests of features a CLI lacks skip
# themselves (import by identity and its errors below 1.12, list resources and actions
# below 1.14); this script fails unless exactly those skip and all others pass.
#
# Usage: scripts/test-cli-matrix.sh [VERSION...]   (default: $CLI_MATRIX)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# NAME or NAME:MIN, MIN being the oldest Terraform release that runs the test.
smoke=(
  WorkspaceResource FleetResource DeviceResource DeviceJobResource FleetJobResource FotaResource
  DeviceJobWait FleetWait
  ImportErrors:1.12
  WorkspaceDataSources FleetDataSources DeviceDataSource DevicesDataSource DeviceJobsDataSources
  FotaStatusDataSource TimeseriesDataSource
  ProviderValidation
  DeviceIdentityImport:1.12
  DeviceListResource:1.14 ScheduleJobAction:1.14
)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || read -r -a versions <<<"${CLI_MATRIX:-1.14.8 1.5.7}"

log() { echo "test-cli-matrix: $*" >&2; }
older() { # true when version $1 is older than $2
  [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$1" ]
}

names=()
for t in "${smoke[@]}"; do names+=("${t%%:*}"); done
run="^TestAcc($(IFS='|'; echo "${names[*]}"))\$"

failed=0
for v in "${versions[@]}"; do
  start=$SECONDS
  tf=$(TF_VERSION=$v scripts/install-terraform.sh)
  log "Terraform $v at $tf (ready in $((SECONDS - start))s)"
  start=$SECONDS
  out=$(mktemp)
  status=0
  # CI=false: with CI=true the suite fails any run whose CLI makes tests skip
  # (acctest.SkipReport), which is the point of these older CLIs. This script
  # checks the skips itself, more strictly: each smoke test must pass, or
  # skip exactly when the CLI is below its minimum version.
  CI=false TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tf" go test -count=1 -v -timeout 30m -run "$run" ./internal/provider/... ./internal/connection/... ./internal/service/... >"$out" 2>&1 || status=$?
  pass=$(grep -cE '^--- PASS: TestAcc' "$out" || true)
  skip=$(grep -cE '^--- SKIP: TestAcc' "$out" || true)
  fail=$(grep -cE '^--- FAIL: TestAcc' "$out" || true)
  bad=()
  for t in "${smoke[@]}"; do
    name=${t%%:*} min=${t#*:}
    [ "$min" = "$t" ] && min=0
    want=PASS
    older "$v" "$min" && want=SKIP
    grep -qE "^--- $want: TestAcc$name " "$out" || bad+=("TestAcc$name (want $want)")
  done
  log "Terraform $v: $pass passed, $skip skipped (below their minimum version), $fail failed, in $((SECONDS - start))s"
  if [ "$status" -ne 0 ] || [ ${#bad[@]} -gt 0 ]; then
    grep -E '^(--- FAIL|FAIL|panic|\s+.*_test\.go:[0-9]+:)' "$out" | head -n 60 >&2 || true
    [ ${#bad[@]} -eq 0 ] || log "Terraform $v: unexpected results: ${bad[*]}"
    failed=1
  fi
  rm -f "$out"
done
exit "$failed"
