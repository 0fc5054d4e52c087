#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 7
# Bad input, each case refused with a message and nothing changed: cache
# table lines and messages, thermal sysfs writes, and emulated zones with
# no actors, failing actors (all or one) or no sustainable power.
. /tests/lib.sh
plan 40
trap teardown_cache_devs EXIT
tried=0

# bad <description> <check...>: one bad input tried, as a test case.
bad() {
	tried=$((tried + 1))
	ok "$@"
}

# bad_table <kernel log pattern> <table line>: dmsetup create fails, the
# kernel says why.
bad_table() {
	log_mark
	! dmsetup create lab-bad --table "$2" 2>/dev/null && log_since | grep -q "$1"
}
# bad_message <kernel log pattern> <message...>
bad_message() {
	p=$1
	shift
	log_mark
	! dmsetup message -- lab-cache 0 "$@" 2>/dev/null && log_since | grep -q "$p"
}

setup_cache_devs
zero_metadata
S=$((256 * 2048))
D="/dev/mapper/lab-meta /dev/mapper/lab-fast /dev/mapper/lab-origin"
bad "too few arguments" bad_table "Insufficient args" "0 $S cache /dev/mapper/lab-meta"
bad "an unknown feature" bad_table "Unrecognised cache feature" "0 $S cache $D 128 1 writebehind smq 0"
bad "a block size that is not a multiple of 32 KiB" bad_table "block size" "0 $S cache $D 100 1 writeback smq 0"
bad "an unknown policy" bad_table "Error creating cache.s policy" "0 $S cache $D 128 1 writeback lru 0"
bad "an odd number of policy arguments" bad_table "Odd number" "0 $S cache $D 128 1 writeback smq 1 foo"
bad "an unknown smq key" bad_table "unknown tunable 'bogus'" "0 $S cache $D 128 1 writeback smq 2 bogus 1"
bad "a negative migration_threshold" bad_table "bad config value" "0 $S cache $D 128 1 writeback smq 2 migration_threshold -5"
bad "a huge mq value" bad_table "needs an unsigned number" "0 $S cache $D 128 1 writeback mq 2 random_threshold 1e99"
bad "fewer policy arguments than claimed" bad_table "Invalid number of policy arguments" "0 $S cache $D 128 1 writeback smq 4 random_threshold 1"

create_cache writeback smq
status=$(dmsetup status lab-cache | cut -d' ' -f15-)
bad "message: unknown key" bad_message "unknown tunable 'frobnicate'" frobnicate 1
bad "message: non-numeric migration_threshold" bad_message "bad config value" migration_threshold abc
bad "message: negative migration_threshold" bad_message "bad config value" migration_threshold -1
bad "message: huge migration_threshold" bad_message "bad config value" migration_threshold 999999999999999999999999
bad "message: missing value" bad_message "takes one value, 0 given" migration_threshold
bad "message: invalidate_cblocks outside passthrough" bad_message "passthrough" invalidate_cblocks 0-4
# the policy and its settings (migration_threshold among them) as before
is "the cache's settings are unchanged" "$(dmsetup status lab-cache | cut -d' ' -f15-)" "$status"
dmsetup remove lab-cache

# thermal: out of range sysfs writes
emul_setup governor=power_allocator sustainable_power=4500
z=$(emul_zone)
# bad_write <file> <value>: the file exists, the write is refused, and the
# file reads back as before (the emulated SoC's files are write-only: its
# platform file, trips included, reads back as before instead)
bad_write() {
	[ -e "$1" ] || return 1
	case $1 in
	$EMUL/*) r=$EMUL/platform ;;
	*) r=$1 ;;
	esac
	before=$(cat "$r" 2>/dev/null)
	! sh -c "echo '$2' > '$1'" 2>/dev/null && [ "$(cat "$r" 2>/dev/null)" = "$before" ]
}
bad "k_i -1" bad_write $z/k_i -1
bad "k_d abc" bad_write $z/k_d abc
bad "k_pu 2^31" bad_write $z/k_pu 2147483648
bad "integral_cutoff 99999999999" bad_write $z/integral_cutoff 99999999999
bad "sustainable_power -1" bad_write $z/sustainable_power -1
bad "sustainable_power 1.5" bad_write $z/sustainable_power 1.5
bad "weight abc" bad_write "$(emul_cdev_attr emul-big _weight)" abc
bad "an unknown governor" bad_write $z/policy no_such_governor
bad "an emulated load over 100 %" bad_write $EMUL/load big=101
# the hot and critical trips go 20 and 40 C above the desired one
bad "an emulated desired trip near INT_MAX" bad_write $EMUL/setup desired=2147480000
bad "an emulated ambient of 200 C" bad_write $EMUL/setup ambient=200000
bad "an emulated switch-on trip at -100 C" bad_write $EMUL/setup switch_on=-100000
ok "and the emulated zone is still there" emul_zone

# emulated zones the governor must survive
echo "little=100 big=100 gpu=100" >$EMUL/load
for a in little big gpu; do echo "unregister $a" >$EMUL/actor; done
bad "a zone with no actors runs" emul_run 200
for a in little big gpu; do echo "register $a" >$EMUL/actor; echo "fail $a" >$EMUL/actor; done
echo "little=100 big=100 gpu=100" >$EMUL/load
# a warm room takes the die above the switch-on trip (65 C), where the
# governor allocates
echo 75000 >$EMUL/ambient
T=/sys/kernel/tracing
echo >$T/trace
echo 1 >$T/events/thermal_power_allocator/thermal_power_allocator/enable
from=$(($(wc -l <$EMUL/record) - 1))
bad "a zone whose actors all fail runs" emul_run 600
echo 0 >$T/events/thermal_power_allocator/thermal_power_allocator/enable
ge "and its updates are traced, nothing requested, granted or allocatable" \
	"$(grep -c 'thermal_power_allocator: .* total_req_power=0 total_granted_power=0 .* max_allocatable_power=0 ' $T/trace)" 50
# left at full speed, the die reached 109.9 C in these 600 updates
set -- $(emul_stats $from)
ok "stepped without the power model, it stays below the hot trip (max $3 m°C)" test "$3" -lt 90000
echo 25000 >$EMUL/ambient
for a in little big gpu; do echo "heal $a" >$EMUL/actor; done
ok "and recovers when they work again" emul_run 3000
set -- $(emul_stats 2500)
ok "controlled again after the failures (mean $1 m°C)" test "$1" -le 76000
# one actor failing from cool, so at full speed: the others cannot make
# up for it (left at its state, the die reached 96.8 C, past the hot trip)
bad "the big cluster failing from the start" sh -c ". /tests/lib.sh; emul_setup governor=power_allocator sustainable_power=4500 &&
	echo 'little=100 big=100 gpu=100' > $EMUL/load && echo 'fail big' > $EMUL/actor && emul_run 3000"
set -- $(emul_stats 0)
ok "is stepped: the die stays below the hot trip (max $3 m°C)" test "$3" -lt 90000
echo "heal big" >$EMUL/actor
bad "sustainable power 0: estimated" sh -c ". /tests/lib.sh; emul_setup governor=power_allocator sustainable_power=0 &&
	echo 'little=100 big=100 gpu=100' > $EMUL/load && emul_run 3000 && [ \$(cat \$(emul_zone)/sustainable_power) -gt 0 ]"
set -- $(emul_stats 2000)
ok "and the zone stays below its hot trip (max $3 m°C)" test "$3" -lt 95000
ok "no kernel warning" sh -c "! dmesg | grep -q 'WARNING:'"
echo "RESULT bad_inputs_tried $tried"
