#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: build everything, boot the guest once, and judge every layer:
# KUnit suites at boot, guest tests (TAP on ttyS1), userspace tests.
#   lab/test.sh [guest test filter]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
filter=${1:-}
t0=$(date +%s)

"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
echo "tree: $SRC_PKG $(pkg_version)"
"$LAB_DIR/apply.sh"
"$LAB_DIR/build.sh" guest
"$LAB_DIR/rootfs.sh" guest
"$LAB_DIR/qemu.sh" guest test "$filter"

passed=0
failed=0
log=$OUT/test-guest.log
tap=$OUT/test-guest.tap

stage kunit "suites run at boot"
kunit_out=$OUT/kunit.txt
krc=0
python3 "$WORK/tools/testing/kunit/kunit.py" parse "$log" >"$kunit_out" 2>&1 || krc=$?
grep -E 'Testing complete|FAILED|CRASHED|ERROR' "$kunit_out" | head -n 20 || true
summary=$(grep 'Testing complete' "$kunit_out" || true)
kt=$(echo "$summary" | sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p')
kp=$(echo "$summary" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
ke=$(echo "$summary" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
passed=$((passed + ${kp:-0}))
failed=$((failed + ${kt:-0} - ${kp:-0} + ${ke:-0}))
if [ -z "$kt" ] || [ "$krc" -ne 0 ] && [ "${ke:-0}" -eq 0 ] && [ "${kt:-0}" -eq "${kp:-0}" ]; then
	echo "kunit.py parse failed ($krc), see $kunit_out" >&2
	failed=$((failed + 1))
fi

# Figures the kernel side measured (KUnit prints them on the console).
grep '^RESULT ' "$log" || true

stage guest "TAP from the guest"
cat "$tap"
want=$(cd "$REPO_DIR/guest/tests" && ls [0-9]*.sh | sed 's/\.sh$//' | grep -F -- "$filter" || true)
for t in $want; do
	if ! grep -q "^ok [0-9]* - $t\$" "$tap"; then
		grep -q "^not ok [0-9]* - $t" "$tap" || echo "guest test $t did not report" >&2
		failed=$((failed + 1))
	fi
done
grep -q '^# guest-tests-done' "$tap" || { echo "guest runner did not finish" >&2; failed=$((failed + 1)); }
passed=$((passed + $(grep -c '^    ok ' "$tap" || true)))
failed=$((failed + $(grep -c '^    not ok ' "$tap" || true)))

if [ -x "$REPO_DIR/harness/run-tests" ] || [ -f "$REPO_DIR/harness/Makefile" ]; then
	stage userspace "harness tests"
	out=$OUT/userspace.tap
	make -s -C "$REPO_DIR/harness" check LAB_CACHE="$LAB_CACHE" >"$out" 2>&1 || true
	cat "$out"
	passed=$((passed + $(grep -c '^ok ' "$out" || true)))
	failed=$((failed + $(grep -c '^not ok ' "$out" || true)))
	grep -q '^# harness-tests-done' "$out" || { echo "harness tests did not finish" >&2; failed=$((failed + 1)); }
fi

echo "tree: $SRC_PKG $(pkg_version); logs in $OUT; $(( $(date +%s) - t0 ))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
