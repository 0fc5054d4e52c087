#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build, boot, and show the project at work (guest/demo/run).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
echo "tree: $SRC_PKG $(pkg_version)"
"$LAB_DIR/apply.sh"
"$LAB_DIR/build.sh" guest
"$LAB_DIR/rootfs.sh" guest
"$LAB_DIR/qemu.sh" guest demo

# The thermal step load: ours, step_wise and the packaged power_allocator.
echo
echo "== step load from cool on the emulated SoC (600 simulated seconds)"
BENCH_OUT=$REPO_DIR/out/demo "$LAB_DIR/bench.sh" thermal step 2>/dev/null |
	python3 -c '
import sys
rows = {}
for line in sys.stdin:
    f = line.split()
    if f[:1] == ["RESULT"]:
        _, scen, gov, metric = f[1].split(".")
        rows.setdefault(gov, {})[metric] = float(f[2])
cols = ["overshoot_c", "settle_s", "steady_error_c", "ripple_c", "work_pct_of_optimum"]
print("%-10s" % "governor" + "".join("%22s" % c for c in cols))
for gov in ("ours", "tree", "step_wise"):
    if gov in rows:
        print("%-10s" % gov + "".join("%22.2f" % rows[gov][c] for c in cols))
'
echo "(plots: out/demo/thermal-step.png)"
