#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs last: nothing the tests did left a warning, oops or lockdep splat.
. /tests/lib.sh
plan 1
dmesg >/tmp/dmesg.txt
ok "no WARNING, BUG, Oops or lockdep report in the kernel log" sh -c \
	"! grep -E 'WARNING:|BUG:|Oops|INFO: possible|circular locking|UBSAN|KASAN' /tmp/dmesg.txt"
