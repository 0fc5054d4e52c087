#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# Four fio jobs of reads, writes and discards while the table is reloaded
# smq -> cleaner -> smq and migration_threshold changes; the data the
# writers verified reads back right afterwards.
. /tests/lib.sh
plan 5
trap teardown_cache_devs EXIT
ok "cache devices" setup_cache_devs
zero_metadata
ok "writeback smq cache" create_cache writeback smq

jobs="--name=w1 --offset=0 --size=48M --rw=randrw --name=w2 --offset=48M --size=48M --rw=randrw
	--name=w3 --offset=96M --size=48M --rw=randrw --name=t --offset=160M --size=64M --rw=randtrim"
# A time-based writer never reaches a verify phase, and the reads of its
# mix verify nothing: each job reads back every 64 blocks it wrote.
common="--filename=/dev/mapper/lab-cache --bs=64k --ioengine=psync --direct=1 --randseed=99
	--verify=crc32c --verify_fatal=1 --verify_backlog=64 --output-format=terse"
fio --time_based --runtime="${STRESS_S:-20}" $common $jobs >/tmp/stress.out 2>&1 &
fpid=$!
n=0
refused=0
while kill -0 $fpid 2>/dev/null; do
	case $((n % 4)) in
	0) reload_cache writeback cleaner ;;
	1) reload_cache writeback smq ;;
	2) dmsetup message lab-cache 0 migration_threshold $((512 + n * 256)) ;;
	3) reload_cache writeback smq migration_threshold 64 ;;
	esac || refused=$((refused + 1))
	n=$((n + 1))
	sleep 1
done
wait $fpid
rc=$?
ok "fio verified its writes after $n table changes and threshold moves" test $rc -eq 0
is "none of them refused" "$refused" 0
tail -n 3 /tmp/stress.out | sed 's/^/# /'
ok "no kernel warning" sh -c "! dmesg | grep -q 'WARNING:'"
