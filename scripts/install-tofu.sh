#!/usr/bin/env bash
# Prints the path of an OpenTofu CLI on stdout, building one from the Go module
# proxy when none of the wanted version is on PATH. The binary is cached outside
# the repository (ZDM_TOOLS_DIR, default ~/.cache/terraform-provider-zdm).
set -euo pipefail

TOFU_VERSION="${TOFU_VERSION:-1.12.6}"
TOOLS_DIR="${ZDM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-zdm}"
BIN="$TOOLS_DIR/tofu-$TOFU_VERSION/tofu"

log() { echo "install-tofu: $*" >&2; }

version_ok() { # $1 = binary; true when it is OpenTofu $TOFU_VERSION
  local v
  v=$("$1" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([0-9.]*\).*/\1/p' | head -n1)
  [ "$v" = "$TOFU_VERSION" ]
}

if [ -x "$BIN" ] && version_ok "$BIN"; then echo "$BIN"; exit 0; fi
if command -v tofu >/dev/null 2>&1 && version_ok "$(command -v tofu)"; then
  command -v tofu; exit 0
fi

log "building OpenTofu v$TOFU_VERSION from the Go module proxy (a few minutes, once)"
MOD="github.com/opentofu/opentofu@v$TOFU_VERSION"
# Download the module zip into the module cache without touching any go.mod.
dir=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "$MOD" | sed -n 's/^[[:space:]]*"Dir": *"\(.*\)",\{0,1\}$/\1/p')
[ -d "$dir" ] || { log "module download failed"; exit 1; }

# The module's go.mod has a replace directive (its HCL fork), which `go install
# module@version` refuses; building from a copy of the module directory honours it.
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -r "$dir/." "$work/src"
chmod -R u+w "$work/src"
cd "$work/src"

mkdir -p "$(dirname "$BIN")"
GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$BIN.tmp" ./cmd/tofu
mv "$BIN.tmp" "$BIN"
version_ok "$BIN" || { log "built binary does not report $TOFU_VERSION"; exit 1; }
log "built $("$BIN" version 2>/dev/null | grep -m1 -E "^(Terraform|OpenTofu) v") at $BIN"
echo "$BIN"
