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
python3 "$WORK/tools/testing/kunit/kunit.py" parse "$log" >"$kunit_out" 2>&1 || true
sed -n '/^.*Testing complete/p;/FAILED\|CRASHED/p' "$kunit_out" | head -n 20
kp=$(sed -n 's/.*Testing complete. Ran [0-9]* tests: passed: \([0-9]*\).*/\1/p' "$kunit_out")
kt=$(sed -n 's/.*Testing complete. Ran \([0-9]*\) tests.*/\1/p' "$kunit_out")
if [ -z "$kt" ]; then
	echo "no KUnit results in $log" >&2
	failed=$((failed + 1))
else
	passed=$((passed + kp))
	failed=$((failed + kt - kp))
fi

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
