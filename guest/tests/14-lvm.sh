#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# lvm2 builds a cache volume with our policy on loop devices.
. /tests/lib.sh
plan 5
cleanup() {
	lvm vgremove -ff -y labvg >/dev/null 2>&1
	for l in /dev/loop0 /dev/loop1; do losetup -d $l 2>/dev/null; done
	rm -f /tmp/slow.img /tmp/fast.img
}
trap cleanup EXIT
dd if=/dev/zero of=/tmp/slow.img bs=1M count=0 seek=160 2>/dev/null
dd if=/dev/zero of=/tmp/fast.img bs=1M count=0 seek=64 2>/dev/null
ok "loop devices" sh -c 'losetup /dev/loop0 /tmp/slow.img && losetup /dev/loop1 /tmp/fast.img'
ok "volume group" lvm vgcreate labvg /dev/loop0 /dev/loop1
ok "lvcreate --type cache --cachepolicy smq" sh -c "
	lvm lvcreate -y -n data -L 128M labvg /dev/loop0 >/dev/null &&
	lvm lvcreate -y --type cache-pool -n pool -L 32M labvg /dev/loop1 >/dev/null &&
	lvm lvconvert -y --type cache --cachepool labvg/pool --cachepolicy smq labvg/data"
ok "the cache table uses smq" sh -c 'dmsetup table labvg-data | grep -q " smq "'
ok "data through the lvm cache verifies" sh -c \
	'dmsetup mknodes; . /tests/lib.sh; FIO_SIZE=16M fio_verify /dev/mapper/labvg-data write'
