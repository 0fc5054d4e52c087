#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built kernel flavour with its initramfs under TCG.
#   lab/qemu.sh <flavour> <mode> [test filter]
#   mode: test, demo, shell, bench, crashw or crashv (power cuts)
# ttyS0 (console and kernel log) goes to $OUT/<mode>-<flavour>.log (and to
# the terminal for demo and shell), ttyS1 (test results) to
# $OUT/<mode>-<flavour>.tap.  The run is killed after LAB_TIMEOUT seconds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
flavour=${1:-guest}
mode=${2:-test}
filter=${3:-}
kernel=$BUILD/$flavour/arch/x86/boot/bzImage
initrd=$OUT/initramfs-$flavour.cpio
log=$OUT/$mode-$flavour.log
tap=$OUT/$mode-$flavour.tap
timeout=${LAB_TIMEOUT:-1500}
stage boot "$flavour kernel, $mode mode"

[ -f "$kernel" ] || die "no kernel at $kernel (run lab/build.sh $flavour)"
[ -f "$initrd" ] || die "no initramfs at $initrd (run lab/rootfs.sh $flavour)"

# Tests read KUnit results from the console (KERN_INFO); people do not.
cmdline="console=ttyS0 panic=-1 oops=panic brd.rd_nr=4 brd.rd_size=262144"
if [ "$mode" = test ]; then
	cmdline="$cmdline loglevel=7"
else
	cmdline="$cmdline loglevel=3 kunit.enable=0"
fi
cmdline="$cmdline lab.mode=$mode ${filter:+lab.tests=$filter} ${LAB_CMDLINE:-}"
# No 5-level paging (TCG's "max" CPU has it).  In 6.12, pgtable_l5_enabled()
# reads the boot CPU's capability bits, which identify_cpu() clears and
# reads again; an interrupt in that window makes KASAN take the 5-level
# direct map for a wild address and panic the sanitizer kernel at boot
# (seen once in CI: do_raw_spin_lock from handle_edge_irq, interrupting
# get_cpu_vendor).  Nothing we test needs more than 4 levels.
qemu=(qemu-system-x86_64 -accel tcg -cpu max,la57=off -smp 2 -m "${LAB_MEM:-2048}"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-no-reboot -display none -monitor none ${LAB_QEMU_ARGS:-})

rm -f "$log" "$tap"
rc=0
if [ "$mode" = bench ]; then
	# results come back as a tar written to a disk of their own
	rm -f "$OUT/bench-$flavour.img"
	truncate -s 256M "$OUT/bench-$flavour.img"
	qemu+=(-drive "file=$OUT/bench-$flavour.img,format=raw,if=virtio")
	# and traces to replay, if any, on a second (/dev/vdb)
	[ -z "${LAB_BENCH_INPUT:-}" ] ||
		qemu+=(-drive "file=$LAB_BENCH_INPUT,format=raw,if=virtio,readonly=on")
fi
case $mode in
shell)
	"${qemu[@]}" -serial mon:stdio -serial "file:$tap" || rc=$?
	;;
demo)
	set -o pipefail
	timeout -k 10 "$timeout" "${qemu[@]}" -serial stdio -serial "file:$tap" </dev/null |
		tee "$log" | tr -d '\r' | grep --line-buffered -v '^LAB-END' || rc=$?
	;;
*)
	timeout -k 10 "$timeout" "${qemu[@]}" -serial "file:$log" -serial "file:$tap" \
		</dev/null || rc=$?
	;;
esac
# Serial lines end in CR LF.
sed -i 's/\r$//' "$log" "$tap" 2>/dev/null || true
# A power-cut run ends by the host killing the machine.
[ "$mode" = crashw ] && exit 0
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || die "guest killed after ${timeout}s, log: $log"
[ "$mode" = shell ] && exit 0
grep -q '^LAB-END' "$log" 2>/dev/null || {
	# the first report whole, for a CI log that shows only this output
	sed -n '/BUG:\|WARNING:\|Oops\|Kernel panic/,$p' "$log" | head -n 60 >&2 || true
	die "guest did not reach its end marker (crash or hang?), log: $log"
}
