#!/usr/bin/env bash
# `make local`: runs zdm-local in the foreground, its state, env file and CLI
# configuration in DIR (.zdm-local/, ignored by git), after printing how to
# use it from a second terminal. Ctrl-C (or SIGTERM) stops it cleanly: the
# binary runs in place of this script, so no process is left behind.
#
# Usage: [TERRAFORM_BIN=PATH] scripts/local.sh BUILD_DIR DIR [zdm-local flags]
# TERRAFORM_BIN (make local sets it) is the Terraform CLI the project tests
# with: the steps put its directory first on PATH, so that an older terraform
# of the machine does not run instead.
set -euo pipefail

build_dir=${1:?usage: local.sh BUILD_DIR DIR [zdm-local flags]}
dir=${2:?usage: local.sh BUILD_DIR DIR [zdm-local flags]}
shift 2

[ -x "$build_dir/zdm-local" ] || { echo "local: no $build_dir/zdm-local (run make local)" >&2; exit 1; }
mkdir -p "$dir"
chmod 700 "$dir"

# dev_overrides for both CLIs: Terraform resolves zdm/zdm on
# registry.terraform.io, OpenTofu on registry.opentofu.org.
cat > "$dir/dev.tfrc" <<CONF
provider_installation {
  dev_overrides {
    "registry.terraform.io/zdm/zdm" = "$build_dir"
    "registry.opentofu.org/zdm/zdm" = "$build_dir"
  }
  direct {}
}
CONF

rel=${dir#"$PWD"/}
path_step=
if [ -n "${TERRAFORM_BIN:-}" ]; then
  path_step="  # the Terraform CLI >= 1.14 this project tests with, ahead of any older one on PATH
  export PATH=$(dirname "$TERRAFORM_BIN"):\$PATH
"
fi
cat <<STEPS
zdm-local runs in this terminal; Ctrl-C stops it. Its state is kept in
$rel/state.json across restarts (same API key and workspace).

In a second terminal, in $PWD:

  # the URLs and the API key (ZDM_BASE_URL, ZDM_API_KEY, ...)
  . $rel/zdm.env
${path_step}  # use the provider built in ${build_dir#"$PWD"/}/ (dev_overrides for Terraform and OpenTofu)
  export TF_CLI_CONFIG_FILE=\$PWD/$rel/dev.tfrc
  # no init needed with dev_overrides; both CLIs warn that they are in use
  terraform -chdir=examples/quickstart apply    # or: tofu -chdir=examples/quickstart apply
  # a fleet job that waits until every device has run it
  terraform -chdir=examples/fleet-job apply
  # a job rolled out in waves, gated on the health points the devices publish
  terraform -chdir=examples/health-rollout apply

The simulated devices complete jobs and firmware updates two seconds after
they are scheduled (LOCAL_ARGS=-devices-answer=false leaves them pending;
bin/zdm-local -h lists the -devices-* flags). Each completion publishes a
health point (tag boot_ok) into the storage service
(LOCAL_ARGS=-devices-health=false turns that off).

STEPS

exec "$build_dir/zdm-local" -state-file "$dir/state.json" -env-file "$dir/zdm.env" "$@"
