#!/usr/bin/env bash
# test_layering.sh - libtile's includes follow the pipeline (docs/ARCHITECTURE.md).
#
# Every libtile/**/*.c|h belongs to a phase: its folder, or `top` for the
# files directly in libtile/ (compile.c, compile.h); tilec.h, the public
# API, sits below them all. A file includes ("...", written from libtile/)
# headers of its own phase and of lower ranks only:
#   public < base < ir < front | passes | pack < analysis < nvptx < top
# front, passes and pack are siblings and never include one another. The
# headers private to a phase (front/syntax.h, front/sema.h, nvptx/lower.h)
# are included from their own folder only, and llvm-c from nvptx/ and
# compile.c only. Each include line is one check; a folder that is not in
# the table below fails until it is given a rank.
#
# loader/ holds the parts loader/amalgamate.sh concatenates into tile.h
# (`amalgamate.sh --list`) and the script itself, nothing else: a program
# built from tile.h (tile-tune) lives in tools/. Every listed part exists,
# and the parts include system headers only (tile.h is one file).
set -u
cd "$(dirname "$0")/.."

rank() {
	case "$1" in
	public) echo 0 ;;
	base) echo 1 ;;
	ir) echo 2 ;;
	front | passes | pack) echo 3 ;;
	analysis) echo 4 ;;
	nvptx) echo 5 ;;
	top) echo 6 ;;
	*) echo -1 ;;
	esac
}

# The phase of a path relative to libtile/.
phase() {
	case "$1" in
	tilec.h) echo public ;;
	*/*) echo "${1%%/*}" ;;
	*) echo top ;;
	esac
}

private() {
	case "$1" in
	front/syntax.h | front/sema.h | nvptx/lower.h) return 0 ;;
	esac
	return 1
}

passed=0
failed=0
bad() {
	echo "FAIL $1"
	failed=$((failed + 1))
}

while IFS= read -r file; do
	rel=${file#libtile/}
	p=$(phase "$rel")
	r=$(rank "$p")
	if [ "$r" -lt 0 ]; then
		bad "$file: libtile/$p/ has no rank in tests/test_layering.sh"
		continue
	fi
	while IFS= read -r line; do
		n=${line%%:*}
		inc=$(echo "${line#*:}" | sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*//; s/[[:space:]]*(\/[*/].*)?$//')
		where="$file:$n: $inc"
		case "$inc" in
		\<llvm-c/*)
			if [ "$p" = nvptx ] || [ "$rel" = compile.c ]; then
				passed=$((passed + 1))
			else
				bad "$where: llvm-c outside nvptx/ and compile.c"
			fi
			continue
			;;
		\<*) continue ;;
		\"*\") ;;
		*)
			bad "$where: not an include this check can read"
			continue
			;;
		esac
		h=${inc#\"}
		h=${h%\"}
		hp=$(phase "$h")
		hr=$(rank "$hp")
		if [ ! -f "libtile/$h" ]; then
			bad "$where: not a libtile header written from libtile/ (as \"ir/ir.h\")"
		elif [ "$hr" -lt 0 ]; then
			bad "$where: libtile/$hp/ has no rank in tests/test_layering.sh"
		elif private "$h" && [ "$hp" != "$p" ]; then
			bad "$where: $h is private to $hp/"
		elif [ "$hr" -gt "$r" ]; then
			bad "$where: $p (rank $r) includes $hp (rank $hr), a phase above it"
		elif [ "$hr" = "$r" ] && [ "$hp" != "$p" ]; then
			bad "$where: $p includes its sibling $hp"
		else
			passed=$((passed + 1))
		fi
	done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include' "$file")
done < <(find libtile -name '*.[ch]' | sort)

parts=" $(bash loader/amalgamate.sh --list) "
for f in $parts; do
	if [ -f "loader/$f" ]; then
		passed=$((passed + 1))
	else
		bad "loader/$f: amalgamate.sh puts it in tile.h, loader/ has no such file"
	fi
done
while IFS= read -r file; do
	f=${file#loader/}
	case "$parts" in
	*" $f "*) ;;
	*)
		[ "$f" = amalgamate.sh ] && continue
		bad "$file: not a part of tile.h (amalgamate.sh --list): programs built from tile.h go in tools/"
		continue
		;;
	esac
	while IFS= read -r line; do
		bad "$file:${line%%:*}: a part of tile.h includes a file other than a system header: ${line#*:}"
	done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
	passed=$((passed + 1))
done < <(find loader -type f | sort)

echo "test_layering: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
