#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the measurements.  Cache policies in the userspace harness
# (out/bench/cache.md and plots); RESULT lines on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
echo "tree: $SRC_PKG $(pkg_version)"
stage bench "cache policies (harness)"
make -s -C "$REPO_DIR/harness" LAB_CACHE="$LAB_CACHE" >/dev/null
python3 "$REPO_DIR/harness/bench.py" --out "$REPO_DIR/out/bench" ${BENCH_ARGS:-}
