# shellcheck shell=bash
# Sourced by scripts/demo.sh and scripts/test-examples-tftest.sh: builds and
# starts zdm-local (cmd/zdm-local) on free loopback ports for a script that
# drives the Terraform CLI against it, and stops it when the script exits.
#
#   zdm_local_start ROOT BUILD_DIR WORK
#
# ROOT is the repository, BUILD_DIR the directory of the provider binary
# (make build), WORK a temporary directory the script owns: it is removed on
# exit. On return the ZDM_* variables of zdm-local's env file are exported, and TF_CLI_CONFIG_FILE points the CLI at BUILD_DIR
# (dev_overrides). The caller defines log.

zdm_local_server_pid=
zdm_local_work=

zdm_local_cleanup() {
  if [ -n "$zdm_local_server_pid" ] && kill -0 "$zdm_local_server_pid" 2>/dev/null; then
    kill "$zdm_local_server_pid" 2>/dev/null || true
    wait "$zdm_local_server_pid" 2>/dev/null || true
  fi
  [ -z "$zdm_local_work" ] || rm -rf "$zdm_local_work"
}

zdm_local_start() {
  local root=$1 build_dir=$2 work=$3
  zdm_local_work=$work
  trap zdm_local_cleanup EXIT
  [ -x "$build_dir/terraform-provider-zdm" ] || { log "no provider binary in $build_dir (run make build)"; exit 1; }

  log "building zdm-local"
  go build -o "$work/zdm-local" "$root/cmd/zdm-local"

  log "starting zdm-local"
  "$work/zdm-local" -env-file "$work/zdm.env" >"$work/zdm-local.log" 2>&1 &
  zdm_local_server_pid=$!
  for _ in $(seq 1 100); do
    [ -s "$work/zdm.env" ] && grep -q ZDM_API_KEY "$work/zdm.env" && break
    kill -0 "$zdm_local_server_pid" 2>/dev/null || { cat "$work/zdm-local.log" >&2; log "zdm-local exited"; exit 1; }
    sleep 0.1
  done
  [ -s "$work/zdm.env" ] || { cat "$work/zdm-local.log" >&2; log "zdm-local wrote no env file"; exit 1; }
  # shellcheck disable=SC1091
  . "$work/zdm.env"
  log "zdm-local is serving $ZDM_BASE_URL (storage $ZDM_STORAGE_URL), workspace $ZDM_WORKSPACE_ID"

  cat >"$work/cli.tfrc" <<CONF
provider_installation {
  dev_overrides {
    "registry.terraform.io/zdm/zdm" = "$build_dir"
  }
  direct {}
}
CONF
  export TF_CLI_CONFIG_FILE="$work/cli.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
}
