#!/usr/bin/env bash
# Nightly property run: check() against the exhaustive oracle on many more
# random histories than the unit suite, from a fresh first seed each night.
#
#   scripts/nightly-property.sh [BUILD_DIR] [ITERS] [FIRST_SEED]
#
# BUILD_DIR defaults to build/, ITERS (histories per property test) to 200000,
# FIRST_SEED to one derived from today's date (printed, so a failure can be
# rerun). Any failure prints the seed and the history; exit status is gtest's.
# Extra knobs pass through the environment: ISOCHECK_PROPERTY_MIN_DECIDED,
# ISOCHECK_PROPERTY_BLIND_DECIDED (see tests/unit/property_test.cpp).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
iters="${2:-200000}"
seed="${3:-$(( $(date -u +%Y%m%d) * 1000003 % 2147483647 ))}"
bin="$build/tests/property_test"
if [[ ! -x "$bin" ]]; then
  echo "nightly-property: $bin not found; build first (cmake --build $build --target property_test)" >&2
  exit 2
fi
echo "nightly-property: first seed $seed, $iters histories per test, $(date -u +%FT%TZ)"
ISOCHECK_PROPERTY_SEED="$seed" ISOCHECK_PROPERTY_ITERS="$iters" "$bin" --gtest_brief=0
echo "nightly-property: done (first seed $seed)"
