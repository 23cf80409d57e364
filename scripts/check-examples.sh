#!/usr/bin/env bash
# Checks the examples/ tree against the provider binary just built:
#   - `terraform fmt -check` on every file,
#   - `bash -n` on every import.sh,
#   - `terraform validate` in every directory holding .tf files (with its
#     .tfquery.hcl files when the CLI supports `validate -query`, and its
#     tests/*.tftest.hcl files), after `terraform get` when it calls a
#     module.
# The provider is taken from dev_overrides, so no registry is involved.
#
# Usage: scripts/check-examples.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR
set -euo pipefail

tf=${1:?usage: check-examples.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR}
build_dir=${2:?usage: check-examples.sh TERRAFORM_BINARY PROVIDER_BUILD_DIR}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
examples="$root/examples"

[ -x "$build_dir/terraform-provider-zdm" ] || { echo "check-examples: no provider binary in $build_dir (run make build)" >&2; exit 1; }
[ -d "$examples" ] || { echo "check-examples: no examples/ directory" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Snippets without a required_providers block resolve `zdm` to hashicorp/zdm;
# override both addresses with the binary under test.
cat > "$work/cli.tfrc" <<CONF
provider_installation {
  dev_overrides {
    "registry.terraform.io/zdm/zdm"       = "$build_dir"
    "registry.terraform.io/hashicorp/zdm" = "$build_dir"
  }
  direct {}
}
CONF
export TF_CLI_CONFIG_FILE="$work/cli.tfrc"
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

failed=0
fail() { echo "check-examples: FAIL $*" >&2; failed=1; }

echo "check-examples: terraform fmt -check -recursive examples"
"$tf" fmt -check -recursive -diff "$examples" || fail "terraform fmt: run 'make fmt'"

while IFS= read -r -d '' f; do
  bash -n "$f" || fail "syntax of ${f#"$root"/}"
done < <(find "$examples" -name '*.sh' -print0)

query_ok=0
"$tf" validate -help 2>&1 | grep -q -- '-query' && query_ok=1

# Each directory is validated in a copy of the whole tree, so that a module
# source such as ../modules/fleet resolves; a directory that calls a module
# (in its .tf files or, in a run block, in its tests/) has its modules
# installed first (`terraform get`; the provider comes from dev_overrides). validate
# also checks the tests/*.tftest.hcl files of a directory.
tree="$work/examples"
cp -R "$examples" "$tree"

n=0
while IFS= read -r dir; do
  rel=${dir#"$root"/}
  copy="$tree/${dir#"$examples"/}"
  args=(validate -no-color)
  if [ "$query_ok" != 1 ]; then
    rm -f "$copy"/*.tfquery.hcl
  elif compgen -G "$dir/*.tfquery.hcl" >/dev/null; then
    args+=(-query)
  fi
  # validate needs no backend, and the CLI built for these checks carries
  # only the local and remote ones: an override file puts a local backend in
  # place of the example's (such as s3) in the copy.
  if grep -qsE '^[[:space:]]*backend[[:space:]]+"' "$dir"/*.tf; then
    printf 'terraform {\n  backend "local" {}\n}\n' >"$copy/zz_check_examples_override.tf"
  fi
  if grep -qsE '^[[:space:]]*module([[:space:]]+"|[[:space:]]*\{)' "$dir"/*.tf "$dir"/tests/*.tftest.hcl; then
    if ! out=$("$tf" -chdir="$copy" get -no-color 2>&1); then
      echo "$out" >&2
      fail "terraform get $rel"
      n=$((n + 1))
      continue
    fi
  fi
  if out=$("$tf" -chdir="$copy" "${args[@]}" 2>&1); then
    echo "check-examples: ok   $rel"
  else
    echo "$out" | grep -v -i -e 'provider development overrides' -e 'dev_overrides' >&2 || true
    fail "terraform validate $rel"
  fi
  n=$((n + 1))
done < <(find "$examples" -name '*.tf' -exec dirname {} \; | sort -u)

# Query-only directories (list resources): validate each with a provider block.
if [ "$query_ok" = 1 ]; then
  while IFS= read -r dir; do
    compgen -G "$dir/*.tf" >/dev/null && continue
    rel=${dir#"$root"/}
    copy="$work/validate/$n"
    mkdir -p "$copy"
    cp "$dir"/*.tfquery.hcl "$copy"/
    if out=$("$tf" -chdir="$copy" validate -no-color -query 2>&1); then
      echo "check-examples: ok   $rel"
    else
      echo "$out" >&2
      fail "terraform validate -query $rel"
    fi
    n=$((n + 1))
  done < <(find "$examples" -name '*.tfquery.hcl' -exec dirname {} \; | sort -u)
fi

[ "$n" -gt 0 ] || fail "no example directories found"
[ "$failed" = 0 ] || exit 1
echo "check-examples: $n example directories valid"
