#!/usr/bin/env bash
# Installs the pinned development tools into $ZDM_TOOLS_DIR/bin (default
# ~/.cache/terraform-provider-zdm/bin) and prints that directory on stdout.
# Idempotent: a tool already present at its pinned version is not rebuilt.
#
#   golangci-lint  linters and formatters (make lint)
#   goreleaser     release configuration check and snapshot build (make release-check)
#   actionlint     checks the GitHub workflows (make lint)
#   tfplugindocs   documentation generator; pinned by the `tool` directive in the
#                  tooling module's go.mod (cmd/zdm-bench/go.mod) and built from its
#                  module graph, so its version moves with that go.mod
set -euo pipefail

GOLANGCI_LINT_VERSION="${GOLANGCI_LINT_VERSION:-v2.15.0}"
# goreleaser v2.18 and later require a newer Go than 1.26.
GORELEASER_VERSION="${GORELEASER_VERSION:-v2.13.3}"
ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"

TOOLS_DIR="${ZDM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-zdm}"
BIN_DIR="$TOOLS_DIR/bin"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { echo "install-tools: $*" >&2; }

# Never fetch a newer Go toolchain behind our back: fail instead.
export GOTOOLCHAIN=local

mkdir -p "$BIN_DIR"

# install NAME VERSION PACKAGE: go install PACKAGE@VERSION into a versioned
# directory, then point $BIN_DIR/NAME at it.
install_tool() {
  local name=$1 version=$2 pkg=$3
  local dir="$TOOLS_DIR/$name-$version"
  if [ ! -x "$dir/$name" ]; then
    log "installing $name $version (go install $pkg@$version)"
    local start=$SECONDS
    GOBIN="$dir" go install -trimpath "$pkg@$version"
    log "installed $name $version in $((SECONDS - start))s"
  fi
  ln -sfn "$dir/$name" "$BIN_DIR/$name"
}

install_tool golangci-lint "$GOLANGCI_LINT_VERSION" github.com/golangci/golangci-lint/v2/cmd/golangci-lint
install_tool goreleaser "$GORELEASER_VERSION" github.com/goreleaser/goreleaser/v2
install_tool actionlint "$ACTIONLINT_VERSION" github.com/rhysd/actionlint/cmd/actionlint

# tfplugindocs: the version pinned in the tooling module (`go get -tool` in
# cmd/zdm-bench). Rebuilt only when its go.mod names another version.
TOOLING="$ROOT/cmd/zdm-bench"
tfpd_version=$(cd "$TOOLING" && go list -m -f '{{.Version}}' github.com/hashicorp/terraform-plugin-docs)
tfpd_dir="$TOOLS_DIR/tfplugindocs-$tfpd_version"
if [ ! -x "$tfpd_dir/tfplugindocs" ]; then
  log "building tfplugindocs $tfpd_version (tool of cmd/zdm-bench/go.mod)"
  mkdir -p "$tfpd_dir"
  (cd "$TOOLING" && go build -trimpath -o "$tfpd_dir/tfplugindocs" github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs)
fi
ln -sfn "$tfpd_dir/tfplugindocs" "$BIN_DIR/tfplugindocs"

echo "$BIN_DIR"
