#!/bin/bash
# The real launcher of a checkout under `node --cpu-prof`, pinned to CPU 1 (wrk on CPU 0), on a fresh
# PostgreSQL database: 5 s of warm-up, then SECONDS of measured load; the profile and the measured window
# go to /tmp/prof-LABEL, read by profile-diff.mjs and callers.mjs (docs/benchmarks.md, 2026-12-02).
#   bench/redirect/per-visit/profile-real.sh <checkout> <label> <path> [seconds] [varied]
# PRELOAD="--import file" adds a preload to the server's node.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$1; label=$2; path=$3; secs=${4:-10}; varied=$5
port=$((20000 + RANDOM % 20000))
db=prof_$label
psql -q -h 127.0.0.1 -U postgres -c "drop database if exists $db with (force)" -c "create database $db" postgres
out=/tmp/prof-$label; rm -rf $out; mkdir -p $out
KEY=shk_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB
cd $root
NODE_OPTIONS=--conditions=@shortener/source PORT=$port DATABASE_URL=postgres://postgres@127.0.0.1:5432/$db ADMIN_API_KEY=$KEY RATE_LIMIT_PER_MINUTE=1000000 \
  taskset -c 1 node $PRELOAD --cpu-prof --cpu-prof-dir=$out --import tsx launcher/src/main.ts > $out/log 2>&1 &
pid=$!
for i in $(seq 100); do curl -sf -o /dev/null http://127.0.0.1:$port/api/v1/health 2>/dev/null && break; curl -s -o /dev/null http://127.0.0.1:$port/ && break; sleep 0.2; done
sleep 1
curl -s -o /dev/null -H "authorization: Bearer $KEY" -d url=https://example.com/destination -d domain_id=1 -d alias=plain http://127.0.0.1:$port/api/v1/links
curl -s -o /dev/null -H "authorization: Bearer $KEY" -d url=https://example.com/default -d domain_id=1 -d alias=targeted -d target_type=2 --data-urlencode "platform[0][key]=Windows" --data-urlencode "platform[0][value]=https://example.com/windows" --data-urlencode "platform[1][key]=iOS" --data-urlencode "platform[1][value]=https://example.com/ios" http://127.0.0.1:$port/api/v1/links
curl -s -o /dev/null -H "authorization: Bearer $KEY" -d url=https://example.com/limited -d domain_id=1 -d alias=limited -d expiration_clicks=999999999 http://127.0.0.1:$port/api/v1/links
UA="Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
script=""; [ -n "$varied" ] && script="-s $here/../varied-visitors.lua"
taskset -c 0 wrk -t1 -c64 -d5s $script -H "Host: localhost:$port" -H "User-Agent: $UA" http://127.0.0.1:$port$path > /dev/null
a=$(node -e 'console.log(Number(process.hrtime.bigint()/1000n))')
taskset -c 0 wrk -t1 -c64 -d${secs}s --latency $script -H "Host: localhost:$port" -H "User-Agent: $UA" http://127.0.0.1:$port$path > $out/wrk
b=$(node -e 'console.log(Number(process.hrtime.bigint()/1000n))')
echo "{\"window\":[$a,$b]}" > $out/window
kill -INT $pid; wait $pid || true
grep -E "Requests/sec|requests in|Non-2xx" $out/wrk
