#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# Runs last: nothing the tests did left a warning, oops or lockdep splat;
# on the debug kernel (kmemleak=on), a scan finds no leak.  Reports go to
# the console too, where the host attributes them.
. /tests/lib.sh
kmemleak=false
grep -q 'kmemleak=on' /proc/cmdline && kmemleak=true
if $kmemleak; then
	plan 2
else
	plan 1
fi
dmesg >/tmp/dmesg.txt
ok "no WARNING, BUG, Oops or lockdep report in the kernel log" sh -c \
	"! grep -E 'WARNING:|BUG:|Oops|INFO: possible|circular locking|UBSAN|KASAN' /tmp/dmesg.txt"
$kmemleak || exit 0
if grep -q 'kmemleak: .*disabled' /tmp/dmesg.txt; then
	leaks="none: kmemleak disabled itself"
elif [ ! -f /sys/kernel/debug/kmemleak ]; then
	leaks="none: no /sys/kernel/debug/kmemleak"
else
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >/tmp/leaks
	leaks=$(grep -c 'unreferenced object' /tmp/leaks)
	[ "$leaks" -eq 0 ] || cat /tmp/leaks >/dev/console
	diag "kmemleak: $leaks unreferenced object(s)"
fi
is "no memory leak found by kmemleak" "$leaks" 0
