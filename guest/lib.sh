# SPDX-License-Identifier: GPL-2.0
# TAP helpers and device helpers for the guest tests; sourced.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
T_N=0

plan() { echo "1..$1"; }
diag() { echo "# $*"; }

# ok <description> <command...>: one case, passing when the command does.
ok() {
	desc=$1
	shift
	T_N=$((T_N + 1))
	if out=$("$@" 2>&1); then
		echo "ok $T_N - $desc"
	else
		echo "not ok $T_N - $desc"
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/# /'
	fi
}

# is <description> <got> <expected>
is() {
	T_N=$((T_N + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $T_N - $1"
	else
		echo "not ok $T_N - $1"
		echo "# got '$2', expected '$3'"
	fi
}

# cmp_ge <description> <got> <minimum>: integers
ge() {
	T_N=$((T_N + 1))
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null; then
		echo "ok $T_N - $1 ($2 >= $3)"
	else
		echo "not ok $T_N - $1"
		echo "# got '$2', expected at least $3"
	fi
}

# fails <description> <command...>: passes when the command fails.
fails() {
	desc=$1
	shift
	T_N=$((T_N + 1))
	if out=$("$@" 2>&1); then
		echo "not ok $T_N - $desc"
		echo "# unexpectedly succeeded: $out"
	else
		echo "ok $T_N - $desc"
	fi
}

# log_mark: puts a marker of its own into the kernel log, for log_since.
# Counting lines instead would go wrong once the ring buffer wraps; a lost
# marker leaves log_since empty, which fails the test rather than passing it.
# Markers are numbered from a file, so that no two of a boot are alike,
# whichever test or subshell writes them.
log_mark() {
	n=$(($(cat /tmp/log-marks 2>/dev/null || echo 0) + 1))
	echo $n >/tmp/log-marks
	LOG_MARK="lab-mark-$n-"
	echo "$LOG_MARK" >/dev/kmsg
}

# log_since: the kernel log after the last log_mark.
log_since() { dmesg | sed -n "/$LOG_MARK\$/,\$p" | tail -n +2; }

# Sectors of a block device.
sectors() { blockdev --getsz "$1"; }

# Register a thermal zone of the core's testing facility; prints its sysfs
# directory.  The facility adds a zone from a work item: its debugfs
# directory, and then the zone that "tzreg" looks for, appear a little
# after "addtz" returns (once, the first not before the test looked), so
# registering is retried for up to 5 s.
test_thermal_zone() {
	tt=/sys/kernel/debug/thermal-testing
	before=" $(echo /sys/class/thermal/thermal_zone*) "
	old=" $(echo $tt/tz*) "
	echo addtz >$tt/command || return 1
	tries=50
	while :; do
		for d in $tt/tz*; do
			case $old in *" $d "*) continue ;; esac
			echo "tzreg:${d##*/tz}" 2>/dev/null >$tt/command && break 2
		done
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
	for z in /sys/class/thermal/thermal_zone*; do
		case $before in *" $z "*) ;; *) echo "$z"; return 0 ;; esac
	done
	return 1
}

# --- dm-cache helpers ---------------------------------------------------
# Devices carved from the brd ramdisks: metadata and cache on ram0/ram1,
# the origin on ram2 behind dm-delay so that it is the slow device.
META_MB=16
CACHE_MB=${CACHE_MB:-64}
ORIGIN_MB=${ORIGIN_MB:-256}
BLOCK_SECTORS=${BLOCK_SECTORS:-128}
DELAY_MS=${DELAY_MS:-1}

dm_node() { dmsetup mknodes "$1" >/dev/null 2>&1; echo "/dev/mapper/$1"; }

setup_cache_devs() {
	dmsetup create lab-meta --table "0 $((META_MB * 2048)) linear /dev/ram0 0" &&
	dmsetup create lab-fast --table "0 $((CACHE_MB * 2048)) linear /dev/ram1 0" &&
	dmsetup create lab-origin --table "0 $((ORIGIN_MB * 2048)) delay /dev/ram2 0 $DELAY_MS" &&
	dm_node lab-meta >/dev/null && dm_node lab-fast >/dev/null && dm_node lab-origin >/dev/null
}

teardown_cache_devs() {
	for d in lab-cache lab-origin lab-fast lab-meta; do
		dmsetup remove "$d" 2>/dev/null
	done
	return 0
}

zero_metadata() { dd if=/dev/zero of=/dev/mapper/lab-meta bs=1M count=1 2>/dev/null; }

