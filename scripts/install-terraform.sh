#!/usr/bin/env bash
# Prints the path of a Terraform CLI >= 1.14 on stdout, building one from the Go
# module proxy when none is on PATH. The binary is cached outside the repository
# (ZDM_TOOLS_DIR, default ~/.cache/terraform-provider-zdm) so later runs are instant.
#
# TF_VERSION=X.Y.Z asks for exactly that release instead (make test-cli-matrix
# builds the older releases we support this way); PATH is then not searched.
set -euo pipefail

EXACT="${TF_VERSION:-}"
TF_VERSION="${TF_VERSION:-1.15.0}"
TOOLS_DIR="${ZDM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-zdm}"
BIN="$TOOLS_DIR/terraform-$TF_VERSION/terraform"

log() { echo "install-terraform: $*" >&2; }

version_ok() { # $1 = binary; true when its version is >= 1.14 (or is TF_VERSION)
  local v
  v=$("$1" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([0-9.]*\).*/\1/p' | head -n1)
  [ -n "$v" ] || return 1
  if [ -n "$EXACT" ]; then [ "$v" = "$EXACT" ]; return; fi
  local major minor
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 14 ]; }
}

if [ -x "$BIN" ] && version_ok "$BIN"; then echo "$BIN"; exit 0; fi
if [ -z "$EXACT" ] && command -v terraform >/dev/null 2>&1 && version_ok "$(command -v terraform)"; then
  command -v terraform; exit 0
fi

log "building Terraform v$TF_VERSION from the Go module proxy (a few minutes, once)"
MOD="github.com/hashicorp/terraform@v$TF_VERSION"
# Download the module zip into the module cache without touching any go.mod.
dir=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "$MOD" | sed -n 's/^[[:space:]]*"Dir": *"\(.*\)",\{0,1\}$/\1/p')
[ -d "$dir" ] || { log "module download failed"; exit 1; }

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -r "$dir/." "$work/src"
chmod -R u+w "$work/src"
cd "$work/src"

# Nested backend modules (1.6 and later) are not in the module zip: drop their
# replace/require lines and the imports and registrations that use them. In
# older releases the backends are part of the module and these edits only drop
# some backends we never use.
nested='internal/backend/remote-state/(azure|consul|cos|gcs|kubernetes|oss|pg|s3|oci)|internal/legacy'
grep -Ev "^[[:space:]]*(replace[[:space:]]+)?github.com/hashicorp/terraform/($nested)[[:space:]]" go.mod > go.mod.new
mv go.mod.new go.mod
init=internal/backend/init/init.go
grep -Ev "remote-state/(azure|consul|cos|gcs|kubernetes|oss|pg|s3|oci)\"" "$init" |
  grep -Ev '^[[:space:]]*"(azurerm|consul|cos|gcs|kubernetes|oss|pg|s3|oci)":' > "$init.new"
mv "$init.new" "$init"

mkdir -p "$(dirname "$BIN")"
GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" -o "$BIN.tmp" .
mv "$BIN.tmp" "$BIN"
version_ok "$BIN" || { log "built binary does not report ${EXACT:->= 1.14}"; exit 1; }
log "built $("$BIN" version 2>/dev/null | grep -m1 -E "^(Terraform|OpenTofu) v") at $BIN"
echo "$BIN"
