#!/usr/bin/env bash
# gpulint beside checkov on the same synthetic tree, in one run.
#
#   benches/checkov.sh [FILES...]      # default: 100 1000
#
# Installs checkov from PyPI into target/checkov-venv (once), writes the bench's synthetic
# tree of each size (benches/tree.rs), and times `checkov -d TREE --quiet --compact` and
# `gpulint check TREE`, each over the whole tree with its own rules, output to /dev/null.
# Prints both times and the ratio. Needs Python 3.9+ and network access to PyPI once; Linux (du -b).
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKOV_VERSION=3.3.30
venv=target/checkov-venv
if [ ! -x "$venv/bin/checkov" ] || ! "$venv/bin/checkov" --version | grep -qx "$CHECKOV_VERSION"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "checkov==$CHECKOV_VERSION"
fi
cargo build --release --quiet --bench scale --bin gpulint
bench=$(cargo bench --bench scale --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable") and m["target"]["name"] == "scale"][0])')
# Wall seconds of one command, whatever its exit code (both exit 1 on findings).
seconds() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(time.perf_counter() - t)
PY
}
echo "checkov $("$venv/bin/checkov" --version), gpulint $(target/release/gpulint --version | cut -d' ' -f2), $(nproc) cores"
printf '%-8s %-8s %-12s %-12s %s\n' files MB checkov gpulint ratio
for files in "${@:-100 1000}"; do
  for n in $files; do
    tree=target/checkov-trees/$n
    [ -f "$tree/.complete" ] || { rm -rf "$tree"; "$bench" generate "$tree" "$n" > /dev/null; touch "$tree/.complete"; }
    mb=$(du -sb --exclude=.complete "$tree" | awk '{printf "%.1f", $1 / 1e6}')
    # checkov reads Terraform and Kubernetes only, as gpulint does; no network calls.
    c=$(seconds env BC_SKIP_MAPPING=TRUE "$venv/bin/checkov" -d "$tree" --framework terraform kubernetes \
      --quiet --compact --skip-download -o cli)
    # gpulint: the median of 5 runs (one run is a few milliseconds).
    g=$(for _ in 1 2 3 4 5; do seconds target/release/gpulint check "$tree"; done | sort -g | sed -n 3p)
    python3 -c 'import sys; n, mb, c, g = sys.argv[1:]; print(f"{n:<8} {mb:<8} {float(c):<10.2f}s {float(g):<10.4f}s {float(c) / float(g):.0f}x")' \
      "$n" "$mb" "$c" "$g"
  done
done
