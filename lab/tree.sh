#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keep a pristine copy of the packaged kernel tree as a one-commit git
# repository, re-unpacked only when the package version changes, and a
# working clone of it that apply.sh lays our series onto.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
stage tree "pristine $SRC_PKG"

ver=$(pkg_version) || true
[ -n "$ver" ] || die "$SRC_PKG is not installed (run lab/deps.sh)"
[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing although $SRC_PKG $ver is installed"
subject="$SRC_PKG $ver"

have=$(git -C "$PRISTINE" log -1 --format=%s 2>/dev/null || true)
if [ "$have" != "$subject" ]; then
	echo "unpacking $SRC_TARBALL ($ver)${have:+, replacing '$have'}" >&2
	rm -rf "$PRISTINE" "$WORK" "$BUILD"
	mkdir -p "$PRISTINE.tmp"
	tar -xf "$SRC_TARBALL" -C "$PRISTINE.tmp" --strip-components=1 ||
		die "cannot unpack $SRC_TARBALL"
	(
		cd "$PRISTINE.tmp"
		git init -q -b pristine
		git config user.name lab
		git config user.email lab@localhost
		git config gc.auto 0
		git add -A -f .
		git commit -q -m "$subject"
		git tag base
	) || die "cannot commit the pristine tree"
	mv "$PRISTINE.tmp" "$PRISTINE"
fi

if ! git -C "$WORK" rev-parse -q --verify base >/dev/null 2>&1; then
	rm -rf "$WORK"
	git clone -q --shared "$PRISTINE" "$WORK" || die "cannot clone the pristine tree"
	git -C "$WORK" config user.name lab
	git -C "$WORK" config user.email lab@localhost
	git -C "$WORK" config gc.auto 0
fi
echo "tree: $subject at $PRISTINE" >&2
