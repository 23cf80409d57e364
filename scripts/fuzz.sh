#!/usr/bin/env bash
# Runs every Fuzz* target of the packages given for FUZZTIME each:
#   scripts/fuzz.sh FUZZTIME PKG...
# A target that fails with a failing input (written to its testdata/fuzz)
# fails the run at once. One that fails without any (the fuzzing
# coordinator's "context deadline exceeded" when a worker is slow to stop on
# a loaded machine) runs once more, and fails the run if it fails again.
set -euo pipefail
fuzztime=${1:?usage: fuzz.sh FUZZTIME PKG...}
shift
for pkg in "$@"; do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    for attempt in 1 2; do
      echo "fuzz: $pkg $target for $fuzztime"
      if out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg" 2>&1); then
        echo "$out"
        break
      fi
      echo "$out"
      if grep -q "Failing input written to" <<<"$out" || [ "$attempt" = 2 ]; then
        echo "fuzz: $pkg $target failed" >&2
        exit 1
      fi
      echo "fuzz: $pkg $target stopped without a failing input; running it once more" >&2
    done
  done
done
