#!/usr/bin/env bash
# Runs the Mortise benchmarks and writes docs/BENCHMARKS.md, its charts (docs/benchmarks/latency.png
# and a PNG per results table) and the raw data in docs/benchmarks/ (see docs/BENCHMARKS.md for what
# each scenario measures).
#
# Builds lock-benchmarks and the modules it needs (tests skipped), then runs
# dev.mortise.lock.bench.BenchmarkMain, which starts its own servers on free loopback ports
# (redis-server, etcd, PostgreSQL, MariaDB through the lock-tck launchers; ZooKeeper in a
# child JVM) and stops them when done. The full run takes about twenty minutes.
#
# Arguments go to BenchmarkMain, e.g.
#   ./scripts/benchmark.sh --quick                      # seconds per scenario: checks the harness, not results
#   ./scripts/benchmark.sh --groups redis,postgres      # only some backends
#   ./scripts/benchmark.sh --scenarios uncontended,handoff,leases,readwrite,multikey,annotation
#   ./scripts/benchmark.sh --out /tmp/bench             # write elsewhere than docs/
#   ./scripts/benchmark.sh --report-from docs/benchmarks/results.json
#                          # measures nothing: renders the page, the charts and the CSVs again from a
#                          # saved run (after a change of presentation only; the figures stay the run's)
set -euo pipefail
cd "$(dirname "$0")/.."

# -DskipTests, not -Dmaven.test.skip: the floor subjects take lock-redis's scripts from its test jar.
./mvnw -B -q -pl lock-benchmarks -am package -DskipTests

# Run from copies of the checkout's module jars: a build of another module during the run
# would otherwise rewrite a jar under the running JVMs.
jars=lock-benchmarks/target/benchmark-jars
rm -rf "$jars" && mkdir -p "$jars"
classpath="lock-benchmarks/target/classes"
IFS=":" read -r -a entries < lock-benchmarks/target/benchmark-classpath.txt || true  # no final newline
for entry in "${entries[@]}"; do
  if [[ "$entry" == "$PWD"/* ]]; then
    cp "$entry" "$jars/" && entry="$jars/$(basename "$entry")"
  fi
  classpath="$classpath:$entry"
done
command="./scripts/benchmark.sh${*:+ $*}"

exec java -Xms1g -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$classpath" dev.mortise.lock.bench.BenchmarkMain --command "$command" "$@"
