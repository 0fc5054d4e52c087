#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Turn patches/NNNN-*.patch plus the files under kernel/ into a chain of
# commits on top of the pristine tree (branch "series" of the working clone)
# and check it out.  Commits are built in a private index, so a patch that
# does not apply leaves the working copy as it was, and checking out the
# result rewrites only the files that really changed: builds stay
# incremental.
#
# A patch file is a "From: Name <email>" line, the commit message,
# optionally followed by a line "---" and a unified diff against upstream
# files.  "Lab-Files:" lines in the message name the files of kernel/ that
# the patch brings in; they are not part of the exported message.
#
#   lab/apply.sh [flavour]    guest (default), debug, or tree: only the
#                             patches whose "Lab-Flavours:" line names it;
#                             step: patches 1 to $LAB_STEP
set -euo pipefail
. "$(dirname "$0")/lib.sh"
flavour=${1:-guest}
series=$(flavour_series "$flavour")
WORK=$(flavour_src "$flavour")
stage apply "our series ($series) onto $SRC_PKG"

if [ ! -d "$WORK/.git" ]; then
	[ -d "$PRISTINE/.git" ] || die "no pristine tree, run lab/tree.sh first"
	git clone -q --shared "$PRISTINE" "$WORK" || die "cannot clone the pristine tree"
	git -C "$WORK" config gc.auto 0
fi
subject=$(git -C "$WORK" log -1 --format=%s base)

# apply_diff <patch name> <diff> <error file>: into the private index.  A
# Debian update of the tree may change lines around a hunk (stable fixes
# land in the files the series touches), and the series is built and
# tested on whatever 6.12.x apt serves: failing with all their context,
# the hunks may apply with the nearest two lines, or one, on each side
# matching, with a warning.  A hunk whose own lines changed still fails.
apply_diff() {
	local c

	git apply --cached --whitespace=nowarn "$2" 2>"$3" && return 0
	for c in 2 1; do
		if git apply --cached --whitespace=nowarn -C$c "$2" 2>/dev/null; then
			echo "warning: $1 applies to $subject only with $c line(s) of" \
				"context (refresh it): $(head -n 1 "$3")" >&2
			return 0
		fi
	done
	die "$1 does not apply to $subject: $(head -n 3 "$3")"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export GIT_DIR=$WORK/.git
export GIT_INDEX_FILE=$tmp/index
# Stable ids: the same inputs give the same commits.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

git read-tree base
parent=$(git rev-parse base)
: >"$tmp/listed"
for p in "$REPO_DIR"/patches/[0-9]*.patch; do
	[ -e "$p" ] || continue
	name=$(basename "$p")
	case $series in
	all) ;;
	upto:*) [ "$((10#${name%%-*}))" -le "${series#upto:}" ] || continue ;;
	*) grep -q "^Lab-Flavours:.*\<$series\>" "$p" || continue ;;
	esac
	from=$(sed -n '1s/^From: //p' "$p")
	[ -n "$from" ] || die "$name: the first line must be 'From: Name <email>'"
	export GIT_AUTHOR_NAME=${from% <*} GIT_AUTHOR_EMAIL=${from##*<}
	GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	awk 'NR > 1 && /^---$/ {exit} NR > 1 && !/^Lab-(Files|Flavours):/' "$p" >"$tmp/msg"
	awk 'f; /^---$/ {f=1}' "$p" >"$tmp/diff"
	if [ -s "$tmp/diff" ]; then
		apply_diff "$name" "$tmp/diff" "$tmp/err"
	fi
	for f in $(sed -n 's/^Lab-Files://p' "$p"); do
		[ -f "$REPO_DIR/kernel/$f" ] || die "$name lists kernel/$f, which does not exist"
		blob=$(git hash-object -w "$REPO_DIR/kernel/$f")
		git update-index --add --cacheinfo "100644,$blob,$f"
		echo "$f" >>"$tmp/listed"
	done
	parent=$(git commit-tree "$(git write-tree)" -p "$parent" -F "$tmp/msg")
done

# Every file of kernel/ must belong to exactly one patch.
dup=$(sort "$tmp/listed" | uniq -d)
[ -z "$dup" ] || die "listed by two patches: $dup"
if [ "$series" = all ]; then
	(cd "$REPO_DIR/kernel" && find . -type f | sed 's|^\./||' | sort) >"$tmp/have"
	unlisted=$(sort -u "$tmp/listed" | comm -13 - "$tmp/have")
	[ -z "$unlisted" ] || die "not in any patch of the series: $unlisted"
fi

unset GIT_INDEX_FILE
git update-ref refs/heads/series "$parent"
cd "$WORK"
git checkout -q -f series 2>"$tmp/err" || die "checkout failed: $(cat "$tmp/err")"
echo "series ($flavour): $(git rev-list --count base..series) patch(es) on $subject" >&2
