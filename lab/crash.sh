#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Power cuts: metadata, cache, origin and an acknowledgement log on
# virtio disks backed by files of the host, so that data outlives the
# guest.  Each cut boots a guest that writes through a writeback smq cache,
# kills QEMU at a seeded random moment, and boots again to check:
# cache_check passes, and every acknowledged block reads back through the
# reassembled cache and from the origin alone after a cleaner flush.
#   lab/crash.sh [cuts] [seed]     defaults: 3 cuts, seed from the clock
# The guest kernel and initramfs must be built (lab/test.sh does it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cuts=${1:-3}
seed=${2:-$(date +%s)}
dir=$OUT/crash
stage crash "$cuts power cut(s), seed $seed"
mkdir -p "$dir"

lost_total=0
bad=0
for ((cut = 1; cut <= cuts; cut++)); do
	s=$(((seed * 1103515245 + cut * 12345) % 2147483648))
	delay_ms=$((2000 + s % 8000))
	rm -f "$dir"/*.img
	truncate -s 16M "$dir/meta.img"
	truncate -s 64M "$dir/cache.img"
	truncate -s 256M "$dir/origin.img"
	truncate -s 16M "$dir/log.img"
	disks=""
	for d in meta cache origin log; do
		disks="$disks -drive file=$dir/$d.img,format=raw,if=virtio"
	done

	log=$OUT/crashw-guest.log
	rm -f "$log"	# so that the writer's start is this boot's
	LAB_QEMU_ARGS="$disks" LAB_CMDLINE="lab.seed=$s" LAB_TIMEOUT=300 \
		"$LAB_DIR/qemu.sh" guest crashw 2>/dev/null &
	qpid=$!
	for _ in $(seq 600); do
		grep -q 'crashio: writing' "$log" 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'crashio: writing' "$log" 2>/dev/null ||
		die "cut $cut: the writer never started, log: $log"
	sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
	pkill -KILL -f "file:$log" || true
	wait $qpid || true

	LAB_QEMU_ARGS="$disks" LAB_TIMEOUT=600 "$LAB_DIR/qemu.sh" guest crashv 2>/dev/null ||
		die "cut $cut: the check boot failed, log: $OUT/crashv-guest.log"
	result=$(grep '^CRASH-RESULT' "$OUT/crashv-guest.log" || true)
	acked=$(grep -o '[0-9]* batches acknowledged' "$OUT/crashv-guest.log" | head -n 1 || true)
	cp "$OUT/crashv-guest.log" "$dir/check-$cut.log"
	echo "cut $cut: seed $s, killed ${delay_ms} ms into the writes, ${acked:-no batch acknowledged}: ${result#CRASH-RESULT }"
	case $result in
	*"cache_check=ok lost_cache=0 lost_origin=0") ;;
	*) bad=$((bad + 1)) ;;
	esac
	for n in $(echo "$result" | grep -o 'lost_[a-z]*=[0-9-]*' | cut -d= -f2); do
		[ "$n" -ge 0 ] 2>/dev/null && lost_total=$((lost_total + n))
	done
done

echo "RESULT power_cuts $cuts"
echo "RESULT lost_blocks $lost_total"
[ "$bad" -eq 0 ] || die "$bad of $cuts cut(s) lost data or failed cache_check (logs in $dir)"
