#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# A table that shrinks the origin under dirty blocks: its resume fails in
# the middle of loading the mappings, into a policy that holds some of
# them.  The target refuses to retry that resume (can_resume()) rather
# than load them again; the metadata is not failed for it, the policy
# holding a part of the mappings is destroyed with the table, and back at
# its size the cache resumes read-write with the dirty data intact.
. /tests/lib.sh
plan 10
trap teardown_cache_devs EXIT

TAIL=$((ORIGIN_MB * 2048 / BLOCK_SECTORS - 16))	# the last 16 cache blocks
# No migration bandwidth: the target never finds the cache idle, so no
# idle writeback cleans the blocks before the shrink (on the sanitizer
# kernel the test's own commands take longer than a writeback period).
HOLD="migration_threshold 0"

shrunk_table() {
	echo "0 $(((ORIGIN_MB - 1) * 2048)) cache /dev/mapper/lab-meta /dev/mapper/lab-fast" \
		"/dev/mapper/lab-origin $BLOCK_SECTORS 1 writeback smq 2 $HOLD"
}

# grep -c of the kernel log since the last log_mark
log_count() { log_since | grep -cE "$1"; }
SHRINK="unable to shrink origin"
RETRY="unable to resume cache due to missing proper cache table reload"
FAILED="metadata operation|mapped twice|read-only"

ok "cache devices" setup_cache_devs
zero_metadata
ok "smq cache created" create_cache writeback smq $HOLD
# the first blocks cached, so loaded before the tail's
dd if=/dev/urandom of=/tmp/head bs=64k count=32 2>/dev/null
dd if=/dev/urandom of=/tmp/tail bs=64k count=16 2>/dev/null
ok "the origin's first 2 MiB and last MiB written" sh -c \
	"dd if=/tmp/head of=/dev/mapper/lab-cache bs=64k oflag=direct &&
	dd if=/tmp/tail of=/dev/mapper/lab-cache bs=64k seek=$TAIL oflag=direct"

log_mark
ge "dirty blocks before the shrink" "$(cache_field dirty)" 16
dmsetup reload lab-cache --table "$(shrunk_table)" && dmsetup suspend lab-cache
fails "a resume shrinking the origin under them fails" dmsetup resume lab-cache
fails "and the retry is refused" dmsetup resume lab-cache
is "refused for a dirty block, then for the failed load; metadata not failed" \
	"$(log_count "$SHRINK") $(log_count "$RETRY") $(log_count "$FAILED")" "1 1 0"

ok "at its size again, the cache resumes" reload_cache writeback smq
is "metadata read-write, no check needed" \
	"$(dmsetup status lab-cache | awk '{ print $(NF - 1), $NF }')" "rw -"
ok "the dirty data reads back" sh -c \
	"dd if=/dev/mapper/lab-cache bs=64k count=32 iflag=direct 2>/dev/null | cmp - /tmp/head &&
	dd if=/dev/mapper/lab-cache bs=64k skip=$TAIL count=16 iflag=direct 2>/dev/null |
	cmp - /tmp/tail"
