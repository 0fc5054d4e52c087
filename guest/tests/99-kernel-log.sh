#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# Runs last: nothing the tests did left a warning, oops or lockdep splat;
# on a kernel with kmemleak, a scan finds no leak.  Reports go to the
# console too, where the host attributes them.
. /tests/lib.sh
plan 2
dmesg >/tmp/dmesg.txt
ok "no WARNING, BUG, Oops or lockdep report in the kernel log" sh -c \
	"! grep -E 'WARNING:|BUG:|Oops|INFO: possible|circular locking|UBSAN|KASAN' /tmp/dmesg.txt"
leaks=0
if [ -f /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >/tmp/leaks
	leaks=$(grep -c 'unreferenced object' /tmp/leaks)
	[ "$leaks" -eq 0 ] || cat /tmp/leaks >/dev/console
	diag "kmemleak: $leaks unreferenced object(s)"
fi
is "no memory leak found by kmemleak" "$leaks" 0
