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

# Sectors of a block device.
sectors() { blockdev --getsz "$1"; }

# Register a thermal zone of the core's testing facility; prints its sysfs
# directory.
test_thermal_zone() {
	tt=/sys/kernel/debug/thermal-testing
	before=$(ls -d /sys/class/thermal/thermal_zone* 2>/dev/null)
	echo addtz >$tt/command || return 1
	id=$(ls -d $tt/tz* | sed 's/.*tz//' | sort -n | tail -n 1)
	echo "tzreg:$id" >$tt/command || return 1
	for z in /sys/class/thermal/thermal_zone*; do
		case " $before " in *" $z "*) ;; *) echo "$z"; return 0 ;; esac
	done
	return 1
}
