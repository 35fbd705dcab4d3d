#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On a machine with an NVIDIA GPU: build in a fresh directory, run the whole test suite, the GPU
# tests under compute-sanitizer (memcheck and racecheck), `aesgpu bench` with an 8 GiB file on
# /dev/shm, and the CLI file runs of both backends (the GPU with and without its CPU start, both
# with and without split I/O), after a 1-byte file to show the start-up. Each CLI run reports
# wall time, CPU seconds (user + system) and peak resident memory (scripts/perf/measure.py).
# Usage: [STEPS="test sanitize kernel bench cli rss cgroup disk"] [LIMITS="16 64 ..."] [TESTS=REGEX] [REPS=3] [VARIANTS="cp cpu gpu ..."] [BENCH_JSON=FILE]
#        [BENCH_ARGS="--size 2G"] [FILE_GIB=8] [BASELINE_SRC=DIR] [CUDA_ARCHS=90] scripts/gpu/gpu-check.sh [BUILD_DIR]
# (default build directory /tmp/aesgpu-gpu-check; STEPS picks what runs after the build; the
# bench's JSON goes to BENCH_JSON, default BUILD_DIR/bench.json). With BASELINE_SRC (another
# checkout, e.g. the last commit), that is built too and the variants base-cpu and base-gpu run
# its binary, interleaved with ours, for a before/after in the same run; the kernel step (not in
# the default STEPS) runs `aesgpu bench --backend gpu --size 1G` of both, interleaved, 3 times.
# The rss step (not in the default STEPS) encrypts a 1 GiB and a 16 GiB file with each backend,
# with and without split I/O, and prints the peak resident memory of both: memory must not grow
# with the file. The cgroup step (not in the default STEPS; root) runs each backend under control
# groups of LIMITS MiB of memory and says which finish, which the OOM killer ends. CUDA_ARCHS builds for those GPU architectures only (faster), e.g. 90 for Hopper.
# The disk step (not in the default STEPS; root) times the direct-I/O goals on a disk, DISK_DIR
# (default /var/tmp; ZRAM=SIZE first makes an ext4 on /dev/zram0 of that size and uses it):
# FILE_GIB GiB, the DISK_ROWS (default: ECB and GCM encrypt with cpu and gpu, --io direct and
# --io buffered --sync, and GCM decrypt on the gpu both ways), REPS rounds interleaved, each from a
# cold cache and ending durable: wall, CPU s/GiB, the growth of Cached in /proc/meminfo, and the
# pages of the input and output left in the page cache (mincore). Then the disk's own ceilings
# (`aesgpu bench --file`, O_DIRECT read, write and both at once) unless DISK_BENCH=0.
set -uo pipefail
cd "$(dirname "$0")/../.."
# What the GPU host lacks and has no network to fetch (nlohmann-json's headers, scdoc) may travel
# in .deps/ (ignored by git), laid out as an install prefix.
prefix_args=()
if [ -d .deps ]; then
  prefix_args=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
  export PATH="$PWD/.deps/bin:$PATH"
