#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the measurements, as RESULT lines on stdout and reports with
# plots in out/bench/ (cache.md, cache-guest.md, thermal.md).
#  - cache policies: the userspace harness replays traces (harness/bench.py),
#    and a few of them go through dm-cache in the two guests below, ours
#    and the tree's smq (lab/cache_guest_bench.py);
#  - thermal governors: the emulated SoC in two guests, ours and step_wise
#    on our kernel, the packaged power_allocator on the tree's kernel with
#    only the emulated platform added (lab/ipa_bench.py).
#   lab/bench.sh [cache|thermal] [scenario,...]    default: both, all scenarios
set -euo pipefail
. "$(dirname "$0")/lib.sh"
what=${1:-all}
scenarios=${2:-}
dest=${BENCH_OUT:-$REPO_DIR/out/bench}
mkdir -p "$dest"
"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
echo "tree: $SRC_PKG $(pkg_version)"

if [ "$what" != thermal ]; then
	stage bench "cache policies (harness)"
	make -s -C "$REPO_DIR/harness" LAB_CACHE="$LAB_CACHE" >/dev/null
	python3 "$REPO_DIR/harness/bench.py" --out "$dest" ${BENCH_ARGS:-}
fi

# Both guests boot for either half: thermal scenarios, trace replays.
input=
if [ "$what" != thermal ]; then
	input=$OUT/bench-input.tar
	python3 "$LAB_DIR/cache_guest_bench.py" export "$input"
fi
for spec in guest:ours,step_wise tree:tree; do
	flavour=${spec%%:*}
	govs=${spec#*:}
	[ "$what" != cache ] || govs=none
	"$LAB_DIR/apply.sh" "$flavour"
	"$LAB_DIR/build.sh" "$flavour"
	"$LAB_DIR/rootfs.sh" "$flavour"
	LAB_BENCH_INPUT=$input \
		LAB_CMDLINE="lab.govs=$govs ${scenarios:+lab.scenarios=$scenarios}" \
		"$LAB_DIR/qemu.sh" "$flavour" bench
	grep '^bench:' "$OUT/bench-$flavour.log" >&2 || true
	rm -rf "$OUT/bench-$flavour"
	mkdir -p "$OUT/bench-$flavour"
	tar -xf "$OUT/bench-$flavour.img" -C "$OUT/bench-$flavour" ||
		die "no results from the $flavour guest, log: $OUT/bench-$flavour.log"
done
if [ "$what" != cache ]; then
	stage bench "thermal governors (metrics)"
	python3 "$LAB_DIR/ipa_bench.py" "$dest" "$OUT/bench-guest" "$OUT/bench-tree"
fi
if [ "$what" != thermal ]; then
	stage bench "cache policies (traces through dm-cache in the guests)"
	python3 "$LAB_DIR/cache_guest_bench.py" report "$dest" \
		"$OUT/bench-guest/cache.txt" "$OUT/bench-tree/cache.txt"
fi
