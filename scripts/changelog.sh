#!/usr/bin/env bash
# The CHANGELOG names every release. Two uses:
#
#   scripts/changelog.sh check           (make lint) the first heading is
#       "## X.Y.Z (Unreleased)" or "## X.Y.Z (Month D, YYYY)"; an unreleased
#       version is newer than every vX.Y.Z tag, a dated one is tagged.
#   scripts/changelog.sh notes X.Y.Z     (release workflow) prints the section
#       of version X.Y.Z; fails when there is none or it is still "Unreleased".
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
file=CHANGELOG.md
heading='^## ([0-9]+\.[0-9]+\.[0-9]+) \((Unreleased|[A-Z][a-z]+ [0-9]{1,2}, [0-9]{4})\)$'

fail() { echo "changelog: $*" >&2; exit 1; }

case "${1:-}" in
check)
  first=$(grep -m1 '^## ' "$file") || fail "$file has no '## X.Y.Z (...)' heading"
  [[ $first =~ $heading ]] || fail "first heading '$first' is not '## X.Y.Z (Unreleased)' or '## X.Y.Z (Month D, YYYY)'"
  version=${BASH_REMATCH[1]} state=${BASH_REMATCH[2]}
  latest=$(git tag --list 'v[0-9]*.[0-9]*.[0-9]*' | sed 's/^v//' | sort -V | tail -n1)
  if [ "$state" = Unreleased ]; then
    if [ -n "$latest" ]; then
      newest=$(printf '%s\n%s\n' "$latest" "$version" | sort -V | tail -n1)
      if [ "$latest" = "$version" ] || [ "$newest" != "$version" ]; then
        fail "unreleased $version is not newer than the latest tag v$latest"
      fi
    fi
  elif ! git rev-parse -q --verify "refs/tags/v$version" >/dev/null; then
    fail "$version is dated ($state) but there is no tag v$version"
  fi
  echo "changelog: next release $version ($state)"
  ;;
notes)
  version=${2:?usage: changelog.sh notes X.Y.Z}
  section=$(awk -v v="$version" '
    /^## / { if (found) exit; if (index($0, "## " v " (") == 1) { found = 1; print; next } }
    found { print }' "$file")
  [ -n "$section" ] || fail "$file has no section for $version"
  if head -n1 <<<"$section" | grep -q '(Unreleased)'; then
    fail "$version is still 'Unreleased' in $file: date its heading before tagging"
  fi
  printf '%s\n' "$section"
  ;;
*)
  echo "usage: scripts/changelog.sh check | notes X.Y.Z" >&2
  exit 2
  ;;
esac