# cache_table <mode> <policy> [policy args...]
cache_table() {
	mode=$1
	policy=$2
	shift 2
	echo "0 $((ORIGIN_MB * 2048)) cache /dev/mapper/lab-meta /dev/mapper/lab-fast" \
		"/dev/mapper/lab-origin $BLOCK_SECTORS 1 $mode $policy $# $*"
}

# create_cache <mode> <policy> [policy args...]
create_cache() {
	dmsetup create lab-cache --table "$(cache_table "$@")" && dm_node lab-cache >/dev/null
}

# reload_cache <mode> <policy> [args]: a new table, through suspend/resume.
reload_cache() {
	dmsetup reload lab-cache --table "$(cache_table "$@")" &&
	dmsetup suspend lab-cache && dmsetup resume lab-cache
}

# cache_field <name>: one field of the cache's status line.
cache_field() {
	set -- "$1" $(dmsetup status lab-cache)
	case $1 in
	used) echo "${8%/*}" ;;
	read_hits) echo "$9" ;;
	read_misses) echo "${10}" ;;
	write_hits) echo "${11}" ;;
	write_misses) echo "${12}" ;;
	demotions) echo "${13}" ;;
	promotions) echo "${14}" ;;
	dirty) echo "${15}" ;;
	policy) shift 15; n=$1; shift $((n + 1)); n=$1; shift $((n + 1)); echo "$1" ;;
	esac
}

# fio_verify <device> <write|verify> [fio args...]: random 64k writes with
# a fixed seed, or a verify-only pass over what such a run wrote.
fio_verify() {
	dev=$1
	what=$2
	shift 2
	set -- --name=v --filename="$dev" --rw=randwrite --bs=64k --size="${FIO_SIZE:-32M}" \
		--ioengine=psync --direct=1 --randseed=4242 --verify=crc32c \
		--verify_fatal=1 --output-format=terse "$@"
	if [ "$what" = verify ]; then
		fio "$@" --verify_only=1 >/tmp/fio.out 2>&1
	else
		fio "$@" --do_verify=1 >/tmp/fio.out 2>&1
	fi
	rc=$?
	[ $rc -eq 0 ] || tail -n 5 /tmp/fio.out
	return $rc
}

# wait_until <seconds> <command...>: poll once a second.
wait_until() {
	n=$1
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 1
	done
}

# --- emulated SoC helpers ------------------------------------------------
EMUL=/sys/kernel/debug/thermal-emul-soc

# emul_setup "key=value ...": load the module if needed, (re)create the SoC.
emul_setup() {
	[ -d $EMUL ] || modprobe thermal-emul-soc || return 1
	echo "$*" >$EMUL/setup
}

# The sysfs directory of the emulated zone.
emul_zone() {
	for z in /sys/class/thermal/thermal_zone*; do
		[ "$(cat "$z/type" 2>/dev/null)" = emul-soc ] && echo "$z" && return 0
	done
	return 1
}

# emul_cdev_attr <actor> <attr>: the zone's cdevN<attr> file for an actor
# (emul-little, emul-big, emul-gpu), e.g. _weight.
emul_cdev_attr() {
	z=$(emul_zone)
	for l in "$z"/cdev[0-9]*; do
		case ${l##*/} in *_*) continue ;; esac
		[ "$(cat "$l/type")" = "$1" ] && echo "$l$2" && return 0
	done
	return 1
}

emul_run() { echo "$1" >$EMUL/run; }

# emul_stats <from update>: mean, min and max die temperature (m°C) over
# the record from that update on.
emul_stats() {
	awk -F, -v from="$1" 'NR > 1 && $1 >= from {
		n++; s += $3; if (min == "" || $3 < min) min = $3; if ($3 > max) max = $3 }
		END { if (n) printf "%d %d %d\n", s / n, min, max }' $EMUL/record
}

# emul_power_share <actor column prefix> <from>: that actor's share (%) of
# all power drawn over the record from an update on.  (Not of grants: a
# governor that picks states itself passes none to power2state.)
emul_power_share() {
	awk -F, -v a="$1" -v from="$2" 'NR == 1 { for (i = 1; i <= NF; i++) {
			if ($i ~ /_power$/) g[i] = 1; if ($i == a "_power") col = i } next }
		$1 >= from { for (i in g) all += $i; mine += $col }
		END { if (all) printf "%d\n", 100 * mine / all; else print 0 }' $EMUL/record
}
