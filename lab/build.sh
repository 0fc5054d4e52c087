#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour out of tree (O=), incrementally.
#   lab/build.sh [flavour]     flavour: guest (default), debug or tree
# The config is tinyconfig plus lab/config/<flavour>.fragment (and the
# fragments it names with "#include <file>"); every option asked for must
# survive olddefconfig.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
flavour=${1:-guest}
src=$(flavour_src "$flavour")
obj=$BUILD/$flavour
cfg=$BUILD/$flavour.cfg
stage config "$flavour kernel"

fragments() {
	local f=$1
	echo "$f"
	sed -n 's/^#include[[:space:]]\+//p' "$f" | while read -r inc; do
		fragments "$(dirname "$f")/$inc"
	done
}

# a step of the series is configured as the guest; options of later
# patches do not exist yet
frag=$LAB_DIR/config/${flavour/step/guest}.fragment
[ -f "$frag" ] || die "no fragment $frag"
mkdir -p "$obj" "$cfg"
fragments "$frag" | xargs cat >"$cfg/fragment"

make -s -C "$src" O="$cfg" tinyconfig >"$cfg/log" 2>&1 || die "tinyconfig failed: $(tail -n 5 "$cfg/log")"
"$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "$cfg/fragment" >>"$cfg/log" 2>&1 ||
	die "merge_config failed: $(tail -n 5 "$cfg/log")"
make -s -C "$src" O="$cfg" olddefconfig >>"$cfg/log" 2>&1 || die "olddefconfig failed: $(tail -n 5 "$cfg/log")"

# olddefconfig drops options whose dependencies are unmet without a word.
dropped=$(grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$cfg/fragment" |
	sed -E 's/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1=n/' | sort -u |
	while IFS='=' read -r opt want; do
		got=$(sed -n -E "s/^$opt=(.*)/\\1/p" "$cfg/.config")
		[ -n "$got" ] || got=n
		[ "$got" = "$want" ] || echo "  $opt: asked $want, got $got"
	done)
if [ "$flavour" = step ]; then
	[ -z "$dropped" ] || echo "not in patches 1-$LAB_STEP:
$dropped" >&2
else
	[ -z "$dropped" ] || die "olddefconfig did not keep these options of $frag:
$dropped"
fi

# Only a real change of the config may invalidate the incremental build.
cmp -s "$cfg/.config" "$obj/.config" || cp "$cfg/.config" "$obj/.config"

stage build "$flavour kernel ($(git -C "$src" log -1 --format=%s base))"
log=$OUT/build-$flavour.log
mkdir -p "$OUT"
targets="bzImage"
grep -q '^CONFIG_MODULES=y' "$obj/.config" && targets="$targets modules"
if ! make -C "$src" O="$obj" -j"$JOBS" $targets ${KBUILD_EXTRA:-} >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -n 20 >&2
	die "kernel build failed, log: $log"
fi
rm -rf "$obj/modroot"
if grep -q '^CONFIG_MODULES=y' "$obj/.config"; then
	make -s -C "$src" O="$obj" INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 \
		modules_install >>"$log" 2>&1 || die "modules_install failed, log: $log"
fi
grep -E 'warning:' "$log" | sort -u | head -n 20 >&2 || true
echo "kernel: $obj/arch/x86/boot/bzImage" >&2
