#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# I/O errors under the origin, the cache device and the metadata: errors
# reach the caller, a metadata failure turns the cache read-only with
# needs_check, and after repair the data is intact.
. /tests/lib.sh
plan 13
cleanup() {
	for d in lab-cache lab-meta lab-fast lab-origin; do dmsetup remove $d 2>/dev/null; done
	return 0
}
trap cleanup EXIT
up() { echo "0 $2 flakey $1 0 100000 0"; }		# always up
down() { echo "0 $2 flakey $1 0 0 100000"; }		# every I/O fails
swap() { dmsetup reload "$1" --table "$2" && dmsetup suspend "$1" && dmsetup resume "$1"; }
META=$((16 * 2048)) FAST=$((64 * 2048)) ORIG=$((256 * 2048))

ok "metadata, cache and origin over dm-flakey" sh -c "
	dmsetup create lab-meta --table '$(up /dev/ram0 $META)' &&
	dmsetup create lab-fast --table '$(up /dev/ram1 $FAST)' &&
	dmsetup create lab-origin --table '$(up /dev/ram2 $ORIG)' && dmsetup mknodes"
zero_metadata
ok "writeback smq cache" create_cache writeback smq migration_threshold 0
FIO_SIZE=32M fio_verify /dev/mapper/lab-cache write >/dev/null
ge "dirty blocks in the cache" "$(cache_field dirty)" 1

# a block that is not cached: beyond what fio wrote
swap lab-origin "$(down /dev/ram2 $ORIG)"
fails "origin errors reach the reader" dd if=/dev/mapper/lab-cache of=/dev/null bs=64k count=1 \
	skip=3000 iflag=direct
swap lab-origin "$(up /dev/ram2 $ORIG)"
is "the cache is still read-write" "$(dmsetup status lab-cache | awk '{print $(NF-1)}')" rw
ok "data intact once the origin is back" sh -c ". /tests/lib.sh; FIO_SIZE=32M fio_verify /dev/mapper/lab-cache verify"

swap lab-fast "$(down /dev/ram1 $FAST)"
fails "cache device errors reach the reader" sh -c ". /tests/lib.sh; FIO_SIZE=32M fio_verify /dev/mapper/lab-cache verify"
swap lab-fast "$(up /dev/ram1 $FAST)"
ok "data intact once the cache device is back" sh -c ". /tests/lib.sh; FIO_SIZE=32M fio_verify /dev/mapper/lab-cache verify"

# the metadata device fails: the next commit fails and the cache degrades
sync
swap lab-meta "$(down /dev/ram0 $META)"
dd if=/dev/zero of=/dev/mapper/lab-cache bs=64k count=64 seek=2000 oflag=direct 2>/dev/null
sync /dev/mapper/lab-cache 2>/dev/null
sleep 2
st=$(dmsetup status lab-cache)
diag "status after the metadata failed: $(echo "$st" | awk '{print $(NF-1), $NF}')"
# documented: read-only with needs_check, or Fail when even that flag
# cannot be written
ok "degraded: read-only with needs_check, or Fail" sh -c "echo '$st' | grep -q ' ro needs_check *\$\| Fail *\$'"
dmsetup remove lab-cache
swap lab-meta "$(up /dev/ram0 $META)"
ok "cache_repair onto fresh metadata" sh -c "
	dd if=/dev/zero of=/dev/ram3 bs=1M count=16 2>/dev/null &&
	cache_repair -i /dev/mapper/lab-meta -o /dev/ram3 &&
	dd if=/dev/ram3 of=/dev/mapper/lab-meta bs=1M count=16 oflag=direct 2>/dev/null &&
	cache_check /dev/mapper/lab-meta"
ok "the repaired cache comes back" create_cache writeback smq
ok "data written before the failure is intact" sh -c ". /tests/lib.sh; FIO_SIZE=32M fio_verify /dev/mapper/lab-cache verify"
ok "no kernel warning" sh -c "! dmesg | grep -q 'WARNING:'"
