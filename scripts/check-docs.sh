#!/usr/bin/env bash
# Checks of docs/ beyond `tfplugindocs validate` (make docs-check), for the
# Terraform Registry, which shows docs/ alone, without the rest of the
# repository:
#   - no relative link leaves docs/ (link to the repository with an absolute
#     URL instead), and every relative target exists;
#   - images have absolute URLs: the Registry serves the pages, not the files
#     beside them;
#   - an absolute link to a file of this repository names a file that exists;
#   - every page but the index has one of the navigation subcategories;
#   - the pages speak to users: no `go run`, `go test`, `make ` or `./cmd/`
#     (developer material belongs in CONTRIBUTING.md and DESIGN.md).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

repo_url=https://github.com/zdm/terraform-provider-zdm
raw_url=https://raw.githubusercontent.com/zdm/terraform-provider-zdm
subcategories=("Workspaces & fleets" "Devices" "Jobs & firmware" "Time series" "Guides")

failed=0
fail() { echo "check-docs: $*" >&2; failed=1; }

# links FILE: the targets of the Markdown links, images and HTML src/href
# attributes of FILE, outside fenced code blocks and inline code.
links() {
  awk '/^[[:space:]]*(```|~~~)/ { code = !code; next } !code { gsub(/`[^`]*`/, ""); print }' "$1" |
    grep -oE '\]\([^)[:space:]]+|^\[[^]]+\]:[[:space:]]*[^[:space:]]+|(src|href)="[^"]+"' |
    sed -E 's/^\]\(//; s/^\[[^]]+\]:[[:space:]]*//; s/^(src|href)="//; s/"$//' || true
}

# developer_lines DIR: the lines of the pages under DIR that give developer
# commands, as FILE:LINE:TEXT.
developer_lines() {
  grep -rnE 'go run|go test|make |\./cmd/' "$1" --include='*.md' || true
}

# The check itself must see a planted developer line (its control).
planted=$(mktemp -d)
echo 'Start it with go run ./cmd/zdm-local.' >"$planted/page.md"
[ -n "$(developer_lines "$planted")" ] || fail "the developer-command check missed a planted line"
rm -rf "$planted"
while IFS= read -r line; do
  fail "$line: a developer command in the user docs (move it to CONTRIBUTING.md or DESIGN.md)"
done < <(developer_lines docs)

pages=0
while IFS= read -r -d '' page; do
  pages=$((pages + 1))
  dir=$(dirname "$page")
  while IFS= read -r target; do
    path=${target%%#*}
    case $target in
    "$repo_url"/blob/*/* | "$repo_url"/tree/*/* | "$raw_url"/*/*)
      rel=${target#"$repo_url"/blob/}; rel=${rel#"$repo_url"/tree/}; rel=${rel#"$raw_url"/}
      rel=${rel#*/}; rel=${rel%%#*}; rel=${rel%%\?*}
      [ -e "$rel" ] || fail "$page: $target names $rel, which is not in the repository"
      ;;
    *:* | "#"* | "") ;; # another site, an anchor of the page
    *)
      resolved=$(realpath -m "$dir/$path")
      case $resolved/ in
      "$PWD"/docs/*) # the Registry's page URLs have no .md
        [ -e "$resolved" ] || [ -e "$resolved.md" ] || fail "$page: $target: no such page or file" ;;
      *) fail "$page: $target leaves docs/, which the Registry shows alone: link $repo_url/blob/main/${resolved#"$PWD"/} instead" ;;
      esac
      ;;
    esac
  done < <(links "$page")
  while IFS= read -r image; do
    fail "$page: image $image is relative: the Registry does not serve it; use $raw_url/main/<path>"
  done < <(awk '/^[[:space:]]*(```|~~~)/ { code = !code; next } !code' "$page" |
    grep -oE '!\[[^]]*\]\([^)[:space:]]+|<img[^>]*src="[^"]+"' | sed -E 's/^!\[[^]]*\]\(//; s/.*src="//; s/"$//' |
    grep -vE '^[a-z]+:' || true)

  [ "$page" = docs/index.md ] && continue
  sub=$(sed -n '/^---$/,/^---$/{s/^subcategory: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p}' "$page" | head -n1)
  ok=0
  for s in "${subcategories[@]}"; do [ "$sub" = "$s" ] && ok=1; done
  [ $ok = 1 ] || fail "$page: subcategory \"$sub\" is not one of: $(printf '"%s" ' "${subcategories[@]}")(set it in templates/)"
done < <(find docs -name '*.md' -print0 | sort -z)

[ "$pages" -gt 0 ] || fail "no pages in docs/"
[ $failed = 0 ] || exit 1
echo "check-docs: $pages pages: links stay in docs/ or are absolute, images absolute, every page has a subcategory, no developer commands"
