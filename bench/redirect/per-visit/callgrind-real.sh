#!/bin/bash
# Instructions (user space, every thread) per visit of a checkout's real launcher under valgrind's
# callgrind: links made by a normal start, then a start under callgrind with instrumentation off, 25,000
# visits of warm-up by fixed-client.mjs, then N visits instrumented (docs/benchmarks.md, 2026-12-02).
#   bench/redirect/per-visit/callgrind-real.sh <label> <checkout> <path> [n]
# CG_SERVICES=redirect runs only the visitor side under callgrind (the roles' timers run per second, and
# a visit under valgrind takes ~1.5 ms: with every role their work is counted as if it were per visit).
here=$(cd "$(dirname "$0")" && pwd)
label=$1; root=$2; path=$3; n=${4:-20000}
port=$((30000 + RANDOM % 20000)); db=cg_$label
KEY=shk_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB
psql -q -h 127.0.0.1 -U postgres -c "drop database if exists $db with (force)" postgres 2>/dev/null; psql -q -h 127.0.0.1 -U postgres -c "create database $db" postgres
cd $root
export NODE_OPTIONS=--conditions=@shortener/source PORT=$port DATABASE_URL=postgres://postgres@127.0.0.1:5432/$db ADMIN_API_KEY=$KEY RATE_LIMIT_PER_MINUTE=1000000 HEALTH_CHECKS=off
node --import tsx launcher/src/main.ts > /dev/null 2>&1 & pid=$!
until curl -sf -o /dev/null http://127.0.0.1:$port/healthz; do sleep 0.2; done
curl -s -o /dev/null -H "authorization: Bearer $KEY" -d url=https://example.com/destination -d domain_id=1 -d alias=plain http://127.0.0.1:$port/api/v1/links
curl -s -o /dev/null -H "authorization: Bearer $KEY" -d url=https://example.com/limited -d domain_id=1 -d alias=limited -d expiration_clicks=999999999 http://127.0.0.1:$port/api/v1/links
kill -INT $pid; wait $pid
out=/tmp/cg-$label; rm -rf $out; mkdir -p $out
SERVICES=${CG_SERVICES:-api,redirect,worker} valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=$out/cg.%p node --import tsx launcher/src/main.ts > $out/log 2>&1 & vpid=$!
until [ "$(curl -s -o /dev/null -w "%{http_code}" -H "Host: localhost:$port" http://127.0.0.1:$port/plain)" = 302 ]; do sleep 1; done
node "$here/fixed-client.mjs" $port $path 20000 8
node "$here/fixed-client.mjs" $port $path 5000 8
callgrind_control -i on $vpid >/dev/null
node "$here/fixed-client.mjs" $port $path $n 8
callgrind_control -i off $vpid >/dev/null
callgrind_control -d $vpid >/dev/null
sleep 2
kill -INT $vpid; wait $vpid
f=$(ls -S $out/cg.* | head -1)
tot=$(callgrind_annotate $f 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk "{gsub(\",\",\"\",\$1); print \$1}")
echo "$label: $tot instructions, $((tot / n)) per visit"
