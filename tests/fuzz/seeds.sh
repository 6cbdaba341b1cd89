# seeds.sh - sourced by run.sh and campaign.sh: the seed folders a fuzz
# target names beyond its corpus, on a comment line `fuzz-seeds: DIR...`.
# A folder written DIR/... is read with its subfolders: its .py files are
# copied flat into OUT/seeds-TARGET-I (the engines read one level).
#   more_seed_dirs TARGET OUT   sets the array more_seeds
more_seed_dirs() {
	local name=$1 out=$2 words i flat
	words=$(grep -m 1 -o 'fuzz-seeds:.*' "tests/fuzz/$name.c" | sed -e 's/^fuzz-seeds://' -e 's|\*/.*||' || true)
	eval "more_seeds=($words)"
	for i in "${!more_seeds[@]}"; do
		case "${more_seeds[$i]}" in
		*/...)
			flat=$out/seeds-$name-$i
			rm -rf "$flat" && mkdir -p "$flat"
			find "${more_seeds[$i]%/...}" -name '*.py' | while read -r f; do
				cp "$f" "$flat/$(echo "$f" | tr '/' '_')"
			done
			more_seeds[$i]=$flat
			;;
		esac
	done
}
