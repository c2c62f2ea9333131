#!/usr/bin/env bash
# Runs every benchmark entry point once with tiny parameters (seconds each) so none rots; fails if any fails.
# Data goes to a temporary directory that is removed afterwards. Usage: bench/smoke.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench="$root/bin/uring4j-bench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uring4j-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
start=$SECONDS

# step NAME EXPECTED_STATUS COMMAND...: runs the command, checks its exit status, keeps its output on failure.
# A step still running after $limit seconds (120 unless set) is asked for its threads (SIGQUIT: the JVM prints
# them) and killed 15 s later; a failed step shows its last lines and, when there is one, the last thread dump.
limit=120
step() {
  local name=$1 want=$2; shift 2
  local t0=$SECONDS got
  timeout -s QUIT -k 15 "$limit" "$@" >"$tmp/out.log" 2>&1
  got=$?
  if [ "$got" -eq "$want" ]; then
    printf 'ok    %-34s %3ds\n' "$name" $((SECONDS - t0))
  else
    printf 'FAIL  %-34s exit %s, expected %s, after %ds\n' "$name" "$got" "$want" $((SECONDS - t0))
    if grep -q '^Full thread dump' "$tmp/out.log"; then
      awk '/^Full thread dump/ { n = NR } { line[NR] = $0 } END { for (i = n; i <= NR && i < n + 400; i++) print line[i] }' \
        "$tmp/out.log" | grep -v '^$' | sed 's/^/      /'
      echo "      ..."
    fi
    sed 's/^/      /' "$tmp/out.log" | tail -20
    failed=1
  fi
}

# Build once up front, so the first step's time is its own.
"$bench" --version >/dev/null || { echo "smoke: build failed"; exit 1; }

data="$tmp/data"
step "generate"                      0 "$bench" generate --dir "$data" --files 2 --blocks 256 -q
step "read (every strategy)"         0 "$bench" read --dir "$data" -s ring,async,jasyncfio,mmap,channel,channel-vthreads --duration 0.3 --warmup 0.1 -q --json "$tmp/read.json"
step "read --direct --cache cold"    0 "$bench" read --dir "$data" -s ring,async,channel --direct --cache cold --depth 8 --duration 0.3 --warmup 0.1 -q
"$bench" generate --dir "$tmp/bad" --files 1 --blocks 16 --corrupt 1 -q >/dev/null 2>&1
step "read finds a corrupted block"  1 "$bench" read --dir "$tmp/bad" -s ring,async,jasyncfio,channel --duration 0.3 --warmup 0 -q
step "error: unknown flag"           2 "$bench" read --no-such-flag
step "error: missing data set"       2 "$bench" read --dir "$tmp/none"
step "error: O_DIRECT size not /512" 2 "$bench" loadtypes --dir "$tmp/lt" --direct --random-io 1000 --seq-io 1000000
step "error: not enough disk space"  2 "$bench" generate --dir "$tmp/huge" --files 1000000 --blocks 1000000000
step "loadtypes"                     0 "$bench" loadtypes --dir "$tmp/lt" --size 2M --seq-io 256K --min-time 0.05 -q --json "$tmp/lt.json"
step "files"                         0 "$bench" files --dir "$tmp/files" --count 200 --copy-size 4M --rounds 1 -q --json "$tmp/files.json"
step "error: files --only nosuch"    2 "$bench" files --dir "$tmp/files-none" --count 200 --only nosuch
if [ -e "$tmp/files-none/small" ] || [ -e "$tmp/files-none/copy-source.bin" ]; then
  echo "FAIL  files --only nosuch wrote its files before it failed"; failed=1
fi
step "lucene"                        0 "$bench" lucene --dir "$tmp/lucene" --docs 200 --queries 2 --rounds 1 -q --json "$tmp/lucene.json"
step "lucene --one-jvm"               0 "$bench" lucene --dir "$tmp/lucene" --docs 200 --queries 2 --rounds 1 --one-jvm -q
step "error: lucene --docs 0"        2 "$bench" lucene --dir "$tmp/lucene" --docs 0
step "carriers"                      0 "$bench" carriers --dir "$tmp/carriers" --seconds 0.3 --rounds 1 --big 8 -q --json "$tmp/carriers.json"
step "error: carriers --writers 0"   2 "$bench" carriers --dir "$tmp/carriers" --writers 0
step "mixed"                         0 "$bench" mixed --dir "$tmp/mixed" --threads 8 --seconds 0.2 --rounds 1 -q --json "$tmp/mixed.json"
step "error: mixed --ops nosuch"     2 "$bench" mixed --dir "$tmp/mixed" --ops nosuch
step "startup"                       0 "$bench" startup --dir "$tmp/startup" --runs 1 --work 0,20 -q --json "$tmp/startup.json"
step "error: startup --runs 0"       2 "$bench" startup --dir "$tmp/startup" --runs 0
step "everyday"                      0 "$bench" everyday --dir "$tmp/everyday" --rounds 1 --passes 2 --text-size 1M --files 50 -q --json "$tmp/everyday.json"
step "error: everyday --only nosuch" 2 "$bench" everyday --dir "$tmp/everyday-none" --only nosuch
if [ -e "$tmp/everyday-none" ]; then
  echo "FAIL  everyday --only nosuch wrote its files before it failed"; failed=1
fi
step "iops"                          0 "$bench" iops -r 1 -O 0 -d 8 -q --create 4m "$tmp/iops.bin"
if command -v fio >/dev/null; then
  step "fio"                         0 "$bench" fio --dir "$data" --engine io_uring,psync --duration 1 -q
else
  echo "skip  fio                                (not installed)"
fi
# the report runs its later sections in child JVMs, each killed (threads printed) after 90 s: its own limit is longer
limit=300
step "report --quick"                0 "$bench" report --quick --dir "$tmp/report-data" --out "$tmp/report" -q
limit=120
for f in report.md report.html results.json; do
  [ -s "$tmp/report/$f" ] || { echo "FAIL  report wrote no $f"; failed=1; }
done
step "jmh (every benchmark once)"    0 "$bench" jmh -f 0 -wi 0 -i 1 -r 100ms -foe true \
  -p bufferSize=4096 -p fileSize=65536 -p size=1048576 -p shift=0,2048 -p direct=false,true \
  -rf json -rff "$tmp/jmh.json" -jvmArgsAppend "-During4j.jmh.dir=$tmp/jmh"
step "report --collect"              0 "$bench" report --collect "$tmp/read.json,$tmp/lt.json,$tmp/files.json,$tmp/lucene.json,$tmp/startup.json,$tmp/jmh.json" --out "$tmp/report2"
[ -s "$tmp/report2/report.md" ] || { echo "FAIL  report --collect wrote no report.md"; failed=1; }

echo "smoke: $((SECONDS - start)) s"
if [ "$failed" -ne 0 ]; then
  echo "smoke: FAILED"
  exit 1
fi
echo "smoke: all entry points ran"
