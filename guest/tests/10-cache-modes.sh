#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# Data written through an smq cache reads back right in every mode, after
# suspend/resume, after a table reload, and from the origin alone once the
# cleaner policy has written everything back.
. /tests/lib.sh
plan 17
trap teardown_cache_devs EXIT
ok "cache devices (metadata, fast, delayed origin)" setup_cache_devs

# Without idle bandwidth (migration_threshold 0) nothing is written back
# before the cleaner takes over.
args_writeback="migration_threshold 0"
for mode in writeback writethrough passthrough; do
	eval "args=\$args_$mode"
	zero_metadata
	ok "$mode: cache created with smq" create_cache $mode smq $args
	ok "$mode: fio random writes verify" fio_verify /dev/mapper/lab-cache write
	[ $mode = writeback ] && diag "writeback: $(cache_field dirty) dirty, $(cache_field used) used"
	ok "$mode: verify after suspend/resume" sh -c \
		'dmsetup suspend lab-cache && dmsetup resume lab-cache && . /tests/lib.sh && fio_verify /dev/mapper/lab-cache verify'
	ok "$mode: verify after a table reload" sh -c \
		". /tests/lib.sh && reload_cache $mode smq $args && fio_verify /dev/mapper/lab-cache verify"
	if [ $mode = writeback ]; then
		ge "writeback: dirty blocks before cleaning" "$(cache_field dirty)" 1
		ok "writeback: switched to cleaner" reload_cache writeback cleaner
		ok "writeback: cleaner writes back every dirty block" \
			wait_until 120 sh -c '. /tests/lib.sh; [ "$(cache_field dirty)" = 0 ]'
		dmsetup remove lab-cache
		ok "writeback: the origin alone holds the data" fio_verify /dev/mapper/lab-origin verify
	else
		dmsetup remove lab-cache
	fi
done
