#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 2
# Switching policies by table reload, mq's old tunables, and bad arguments
# refused with a message naming them.
. /tests/lib.sh
plan 18
trap teardown_cache_devs EXIT
ok "cache devices" setup_cache_devs
zero_metadata
ok "smq cache created" create_cache writeback smq
FIO_SIZE=16M fio_verify /dev/mapper/lab-cache write >/dev/null
for p in mq cleaner smq; do
	ok "reload to $p" reload_cache writeback $p
	is "status names $p" "$(cache_field policy)" "$p"
done
ok "mq accepts its old tunables" reload_cache writeback mq random_threshold 4 sequential_threshold 512
ok "data intact after the switches" fio_verify /dev/mapper/lab-cache verify --size=16M

# refused <dmesg pattern> <mode> <policy> [args]: the reload fails and the
# kernel log says why.
refused() {
	pattern=$1
	shift
	log_mark
	! dmsetup reload lab-cache --table "$(cache_table "$@")" 2>/dev/null &&
		log_since | grep -q "$pattern"
}
good=$(dmsetup table lab-cache)
ok "smq refuses an unknown key, naming it" refused "unknown tunable 'foo' (smq takes none)" writeback smq foo 1
ok "cleaner refuses one, naming itself" refused "unknown tunable 'baz' (cleaner takes none)" writeback cleaner baz 1
ok "mq refuses an unknown key, naming it" refused "unknown tunable 'bar' for mq" writeback mq bar 1
ok "mq refuses a negative value" refused "needs an unsigned number, not '-1'" writeback mq random_threshold -1
ok "mq refuses a non-number" refused "needs an unsigned number, not 'abc'" writeback mq random_threshold abc
ok "mq refuses a huge value" refused "needs an unsigned number" writeback mq random_threshold 99999999999999999999999
is "no refused table is left to load" "$(dmsetup table --inactive lab-cache)" ""
is "the live table is unchanged by them" "$(dmsetup table lab-cache)" "$good"
