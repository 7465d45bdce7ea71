#!/usr/bin/env bash
# Runs one fuzz target, seeded from the repository's fixtures.
#
#   fuzz/run.sh TARGET [RUNS] [extra libFuzzer flags]
#
# TARGET is hcl, eval, yaml, json or config; RUNS defaults to 10 million executions.
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# A hang over 1 s, more than 1 GiB of memory, a panic or an abort is a crash:
# libFuzzer stops and writes the input to fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh hcl|eval|yaml|json|config [RUNS] [flags]}
runs=${2:-10000000}
shift $(($# < 2 ? $# : 2))
repo=..
corpus=corpus/$target
mkdir -p "$corpus"
case $target in
hcl) pattern='.*\.(tf|tfvars)$' ;;
eval) pattern='' ;;  # any bytes are a program (program.rs): no seeds
yaml) pattern='.*\.ya?ml$' ;;
json) pattern='.*\.json$' ;;
config) pattern='.*\.toml$' ;;
*) echo "unknown target $target" >&2; exit 2 ;;
esac
# Every fixture, example and test file of the target's kind; configs from seeds/config.
[ -z "$pattern" ] || find $repo/fixtures $repo/examples $repo/tests/data seeds/$target -type f -regextype egrep \
  -regex "$pattern" 2>/dev/null | while read -r f; do
  cp "$f" "$corpus/seed-$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
done || true  # seeds/TARGET exists only for config
dict=()
[ -f "dict/$target.dict" ] && dict=(-dict="dict/$target.dict")
# Safe Rust (the crate forbids `unsafe`): AddressSanitizer would halve the speed and find
# nothing that a panic does not. -O builds dependencies as a release build does, and
# Cargo.toml turns debug assertions and overflow checks on for gpulint's own code.
exec cargo +nightly fuzz run -O --sanitizer none --no-trace-compares "$target" "$corpus" -- \
  -runs="$runs" -timeout=1 -rss_limit_mb=1024 -max_len=4096 -print_final_stats=1 \
  "${dict[@]}" "$@"