fi
# The installed binary and the .deb's dependency list need liburing2 where the system looks for
# libraries: install the carried packages (root) where the host has none.
if [ -d .deps/debs ] && [ "$(id -u)" = 0 ] && ! ldconfig -p | grep -q 'liburing\.so\.2 '; then
  dpkg -i .deps/debs/*.deb >/dev/null || echo "gpu-check: could not install the carried liburing"
fi
build=${1:-/tmp/aesgpu-gpu-check}
status=0
steps=${STEPS:-test sanitize bench cli}
step() { echo; echo "== $*"; }
wanted() { [[ " $steps " == *" $1 "* ]]; }
dir=${BENCH_DIR:-/dev/shm}
key=000102030405060708090a0b0c0d0e0f
# Random-looking data at memory speed: /dev/urandom gives about 0.5 GB/s, too slow for 16 GiB.
random_file() { openssl enc -aes-128-ctr -K $key -iv $key -in /dev/zero 2>/dev/null | head -c "$2" > "$1"; }

step "build ($build)"
baseline=""
if [ -n "${BASELINE_SRC:-}" ]; then
  # Built alongside ours, without its tests (AESGPU_BUILD_TESTS for trees before BUILD_TESTING).
  baseline="$build-baseline"
  (cmake -S "$BASELINE_SRC" -B "$baseline" -DCMAKE_BUILD_TYPE=Release -DAESGPU_BUILD_TESTS=OFF -DBUILD_TESTING=OFF \
    ${CUDA_ARCHS:+-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS"} "${prefix_args[@]}" >/dev/null &&
    cmake --build "$baseline" -j"$(( $(nproc) / 2 ))" --target aesgpu >/dev/null 2>&1) &
  baseline_build=$!
fi
[ -n "${CUDA_ARCHS:-}" ] && prefix_args+=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${prefix_args[@]}" >/dev/null && cmake --build "$build" -j"$(nproc)" 2>&1 |
  grep -E -B4 "warning|error|spill|lmem" ; [ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
if [ -n "$baseline" ]; then wait "$baseline_build" || { echo "baseline build failed"; exit 1; }; fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$build/aesgpu" info

if wanted test; then
step "ctest ${TESTS:+-R $TESTS}"
ctest --test-dir "$build" -j4 ${TESTS:+-R "$TESTS"} --output-on-failure > "$build/ctest.log" 2>&1 || status=1
grep -E "tests passed|Failed|\*\*\*|Skipped" "$build/ctest.log"
# What failed, in full.
[ $status -eq 0 ] || grep -E -B2 -A12 "Failure$|FAILED  \]" "$build/ctest.log" | head -150
fi

if wanted sanitize && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    step "compute-sanitizer --tool $tool"
    # Left to the plain run: the 100 MiB test, and the tests that make cudaHostAlloc,
    # cudaHostRegister or cudaSetDevice fail on purpose (the sanitizer counts those). racecheck checks every
    # shared-memory access, so it takes the small tests only (the pipeline test did not finish in
    # 420 s); they run every kernel, 3 key sizes x 2 directions.
    # The CTR pipeline test (about 0.5 GiB through the kernels) stays out of memcheck too; the CTR
    # known answers and the take-over run the CTR kernel of every key size under both tools.
    filter='-Gpu.DefaultChunksOnLargeInput:Gpu.RingLargerThanMemoryReportsResourceExhausted:Gpu.MemoryAdoptedTwice*'
    filter+=':Gpu.AFailedCleanUpLeavesNoErrorForTheNextCheck'
    filter+=':Gpu.CtrPipelineMatches*:Gpu.GcmMatchesTheReference*'
    [ "$tool" = racecheck ] && filter='Gpu.KnownAnswers*:Gpu.RejectsMisuse:Gpu.WrongKey*:Gpu.AdoptedHost*:Gpu.CtrKnownAnswers:Gpu.GcmNamesTheFirstSegmentThatFails'
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$build/tests/aes_gpu_device_test" \
      --gtest_filter="$filter" 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED|RACECHECK SUMMARY" || true
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi

if wanted kernel && [ -n "$baseline" ]; then
step "aesgpu bench --backend gpu --size 1G: this tree (new) and BASELINE_SRC (base), interleaved"
for ((rep = 0; rep < 3; rep++)); do
  for which in new base; do
    binary=$build/aesgpu; [ $which = base ] && binary=$baseline/aesgpu
    "$binary" bench --backend gpu --size 1G --reps "${REPS:-3}" | grep -E "kernel|pipeline" | sed "s/^/$which /" || status=1
  done
done
fi

if wanted bench; then
step "aesgpu bench ${BENCH_ARGS:---size 2G} --reps ${REPS:-3} --file (${FILE_GIB:-8} GiB on /dev/shm)"
json=${BENCH_JSON:-$build/bench.json}
random_file /dev/shm/aesgpu-bench-in "${FILE_GIB:-8}G"
"$build/aesgpu" bench ${BENCH_ARGS:---size 2G} --reps "${REPS:-3}" --file /dev/shm/aesgpu-bench-in --json > "$json" ||
  status=1
rm -f /dev/shm/aesgpu-bench-in
python3 scripts/plot-bench.py "$json" || status=1
fi


if wanted rss; then
step "peak RSS: a 1 GiB and a 16 GiB file, each backend, split I/O (default) and --io-threads 1"
random_file "$dir/aesgpu-rss-1" 1G
random_file "$dir/aesgpu-rss-16" 16G
for options in "--backend cpu" "--backend gpu" "--backend all" "--backend cpu --io-threads 1" \
  "--backend gpu --io-threads 1" "--backend all --io-threads 1"; do
  line="$options:"
  for size in 1 16; do
    rm -f "$dir/aesgpu-rss-out"
    line+=" ${size} GiB $(python3 scripts/perf/measure.py "$build/aesgpu" encrypt -q $options -K $key "$dir/aesgpu-rss-$size" \
      -o "$dir/aesgpu-rss-out" || echo failed)"
  done
  echo "$line"
  grep -q failed <<< "$line" && status=1
done
rm -f "$dir"/aesgpu-rss-*
fi

if wanted cgroup; then
# Which backends run under a control group's memory limit (root, cgroup v2 or v1): a 256 MiB file
# encrypted and decrypted in groups of LIMITS MiB, each backend; "killed" is the OOM killer (137).
step "memory limits: a 256 MiB file under a control group's memory.max, each backend"
# v2: the nearest group from ours up that hands the memory controller to its children (none is
# handed to the children of a group with processes in it); v1: under our memory group.
parent=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
limit_file=memory.max
while [ "$parent" != /sys/fs/cgroup ] && ! grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null; do
  parent=${parent%/*}
done
if ! grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null; then
  parent=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup); limit_file=memory.limit_in_bytes
fi
group=$parent/aesgpu-check-$$
# Files on tmpfs would be charged to the group as memory that cannot be given back: a disk.
disk=/var/tmp
if mkdir "$group" && [ -e "$group/$limit_file" ]; then
  rmdir "$group"
  random_file "$disk/aesgpu-cgroup-in" 256M
  for limit in ${LIMITS:-16 32 64 128 256 512 1024}; do
    line="$limit MiB:"
    for backend in cpu gpu auto; do
      # A group of its own for each run, so that its peak is that run's.
      mkdir "$group" && echo $((limit << 20)) > "$group/$limit_file"
      rm -f "$disk/aesgpu-cgroup-out" "$disk/aesgpu-cgroup-back"
      sh -c "echo \$\$ > $group/cgroup.procs && $build/aesgpu encrypt -q --backend $backend -K $key \
        $disk/aesgpu-cgroup-in -o $disk/aesgpu-cgroup-out && exec $build/aesgpu decrypt -q --mode ecb --backend $backend -K $key \
        $disk/aesgpu-cgroup-out -o $disk/aesgpu-cgroup-back" 2>/dev/null
      result=$?
      if [ $result -eq 0 ] && cmp -s "$disk/aesgpu-cgroup-in" "$disk/aesgpu-cgroup-back"; then result=ok
      elif [ $result -eq 137 ]; then result=killed; else result="exit $result"; fi
      peak=$(cat "$group/memory.peak" 2>/dev/null || cat "$group/memory.max_usage_in_bytes" 2>/dev/null || echo 0)
      line+=" $backend $result (peak $((peak >> 20)) MiB),"
      rmdir "$group"
    done
    echo "${line%,}"
  done
  rm -f "$disk"/aesgpu-cgroup-*
else
  echo "no control group with a memory limit could be made here (root, cgroup v2 or v1)"
fi
fi

if wanted disk; then
disk_dir=${DISK_DIR:-/var/tmp}
if [ -n "${ZRAM:-}" ]; then
  # No brd module on the GPU hosts; zram compresses each page in the writer's context, so its
  # writes cost system time that is the device's: compare wall time there, CPU time on a real disk.
  modprobe zram 2>/dev/null; zramctl --reset /dev/zram0 2>/dev/null
  zramctl /dev/zram0 -s "$ZRAM" -a lz4 && mkfs.ext4 -q /dev/zram0 && mkdir -p /mnt/aesgpu-zram &&
    mount /dev/zram0 /mnt/aesgpu-zram && disk_dir=/mnt/aesgpu-zram || { echo "no zram here"; exit 1; }
fi
gib=${FILE_GIB:-8}
step "disk: $gib GiB on $disk_dir ($(findmnt -no FSTYPE,SOURCE --target "$disk_dir")), cold cache, until durable; kernel $(uname -r)"
work=$disk_dir/aesgpu-disk
mkdir -p "$work" && rm -f "$work"/*
random_file "$work/in" "${gib}G"
"$build/aesgpu" encrypt -q --mode gcm --io direct -K $key "$work/in" -o "$work/in.gcm" || status=1
rows=${DISK_ROWS:-cpu-ecb-direct cpu-ecb-buffered gpu-ecb-direct gpu-ecb-buffered cpu-gcm-direct cpu-gcm-buffered gpu-gcm-direct gpu-gcm-buffered gpu-gcmdec-direct gpu-gcmdec-buffered}
disk_command() { # backend-mode-io
  local backend=${1%%-*} rest=${1#*-} io=${1##*-} mode input=$work/in direction=encrypt
  mode=${rest%-*}
  [ "$io" = buffered ] && io="buffered --sync"
  [ "$mode" = gcmdec ] && { mode=gcm; input=$work/in.gcm; direction=decrypt; }
  echo "$build/aesgpu $direction -q --backend $backend --mode $mode --io $io -K $key $input -o $work/out"
}
cached_kib() { awk '/^Cached:/ { print $2 }' /proc/meminfo; }
: > "$work/times"
for ((rep = 0; rep < ${REPS:-3}; rep++)); do
  for row in $rows; do
    rm -f "$work/out"; sync; echo 3 > /proc/sys/vm/drop_caches
    before=$(cached_kib)
    # shellcheck disable=SC2046
    cost=$(python3 scripts/perf/measure.py $(disk_command "$row") || echo failed)
    after=$(cached_kib)
    input=$work/in; [[ $row == *gcmdec* ]] && input=$work/in.gcm
    echo "$row $cost cache_mib=$(( (after - before) / 1024 )) in_pages=$(python3 tests/support/cached_pages.py "$input" | tr ' ' /) out_pages=$(python3 tests/support/cached_pages.py "$work/out" | tr ' ' /)" | tee -a "$work/times"
  done
done
grep -q failed "$work/times" && status=1
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for row in $rows; do
  runs=$(grep "^$row wall=" "$work/times" | tr '=' ' ')
  [ -z "$runs" ] && continue
  printf "%-20s median wall %6.2f s, CPU %5.2f s/GiB, Cached +%5d MiB (%4.1f%% of the file)\n" "$row" \
    "$(awk '{ print $3 }' <<< "$runs" | median)" "$(awk -v g="$gib" '{ print ($5 + $7) / g }' <<< "$runs" | median)" \
    "$(awk '{ print $11 }' <<< "$runs" | median)" "$(awk -v g="$gib" '{ print $11 / (g * 10.24) }' <<< "$runs" | median)"
done
if [ "${DISK_BENCH:-1}" != 0 ]; then
  "$build/aesgpu" bench --backend gpu --mode ecb --key-bits 128 --direction encrypt --reps 1 --size 256M \
    --file "$work/in" | grep -E "ceiling|file|O_DIRECT" || status=1
fi
rm -rf "$work"
[ -n "${ZRAM:-}" ] && { umount /mnt/aesgpu-zram; zramctl --reset /dev/zram0; }
fi

wanted cli || exit $status
step "CLI, 8 GiB file on /dev/shm: cp vs --backend cpu vs --backend gpu (wait: --wait-for-gpu; x1: --io-threads 1; ioN: --io-threads N)"
variants=${VARIANTS:-cp cpu gpu all gpu-wait cpu-x1 gpu-x1}
[ -n "$baseline" ] && variants=${VARIANTS:-cp cpu base-cpu gpu base-gpu}
binary_for() { case $1 in base-*) echo "$baseline/aesgpu" ;; *) echo "$build/aesgpu" ;; esac; }
options_for() {
  case ${1#base-} in
    cpu) echo "--backend cpu --mode ecb" ;; gpu) echo "--backend gpu --mode ecb" ;; gpu-wait) echo "--backend gpu --wait-for-gpu --mode ecb" ;;
    all) echo "--backend all --mode ecb" ;; all-x1) echo "--backend all --io-threads 1 --mode ecb" ;;
    cpu-x1) echo "--backend cpu --io-threads 1 --mode ecb" ;; gpu-x1) echo "--backend gpu --io-threads 1 --mode ecb" ;;
    cpu-ctr) echo "--backend cpu --mode ctr --iv $key" ;; gpu-ctr) echo "--backend gpu --mode ctr --iv $key" ;;
    cpu-gcm) echo "--backend cpu --mode gcm" ;; gpu-gcm) echo "--backend gpu --mode gcm" ;;
    *-io[0-9]*) echo "--backend ${1%%-io*} --io-threads ${1##*-io} --mode ecb" ;; # e.g. gpu-io4
  esac
}
rm -f "$dir"/aesgpu-check-*
printf x > "$dir/aesgpu-check-tiny"
for what in cpu gpu gpu-wait; do
  for ((rep = 0; rep < 3; rep++)); do
    start=$(date +%s%N)
    "$build/aesgpu" encrypt -q -f $(options_for $what) -K $key "$dir/aesgpu-check-tiny" -o /dev/null || status=1
    echo -n "$(( ($(date +%s%N) - start) / 1000000 )) "
  done | xargs echo "1-byte file, $what, ms:"
done
random_file "$dir/aesgpu-check-in" 8G
for what in gpu all; do
  rm -f "$dir/aesgpu-check-out"
  "$build/aesgpu" encrypt -v --backend $what -K $key "$dir/aesgpu-check-in" -o "$dir/aesgpu-check-out" 2>&1 | grep -v warning
done
for ((rep = 0; rep < ${REPS:-3}; rep++)); do
  for what in $variants; do
    rm -f "$dir/aesgpu-check-out"
    if [ "$what" = cp ]; then command=(cp "$dir/aesgpu-check-in" "$dir/aesgpu-check-out")
    else command=("$(binary_for $what)" encrypt -q $(options_for $what) -K $key "$dir/aesgpu-check-in" -o "$dir/aesgpu-check-out"); fi
    echo "$what $(python3 scripts/perf/measure.py "${command[@]}" || echo failed)" >> "$dir/aesgpu-check-times"
  done
done
# Medians of wall time and of CPU time (user + system), and the largest peak RSS, per variant.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for what in $variants; do
  runs=$(grep "^$what wall=" "$dir/aesgpu-check-times" | tr '=' ' ')
  [ -z "$runs" ] && continue
  printf "%-9s median wall %6.3f s, CPU %6.2f s, peak RSS %5d MiB  (wall, s:%s)\n" "$what" \
    "$(awk '{ print $3 }' <<< "$runs" | median)" "$(awk '{ print $5 + $7 }' <<< "$runs" | median)" \
    "$(awk '{ print $9 }' <<< "$runs" | sort -n | tail -1)" "$(awk '{ printf " %s", $3 }' <<< "$runs")"
done
grep -q failed "$dir/aesgpu-check-times" && status=1
# The last variant's output decrypts, with its own options, to the input.
last=${variants##* }
if [ "$last" != cp ]; then
  if "$(binary_for "$last")" decrypt -q $(options_for "$last") -K $key "$dir/aesgpu-check-out" -o "$dir/aesgpu-check-back" &&
    cmp "$dir/aesgpu-check-in" "$dir/aesgpu-check-back"; then
    echo "8 GiB $last encrypt -> $last decrypt: identical"
  else
    status=1
  fi
fi
rm -f "$dir"/aesgpu-check-*
exit $status
