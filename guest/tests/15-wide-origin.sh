#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# An origin of more than 2^32 cache blocks: 32 MiB at each end of 256 TiB,
# the rest an error target that no I/O may reach.  The blocks of the two
# ends share their low 32 bits; data written at both ends through smq
# reads back, and once the cleaner has run lies where it belongs on the
# origin alone.
. /tests/lib.sh
plan 13
trap 'dmsetup remove lab-cache 2>/dev/null; dmsetup remove lab-wide 2>/dev/null; teardown_cache_devs' EXIT

END=65536		# sectors at each end
HIGH=$((1 << 39))	# where the high end starts: block 2^33 of 32 KiB

create_wide_origin() {
	printf '0 %s linear /dev/ram2 0\n%s %s error\n%s %s linear /dev/ram2 %s\n' \
		$END $END $((HIGH - END)) $HIGH $END $END | dmsetup create lab-wide &&
		dm_node lab-wide >/dev/null
}

# wide_cache <create|reload> <policy> [policy args...]
wide_cache() {
	how=$1
	policy=$2
	shift 2
	table="0 $((HIGH + END)) cache /dev/mapper/lab-meta /dev/mapper/lab-fast"
	table="$table /dev/mapper/lab-wide 64 1 writeback $policy $# $*"
	if [ "$how" = create ]; then
		dmsetup create lab-cache --table "$table" && dm_node lab-cache >/dev/null
	else
		dmsetup reload lab-cache --table "$table" &&
			dmsetup suspend lab-cache && dmsetup resume lab-cache
	fi
}

# end_io <device> <write|verify> <low|high>: 16 MiB of verified random writes
end_io() {
	offset=0
	[ "$3" = high ] && offset=$((HIGH * 512))
	FIO_SIZE=16M fio_verify "$1" "$2" --offset=$offset
}

reload_and_verify() {
	wide_cache reload smq migration_threshold 0 && end_io /dev/mapper/lab-cache verify low &&
		end_io /dev/mapper/lab-cache verify high
}

ok "cache devices" setup_cache_devs
zero_metadata
ok "an origin of 2^33 + 1024 blocks of 32 KiB" create_wide_origin
# no writeback before the cleaner's (migration_threshold 0)
ok "smq caches it" wide_cache create smq migration_threshold 0
ok "writes at the low end verify" end_io /dev/mapper/lab-cache write low
ok "writes at the high end verify" end_io /dev/mapper/lab-cache write high
ok "the low end still verifies" end_io /dev/mapper/lab-cache verify low
diag "promotions $(cache_field promotions), dirty $(cache_field dirty), used $(cache_field used)"
ge "every block written was promoted" "$(cache_field promotions)" 1024
ge "and is dirty" "$(cache_field dirty)" 1024
ok "both ends verify after a reload" reload_and_verify
ok "the cleaner takes over" wide_cache reload cleaner
ok "and writes back every dirty block" wait_until 120 sh -c '. /tests/lib.sh; [ "$(cache_field dirty)" = 0 ]'
dmsetup remove lab-cache
ok "the origin alone holds the low end" end_io /dev/mapper/lab-wide verify low
ok "and the high end" end_io /dev/mapper/lab-wide verify high
