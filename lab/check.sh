#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: the kernel's own style and static checks on our work:
# checkpatch --strict on every patch of the series, kernel-doc on our
# files, a sparse (C=2) and W=1 build of their objects, a 32-bit build of
# them (no libgcc division helpers), and the tree's
# documentation build of the directories of our pages.  Fails on any
# finding in our code.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
"$LAB_DIR/apply.sh"
"$LAB_DIR/build.sh" guest >/dev/null
findings=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

stage checkpatch "--strict on the series"
git -C "$WORK" format-patch -q -o "$tmp/series" base..series
# checkpatch runs scripts/spdxcheck.py with the first python3 in PATH; the
# distribution's has python3-ply, one from pyenv or a venv may not, and
# then the SPDX check only prints a traceback, which counts as a finding.
for p in "$tmp"/series/*.patch; do
	if out=$(PATH=/usr/bin:$PATH "$WORK/scripts/checkpatch.pl" --strict --quiet --no-summary \
		"$p" 2>&1) && ! grep -q Traceback <<<"$out"; then
		echo "ok: $(basename "$p")"
	else
		echo "$out"
		findings=$((findings + 1))
	fi
done

files=$(cd "$REPO_DIR/kernel" && find . -name '*.c' -o -name '*.h' | sed 's|^\./||' | sort)
stage kernel-doc "our files"
for f in $files; do
	out=$("$WORK/scripts/kernel-doc" -none -Wall "$WORK/$f" 2>&1 || true)
	if [ -n "$out" ]; then
		echo "$out"
		findings=$((findings + 1))
	fi
done

# The tree's documentation build (Sphinx) of the directories holding our
# pages; any warning naming one of them is a finding.
pages=$(cd "$REPO_DIR/kernel" && find Documentation -name '*.rst' | sort)
dirs=$(for p in $pages; do dirname "${p#Documentation/}"; done | sort -u | tr '\n' ' ')
stage htmldocs "$dirs"
for p in $pages; do touch "$WORK/$p"; done
make -C "$WORK" O="$BUILD/docs" SPHINXDIRS="$dirs" htmldocs >"$tmp/docs" 2>&1 ||
	{ tail -n 20 "$tmp/docs"; findings=$((findings + 1)); }
for p in $pages; do
	if grep -F "$p" "$tmp/docs" | grep -i -e warning -e error; then
		findings=$((findings + 1))
	else
		echo "clean: $p"
	fi
done

# Objects of every C file the series adds or changes, built with W=1 and
# checked by sparse; included files (KUnit suites) are checked through the
# file that includes them.
objs=$(git -C "$WORK" diff --name-only base series -- '*.c' | while read -r f; do
	case $f in
	*/tests/*) ;;
	*) o=${f%.c}.o; grep -q "$(basename "$o")\|$(basename "${f%.c}")" "$WORK/$(dirname "$f")/Makefile" &&
		echo "$o" ;;
	esac
done)
stage sparse-w1 "$(echo $objs)"
for o in $objs; do
	rm -f "$BUILD/guest/$o"
	make -s -C "$WORK" O="$BUILD/guest" W=1 C=2 CHECK="sparse" "$o" >"$tmp/log" 2>&1 || true
	ours=$(grep -E 'warning|error' "$tmp/log" | grep -F -e "$(dirname "$o")/" | grep -v '^make' || true)
	if [ -n "$ours" ]; then
		echo "$ours"
		findings=$((findings + 1))
	else
		echo "clean: $o"
	fi
done
# leave the object as the normal build makes it
make -s -C "$WORK" O="$BUILD/guest" $objs >/dev/null 2>&1 || true

# The same objects built for a 32-bit kernel.  The kernel links no
# libgcc: a plain 64-bit division or modulo there becomes a call to
# __udivdi3 or one of its siblings, which no kernel provides, and the
# module fails to load (built in, the kernel fails to link).
stage i386 "$(echo $objs)"
obj32=$BUILD/i386
mkdir -p "$obj32"
if make -s -C "$WORK" O="$obj32" ARCH=i386 tinyconfig >"$tmp/log32" 2>&1 &&
	"$WORK/scripts/kconfig/merge_config.sh" -m -O "$obj32" "$obj32/.config" \
		"$LAB_DIR/config/i386.fragment" >>"$tmp/log32" 2>&1 &&
	make -s -C "$WORK" O="$obj32" ARCH=i386 olddefconfig >>"$tmp/log32" 2>&1 &&
	make -s -C "$WORK" O="$obj32" ARCH=i386 -j"$JOBS" $objs >>"$tmp/log32" 2>&1; then
	for o in $objs; do
		helpers=$(nm -u "$obj32/$o" | awk '{ print $2 }' |
			grep -E '^__(u?(div|mod)di3|udivmoddi4|divmoddi4)$' || true)
		if [ -n "$helpers" ]; then
			echo "$o needs libgcc's $(echo $helpers) on i386"
			findings=$((findings + 1))
		else
			echo "clean: $o (i386)"
		fi
	done
else
	tail -n 20 "$tmp/log32"
	findings=$((findings + 1))
fi

echo "make check: $findings finding(s)"
[ "$findings" -eq 0 ]
