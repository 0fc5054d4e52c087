#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make patches: export the series with git format-patch (cover letter from
# patches/cover-letter.txt), then prove it: git am onto a fresh clone of
# the pristine tree, build every step's touched directories, and the
# whole kernel at the end.
#   lab/patches.sh [output dir]     default: out/patches in the clone
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dest=${1:-$REPO_DIR/out/patches}

"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
"$LAB_DIR/apply.sh"
"$LAB_DIR/build.sh" guest >/dev/null

stage patches "format-patch into $dest"
rm -rf "$dest"
mkdir -p "$dest"
ver=$(git -C "$WORK" log -1 --format=%s base)
git -C "$WORK" format-patch -q --cover-letter --base=base -o "$dest" base..series
cover=$(ls "$dest"/0000-cover-letter.patch)
if [ -f "$REPO_DIR/patches/cover-letter.txt" ]; then
	subject=$(head -n 1 "$REPO_DIR/patches/cover-letter.txt")
	python3 - "$cover" "$REPO_DIR/patches/cover-letter.txt" "$subject" <<'PY'
import sys
path, blurb_file, subject = sys.argv[1:]
text = open(path).read()
blurb = open(blurb_file).read().split('\n', 1)[1].strip('\n')
text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', blurb)
open(path, 'w').write(text)
PY
fi
ls "$dest"

stage prove "git am onto a fresh $ver"
# A clone kept between runs, reset to the pristine tree: checking out
# rewrites only what differs, so the builds below stay incremental.
check=$LAB_CACHE/patch-check
if ! git -C "$check" rev-parse -q --verify base >/dev/null 2>&1; then
	rm -rf "$check"
	git clone -q --shared "$PRISTINE" "$check"
	git -C "$check" config user.name lab
	git -C "$check" config user.email lab@localhost
fi
git -C "$check" am --abort >/dev/null 2>&1 || true
git -C "$check" checkout -q -f --detach base
git -C "$check" clean -q -fdx
git -C "$check" am -q $(ls "$dest"/0*.patch | grep -v 0000-cover-letter) 2>&1 | tail -n 5 ||
	die "the series does not apply to a fresh $ver"
[ "$(git -C "$check" rev-parse HEAD^{tree})" = "$(git -C "$WORK" rev-parse series^{tree})" ] ||
	die "the series applied gives a different tree than the lab builds"

obj=$BUILD/patch-check
mkdir -p "$obj"
n=0
for c in $(git -C "$check" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	git -C "$check" checkout -q "$c"
	dirs=$(git -C "$check" diff --name-only "$c^" "$c" | xargs -n1 dirname | sort -u |
		grep -v -e '^Documentation' -e '^\.$' | sed 's|/tests$||' | sort -u | sed 's|$|/|' |
		tr '\n' ' ' || true)
	echo "patch $n: $(git -C "$check" log -1 --format=%s "$c") [$dirs]"
	# each step starts from the full test config: options of later patches
	# are dropped here and must not stay dropped
	cp "$BUILD/guest/.config" "$obj/.config"
	make -s -C "$check" O="$obj" olddefconfig >/dev/null
	[ -z "$dirs" ] || make -s -C "$check" O="$obj" -j"$JOBS" $dirs >"$OUT/patch-$n.log" 2>&1 ||
		die "patch $n does not build, log: $OUT/patch-$n.log"
done
cp "$BUILD/guest/.config" "$obj/.config"
make -s -C "$check" O="$obj" olddefconfig >/dev/null
make -s -C "$check" O="$obj" -j"$JOBS" bzImage modules >"$OUT/patch-all.log" 2>&1 ||
	die "the whole series does not build, log: $OUT/patch-all.log"
echo "series of $n patch(es) applies to $ver and builds at every step"
