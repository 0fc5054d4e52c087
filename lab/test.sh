#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: build, boot and judge every layer, then print one line
# "N passed, N failed" over all of them.
#   guest      the test kernel: KUnit suites at boot, guest tests (TAP)
#   crash      power cuts through a writeback cache (LAB_CUTS, default 3)
#   debug      the same KUnit suites and guest tests on the sanitizer kernel
#              (KASAN, UBSAN, lockdep, kmemleak, panic_on_warn)
#   userspace  the harness's tests and a bounded fuzzing run
#   steps      (not in the default) the series patch by patch: the kernel
#              with patches 1..N built and booted, its KUnit suites and the
#              guest tests that need no later patch, for every N
#   lab/test.sh [guest test filter]       layers: LAB_LAYERS (default all)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
filter=${1:-}
layers=${LAB_LAYERS:-guest crash debug userspace}
t0=$(date +%s)
passed=0
failed=0
kernel_results=	# figures judge_kunit() printed, so that a second kernel does not repeat them

has_layer() { case " $layers " in *" $1 "*) return 0 ;; esac; return 1; }

# judge_kunit <console log>: the KUnit results the kernel printed at boot.
judge_kunit() {
	local log=$1 out=$1.kunit krc=0 summary kt kp ke
	stage kunit "suites run at boot ($(basename "$log"))"
	python3 "$WORK/tools/testing/kunit/kunit.py" parse "$log" >"$out" 2>&1 || krc=$?
	grep -E 'Testing complete|FAILED|CRASHED|ERROR' "$out" | head -n 20 || true
	summary=$(grep 'Testing complete' "$out" || true)
	kt=$(echo "$summary" | sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p')
	kp=$(echo "$summary" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
	ke=$(echo "$summary" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
	passed=$((passed + ${kp:-0}))
	failed=$((failed + ${kt:-0} - ${kp:-0} + ${ke:-0}))
	if [ -z "$kt" ] || { [ "$krc" -ne 0 ] && [ "${ke:-0}" -eq 0 ] && [ "${kt:-0}" -eq "${kp:-0}" ]; }; then
		echo "kunit.py parse failed ($krc), see $out" >&2
		failed=$((failed + 1))
	fi
	# figures the kernel side measured: once a run, as each kernel measures the same
	local line
	while read -r line; do
		case " $kernel_results " in
		*" ${line#RESULT } "*) ;;
		*) echo "$line"; kernel_results="$kernel_results ${line#RESULT }" ;;
		esac
	done < <(grep '^RESULT ' "$log" || true)
}

# judge_tap <tap file>: every guest test file must report ok.
judge_tap() {
	local tap=$1 t want
	stage guest "TAP from the guest ($(basename "$tap"))"
	cat "$tap"
	want=$(cd "$REPO_DIR/guest/tests" && ls [0-9]*.sh | sed 's/\.sh$//' | grep -F -- "$filter" || true)
	for t in $want; do
		if ! grep -q "^ok [0-9]* - $t\( # SKIP .*\)\?\$" "$tap"; then
			grep -q "^not ok [0-9]* - $t" "$tap" || echo "guest test $t did not report" >&2
			failed=$((failed + 1))
		fi
	done
	grep -q '^# guest-tests-done' "$tap" || { echo "guest runner did not finish" >&2; failed=$((failed + 1)); }
	passed=$((passed + $(grep -c '^    ok ' "$tap" || true)))
	failed=$((failed + $(grep -c '^    not ok ' "$tap" || true)))
}

# Sanitizer reports on a console log: counted, and any that names our code
# fails the run.  (panic_on_warn makes most of them fatal anyway.)
OURS='smq_|dm-cache-policy-smq|dm_cache_smq|power_allocator|gov_power_allocator|emul_soc|thermal-emul-soc|allocate_power|pid_step|divvy_up_power'
REPORTS='BUG: KASAN|UBSAN:|WARNING:|possible circular locking|possible recursive locking|BUG: sleeping function|unreferenced object|BUG: |Kernel panic'
judge_sanitizers() {
	local log=$1 n ours
	stage sanitizers "reports in $(basename "$log")"
	n=$(grep -cE "$REPORTS" "$log" || true)
	echo "RESULT sanitizer_reports $n"
	# a report's text runs until the next blank line
	ours=$(awk -v r="$REPORTS" -v o="$OURS" '
		$0 ~ r { inrep = 1; text = "" }
		inrep { text = text $0 "\n"; if ($0 ~ /^$/ || $0 ~ /---\[ end/) { if (text ~ o) print text; inrep = 0 } }
		END { if (inrep && text ~ o) print text }' "$log")
	if [ "$n" -gt 0 ]; then
		grep -E -A 12 "$REPORTS" "$log" | head -n 60
	fi
	if [ -n "$ours" ]; then
		echo "sanitizer report(s) naming our code:" >&2
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
echo "tree: $SRC_PKG $(pkg_version)"
"$LAB_DIR/apply.sh"

if has_layer guest || has_layer crash; then
	"$LAB_DIR/build.sh" guest
	"$LAB_DIR/rootfs.sh" guest
fi
if has_layer guest; then
	"$LAB_DIR/qemu.sh" guest test "$filter"
	judge_kunit "$OUT/test-guest.log"
	judge_tap "$OUT/test-guest.tap"
fi

if has_layer crash; then
	cuts=${LAB_CUTS:-3}
	out=$OUT/crash.txt
	"$LAB_DIR/crash.sh" "$cuts" ${LAB_CRASH_SEED:-} >"$out" 2>&1 || true
	cat "$out"
	good=$(grep -c '^cut .*cache_check=ok lost_cache=0 lost_origin=0$' "$out" || true)
	passed=$((passed + good))
	failed=$((failed + cuts - good))
fi

if has_layer debug; then
	"$LAB_DIR/apply.sh" debug
	"$LAB_DIR/build.sh" debug
	"$LAB_DIR/rootfs.sh" debug
	LAB_CMDLINE="panic_on_warn=1 kmemleak=on ${LAB_CMDLINE:-}" "$LAB_DIR/qemu.sh" debug test "$filter" ||
		{ failed=$((failed + 1)); echo "the debug guest failed" >&2; }
	judge_kunit "$OUT/test-debug.log"
	judge_tap "$OUT/test-debug.tap"
	judge_sanitizers "$OUT/test-debug.log"
fi

if has_layer steps; then
	nr=$(ls "$REPO_DIR"/patches/[0-9]*.patch | wc -l)
	for n in $(seq 1 "$nr"); do
		export LAB_STEP=$n
		"$LAB_DIR/apply.sh" step
		"$LAB_DIR/build.sh" step
		"$LAB_DIR/rootfs.sh" step
		LAB_CMDLINE="lab.step=$n ${LAB_CMDLINE:-}" "$LAB_DIR/qemu.sh" step test "$filter" ||
			{ failed=$((failed + 1)); echo "the guest of step $n failed" >&2; }
		for f in log tap; do cp "$OUT/test-step.$f" "$OUT/test-step-$n.$f"; done
		if grep -q '^CONFIG_KUNIT=y' "$BUILD/step/.config" &&
		   grep -q 'KUNIT_TEST=y' "$BUILD/step/.config"; then
			judge_kunit "$OUT/test-step-$n.log"
		fi
		judge_tap "$OUT/test-step-$n.tap"
		echo "step $n: $(git -C "$(flavour_src step)" log -1 --format=%s series)"
	done
	unset LAB_STEP
fi

if has_layer userspace; then
	stage userspace "harness tests"
	out=$OUT/userspace.tap
	urc=0
	make -s -C "$REPO_DIR/harness" check LAB_CACHE="$LAB_CACHE" >"$out" 2>&1 || urc=$?
	cat "$out"
	passed=$((passed + $(grep -c '^ok ' "$out" || true)))
	failed=$((failed + $(grep -c '^not ok ' "$out" || true)))
	grep -q '^# harness-tests-done' "$out" || { echo "harness tests did not finish" >&2; failed=$((failed + 1)); }
	# a crash prints no "not ok": the summary line and the exit status tell
	grep -q '^# harness unit tests: ' "$out" ||
		{ echo "harness unit tests gave no summary" >&2; failed=$((failed + 1)); }
	[ "$urc" -eq 0 ] || ! grep -q '^# harness unit tests: [0-9]* passed, 0 failed' "$out" ||
		{ echo "harness check exited $urc" >&2; failed=$((failed + 1)); }
fi

echo "tree: $SRC_PKG $(pkg_version); layers: $layers; logs in $OUT; $(($(date +%s) - t0))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
