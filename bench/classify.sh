#!/bin/sh
# classify.sh: the classifier's speed (issue 3). `airlock classify` over
# 100,000 mixed shell calls (JSON in, JSON out) against `jq -c .` re-printing
# the same file, in the same run; per-call latency (median, p99) of
# classify_shell() and the SQL rate from bench/classify-bench.c.
# Budgets: >= 200,000 shell calls/s, p99 < 50 us, no slower than jq,
# SQL >= 20,000 calls/s. Figures, not a pass/fail test.
set -eu
: "${AIRLOCK:?}" "${BUILD:?}"
n=${CLASSIFY_BENCH_CALLS:-100000}
d=$(mktemp -d /tmp/airlock-bench.XXXXXX)
trap 'rm -rf "$d"' EXIT

# A mix of what agents run: reads, builds, git, edits, deletes, network,
# packages, pipelines, -c scripts, here-docs; numbers vary the file names.
cat > "$d/cmds" <<'CMDS'
ls -la src/dir%d
cat src/file%d.c
grep -rn "TODO %d" src
rg -n 'fn main' crates/c%d
git status
git diff HEAD~%d
git log --oneline -n %d
git add src/f%d.c && git commit -m 'fix %d'
make -j4 test%d
cargo test -p crate%d
npm run build
pytest -q tests/test_%d.py
python3 -m pytest -k case%d
sed -n '1,%dp' README.md
sed -i 's/old%d/new/' src/a.c
find . -name '*.o' -mtime +%d -delete
rm -rf build/out%d
mkdir -p out/%d && cp a.txt out/%d/
echo "value %d" > out.txt
curl -sSL https://example.com/f%d.tgz -o f.tgz
pip install pkg%d
bash -lc "cd sub%d && make"
cat <<EOF > conf%d.ini\n[a]\nb=1\nEOF
for f in *.c; do gcc -c "$f" -o obj/$f.%d.o; done
docker ps
head -n %d log.txt | sort | uniq -c | sort -rn
sudo systemctl restart svc%d
git push origin feature%d
psql -c 'SELECT * FROM t%d WHERE id = 1'
tar czf backup%d.tgz src
CMDS
awk -v n="$n" '
	{ cmd[NR] = $0 }
	END {
		for (i = 0; i < n; i++) {
			c = cmd[i % NR + 1]
			gsub(/%d/, i, c)
			gsub(/\\/, "\\\\", c); gsub(/"/, "\\\"", c); gsub(/\\\\n/, "\\n", c)
			printf "{\"id\":%d,\"tool\":\"shell\",\"input\":{\"command\":\"%s\"}}\n", i, c
		}
	}' "$d/cmds" > "$d/calls.jsonl"
awk -v n="$n" '{ cmd[NR] = $0 } END { for (i = 0; i < n; i++) { c = cmd[i % NR + 1]; gsub(/%d/, i, c); print c } }' \
	"$d/cmds" > "$d/shell.txt"
sqls="SELECT * FROM users WHERE id = %d
DELETE FROM sessions WHERE expires < %d
UPDATE accounts SET balance = balance - %d WHERE id = 7
INSERT INTO log (msg) VALUES ('entry %d')
WITH x AS (SELECT id FROM t WHERE a > %d) SELECT count(*) FROM x
DELETE FROM \`t\` WHERE id = %d LIMIT 1
DROP TABLE tmp_%d"
printf '%s\n' "$sqls" | awk -v n=20000 '{ q[NR] = $0 } END { for (i = 0; i < n; i++) { s = q[i % NR + 1]; gsub(/%d/, i, s); print s } }' > "$d/sql.txt"

cc -I. -D_GNU_SOURCE -std=c11 -O2 $(pkg-config --cflags jansson libgit2) \
	-o "$d/classify-bench" bench/classify-bench.c "$BUILD/libairlock.a" \
	$(pkg-config --libs jansson sqlite3 libseccomp ncursesw) -ldl -lm -lpthread

cc -O2 -o "$d/json-floor" bench/json-floor.c $(pkg-config --libs jansson)

secs() { # runs "$@" with stdin/stdout redirected; prints elapsed seconds
	s=$(date +%s%N); "$@"; e=$(date +%s%N); echo "$s $e" | awk '{ printf "%.3f", ($2 - $1) / 1e9 }'
}
a=$(secs sh -c "taskset -c 0 \"$AIRLOCK\" classify < \"$d/calls.jsonl\" > \"$d/out.jsonl\"")
j=$(secs sh -c "taskset -c 0 jq -c . < \"$d/calls.jsonl\" > \"$d/jq.jsonl\"")
f=$(secs sh -c "taskset -c 0 \"$d/json-floor\" < \"$d/calls.jsonl\" > \"$d/floor.jsonl\"")
lines=$(wc -l < "$d/out.jsonl")
echo "airlock classify: $n mixed shell calls, JSON in and out, one core ($lines verdicts)"
awk -v n="$n" -v a="$a" -v j="$j" 'BEGIN {
	printf "  airlock classify %7.3f s  %9.0f calls/s   ratio to 200,000/s budget %.2fx\n", a, n / a, (n / a) / 200000
	printf "  jq -c .          %7.3f s  %9.0f lines/s   airlock time / jq time %.2fx (budget <= 1)\n", j, n / j, a / j
}'
sh_out=$(taskset -c 0 "$d/classify-bench" shell "$d/shell.txt")
echo "$sh_out" | awk '{
	printf "  classify_shell() alone: %.0f calls/s, median %.2f us, mean %.2f us, p99 %.2f us (p99 / 50 us budget %.2fx), max %.0f us\n", $2, $3, $5, $4, $4 / 50, $6 }'
# The tail is the SQL clients': a psql call is 1 in 30 of the mix and pays
# libpg_query's parse plus jansson reading its JSON tree (~17 us for 525
# bytes), so the mix's p99 falls among them. Each part alone:
grep -v psql "$d/shell.txt" > "$d/shell-nosql.txt"
grep psql "$d/shell.txt" > "$d/shell-sql.txt"
for part in nosql sql; do
	taskset -c 0 "$d/classify-bench" shell "$d/shell-$part.txt" | awk -v p="$part" '{
		printf "    %-28s %6d calls: median %.2f us, p99 %.2f us\n",
		       p == "sql" ? "the psql calls alone:" : "the mix without psql calls:", $1, $3, $4 }'
done
# What no implementation on jansson can beat: its own round trip of the
# input plus the classification (median), with nothing else.
echo "$sh_out" | awk -v n="$n" -v f="$f" -v j="$j" '{
	per = f / n * 1e6 + $3 # the median: the most favourable floor
	printf "  floor: jansson parse+print of the input alone %.3f s (%.2f us/call, %.2fx jq);\n", f, f / n * 1e6, f / j
	printf "    plus classify_shell() = %.2f us/call: at most %.0f calls/s (%.2fx the budget), %.2fx jq\n", per, 1e6 / per, 1e6 / per / 200000, per * n / 1e6 / j }'
taskset -c 0 "$d/classify-bench" sql "$d/sql.txt" | awk '{
	printf "  classify_sql(): %d queries, %.0f calls/s (ratio to 20,000/s budget %.2fx), median %.2f us, p99 %.2f us\n", $1, $2, $2 / 20000, $3, $4 }'
echo "  (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores: tails and means include preemption)"
