#!/usr/bin/env bash
# campaign.sh - the fuzz targets for hours rather than seconds, in parallel.
#   bash tests/fuzz/campaign.sh HOURS [JOBS] [TARGET...]
# Builds the targets as tests/fuzz/run.sh does (libFuzzer where clang links
# it, else the plain driver; ASan and UBSan, leaks detected), then runs
# JOBS processes (default: the number of CPUs) split evenly over the
# targets (default: every tests/fuzz/fuzz_*.c) for HOURS (a decimal number:
# 0.1 is six minutes). With libFuzzer a target's processes share a working
# corpus (BUILD/campaign/TARGET/corpus, grown from
# tests/fuzz/corpus/TARGET), and at the end the inputs that add coverage
# are merged into tests/fuzz/corpus/TARGET (libFuzzer's -merge=1 keeps only
# inputs with new features: the corpus stays minimized); COMMIT=1 then
# commits them. The plain driver has no coverage feedback: it only counts
# executions and findings. Findings (crash-, leak-, timeout-, oom- inputs)
# are kept in BUILD/campaign/TARGET/artifacts. Prints per target the
# executions, coverage (edges and features, libFuzzer) and findings, and
# exits non-zero on any finding. BUILD (environment) names the build
# folder, default build.
set -u
cd "$(dirname "$0")/../.."
. tests/fuzz/seeds.sh
[ $# -ge 1 ] || { echo "usage: campaign.sh HOURS [JOBS] [TARGET...]" >&2; exit 2; }
hours=$1
jobs=${2:-$(nproc 2>/dev/null || echo 2)}
shift $(($# >= 2 ? 2 : 1))
build=${BUILD:-build}
secs=$(awk -v h="$hours" 'BEGIN { s = int(h * 3600); print s < 1 ? 1 : s }')
if [ $# -gt 0 ]; then
	targets=("$@")
else
	targets=()
	for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
FUZZ_BUILD_ONLY=1 bash tests/fuzz/run.sh "$build" 0 "${targets[@]}" || exit 1
work=$build/campaign
per=$((jobs / ${#targets[@]}))
[ "$per" -lt 1 ] && per=1
echo "campaign: ${#targets[@]} target(s), $per job(s) each, ${secs}s"
pids=()
for name in "${targets[@]}"; do
	bin=$build/fuzz/$name
	engine=$(cat "$build/fuzz/$name.engine")
	d=$work/$name
	rm -rf "$d/logs" "$d/artifacts"
	mkdir -p "$d/corpus" "$d/artifacts" "$d/logs"
	more_seed_dirs "$name" "$d"
	for ((k = 0; k < per; k++)); do
		seed=$((($(date +%s) + 7919 * k + ${#name}) % 2147483647))
		if [ "$engine" = libfuzzer ]; then
			"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 -seed="$seed" -reload=1 \
				-print_final_stats=1 -artifact_prefix="$d/artifacts/" "$d/corpus" "tests/fuzz/corpus/$name" "${more_seeds[@]}" \
				>"$d/logs/job$k.log" 2>&1 &
		else
			"$bin" -t "$secs" -s "$seed" -o "$d/artifacts/job$k-" "tests/fuzz/corpus/$name" "${more_seeds[@]}" >"$d/logs/job$k.log" 2>&1 &
		fi
		pids+=($!)
	done
done
for p in "${pids[@]}"; do wait "$p"; done
total_findings=0
for name in "${targets[@]}"; do
	d=$work/$name
	engine=$(cat "$build/fuzz/$name.engine")
	execs=0
	for log in "$d"/logs/job*.log; do
		n=$(grep -E -o '(stat::number_of_executed_units: *[0-9]+|[0-9]+ runs)' "$log" | grep -E -o '[0-9]+' | tail -n 1)
		execs=$((execs + ${n:-0}))
	done
	findings=$(find "$d/artifacts" -type f \( -name '*crash*' -o -name '*leak*' -o -name '*timeout*' -o -name '*oom*' \) | wc -l)
	# a process that died without leaving an input still counts
	died=$(grep -l -E 'ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$d"/logs/job*.log 2>/dev/null | wc -l)
	[ "$died" -gt "$findings" ] && findings=$died
	total_findings=$((total_findings + findings))
	coverage="n/a (plain driver: no coverage feedback)"
	if [ "$engine" = libfuzzer ]; then
		cov=$(grep -h -E -o 'cov: [0-9]+ ft: [0-9]+' "$d"/logs/job*.log | sort -t' ' -k2,2n | tail -n 1)
		coverage="${cov:-?}"
		before=$(ls "tests/fuzz/corpus/$name" | wc -l)
		"$build/fuzz/$name" -merge=1 -max_len=65536 "tests/fuzz/corpus/$name" "$d/corpus" >"$d/logs/merge.log" 2>&1
		added=$(($(ls "tests/fuzz/corpus/$name" | wc -l) - before))
		merged=$(grep -E -o 'MERGE-OUTER: [0-9]+ new files with [0-9]+ new features' "$d/logs/merge.log" | tail -n 1)
		coverage="$coverage; corpus +$added file(s) (${merged:-no merge output})"
		if [ "$added" -gt 0 ] && [ -n "${COMMIT:-}" ]; then
			git add "tests/fuzz/corpus/$name" &&
				git commit -q -m "tests: fuzz corpus of $name: $added input(s) that add coverage (a campaign of $hours h)" &&
				coverage="$coverage, committed"
		fi
	fi
	echo "campaign: $name ($engine): $execs executions, coverage $coverage, $findings finding(s)"
	[ "$findings" -gt 0 ] && find "$d/artifacts" -type f | head -n 5 | sed 's/^/  /'
	# a target that ran no input tested nothing (a seed folder it could not read)
	if [ "$execs" = 0 ]; then
		echo "campaign: $name ran no input:" && grep -h -v '^INFO' "$d"/logs/job*.log | head -n 3 | sed 's/^/  /'
		idle=1
	fi
done
echo "campaign: $total_findings finding(s)"
[ "$total_findings" = 0 ] && [ -z "${idle:-}" ]
