#!/usr/bin/env bash
# Runs the Mortise fault-injection harness (lock-chaos) and writes docs/RELIABILITY.md and the
# JSON result lock-chaos/target/chaos/result.json (see docs/RELIABILITY.md for the columns), and
# the takeover chart docs/reliability-takeover.svg.
#
# Builds lock-chaos and the modules it needs (tests skipped), then runs
# dev.mortise.lock.chaos.ChaosRun, which starts its own servers on free loopback ports (the
# ledger's PostgreSQL, and per backend x fault the lock server - redis-server, PostgreSQL, etcd
# or a 3-member etcd cluster, ZooKeeper or a 3-server ensemble - through the lock-tck launchers),
# starts worker JVMs (through TCP proxies for the network faults, under libfaketime for
# clock-skew and client-clock-jump), injects the faults and stops everything when done.
#
#   ./scripts/chaos.sh                          # the full run (167 runs): every backend (redis, jdbc, etcd, zookeeper) x
#                                               # every fault that applies with the basic workload, x none, pause,
#                                               # waiter-pause, net-cut with the mixed one, and x none, pause, kill,
#                                               # net-cut, server-kill, leader-kill (etcd, zookeeper) with the leader
#                                               # one, 30 s each (--seconds); then, 15 s each (--short-seconds), the
#                                               # Redis variants redis/lettuce, redis/fair, redis/lettuce/fair x pause,
#                                               # waiter-pause, net-cut, waiter-cut, server-kill, silent-partition
#                                               # (basic), and every backend and variant x none, pause, waiter-pause,
#                                               # net-cut with the shared and the permits workloads
#   ./scripts/chaos.sh redis --seconds 20       # one backend's part of the full run (its added rows at 15 s)
#   ./scripts/chaos.sh redis/lettuce redis/fair --seconds 10   # two Redis variants' part, everything 10 s
#   ./scripts/chaos.sh jdbc --faults pause,clock-skew
#   ./scripts/chaos.sh etcd --workloads mixed --seed 42   # the mixed workload only, key names of seed 42
#   ./scripts/chaos.sh redis etcd zookeeper jdbc --workloads leader --seconds 20 --doc none --out /tmp/cl
#                                               # leader election only (issue 18): one candidate per worker JVM,
#                                               # the leader's writes fenced by its epoch; failover time per backend
#   ./scripts/chaos.sh redis/lettuce --faults waiter-pause,pause --seconds 15 --doc none
#                                               # Redis on the Lettuce driver (default: redisson); the same as
#                                               # redis --redis-driver lettuce; results and rows are named redis/lettuce
#   ./scripts/chaos.sh redis/fair --workloads basic,mixed --doc none
#                                               # Redis in fair mode (waiters queue on the server, hand-off
#                                               # on release); or redis --redis-fair; both: redis/lettuce/fair
#   ./scripts/chaos.sh redis etcd --workloads shared,permits --faults none,pause --seconds 15 --doc none
#                                               # read-write locks (readers beside readers, a writer alone)
#                                               # and a 2-permit semaphore
#   ./scripts/chaos.sh --workers 4 --out /tmp/chaos --doc none
#   ./scripts/chaos.sh --ledger guard --faults pause,net-cut,clock-skew --seconds 20 \
#       --out lock-chaos/target/chaos-guard --doc docs/RELIABILITY-fence-guard.md
#                                               # the ledger fenced by lock-fencing's JdbcFenceGuard
#                                               # (check first in each transaction) instead of its own
#                                               # conditional write; a separate page (a later --doc wins)
#   ./scripts/chaos.sh redis --faults failover,failover-wait --seconds 30 --doc none --out /tmp/failover
#                                               # Redis Sentinel failover with a lagging replica, without and
#                                               # with WAIT (the report's "What WAIT costs" table)
#   ./scripts/chaos.sh --soak 30m               # the soak (not in CI): each backend in turn for 30 min, the mixed
#                                               # workload, a random fault every round, worker heap/threads/fds/
#                                               # sockets sampled each minute and checked flat; writes
#                                               # docs/reliability-soak.svg and lock-chaos/target/chaos/soak.json
#                                               # (RELIABILITY.md itself is left alone); about 2 h for 4 backends
#   ./scripts/chaos.sh redis etcd --soak 30m --out /tmp/soakA --doc none &
#   ./scripts/chaos.sh zookeeper jdbc --soak 30m --out /tmp/soakB --doc none   # the same soak in about 1 h: two
#                                               # backends at a time (separate --out), then one picture of both:
#   ./scripts/chaos.sh --soak-chart-from /tmp/soakA/soak.json,/tmp/soakB/soak.json
#                                               # writes docs/reliability-soak.svg from the soak.json files
#   ./scripts/chaos.sh --chart-from lock-chaos/results/2026-11-28-full-result.json
#                                               # only the takeover chart (docs/reliability-takeover.svg) of a
#                                               # run's JSON; a full run writes it with the page
#
# Faults: pause, waiter-pause, kill, net-cut, waiter-cut, net-delay, clock-skew (jdbc),
# server-kill, server-kill-volatile (redis, jdbc), leader-kill (etcd, zookeeper),
# silent-partition (the holder's proxy goes dark both ways without closing anything, then delivers
# late), release-kill (kill -9 of the holder with its release's reply in flight), renew-stop
# (SIGSTOP of the holder with a renewal's reply in flight), server-clock-jump (redis, jdbc, etcd,
# zookeeper - ZooKeeper then in a server JVM of its own, etcd under a ptrace clock tracer (a Go
# binary reads the clock without libc, so no preload moves it): the server's wall clock jumps 30 s
# forward and back; needs libfaketime and, for Redis and etcd, a C compiler for the clock shim and
# tracer), client-clock-jump (the workers' wall clocks jump 3 min both ways), none.
# Without --faults every fault runs; each is described in docs/RELIABILITY.md ("The faults").
# Ledgers (--ledger): builtin (default: the ledger's own UPDATE ... WHERE token <= ?) or guard.
# Workloads (--workloads, or --workload): basic (one key, renewed default lease), mixed (two keys at
# once, explicit leases, extend, slow listeners), leader (one leader-election candidate per worker,
# the leader writing fenced by its epoch), shared (60 % of cycles a shared hold: fenced read, read
# again, no write; the rest exclusive writers), permits (one permit per cycle of a 2-permit
# semaphore, no ledger writes). With --faults or --workloads, every backend named (default: the
# four plain ones) x workload (default: basic, mixed and leader) x fault (default: the workload's),
# all for --seconds; without either, the full run's rows of the backends named (default: all seven).
# Backends: redis, jdbc, etcd, zookeeper and the Redis variants redis/lettuce (the Lettuce driver),
# redis/fair (fair mode), redis/lettuce/fair; the switches --redis-driver redisson|lettuce and
# --redis-fair add their part to every Redis backend named (to redis alone when none is; not with
# --soak). Key names are random Unicode drawn from --seed (default: the time; printed).
# Exits 1 if any run broke a rule: a stale write accepted, a lost update, a false grant, a token
# reused, a validity overlap (a holder's isValid() true after another grant of its key), an
# orphaned lock, a victim not told of its loss, a takeover slower than lease + 1 s, (leader) an
# epoch that did not grow across elections or a leader write accepted out of epoch order, (shared)
# a writer granted beside a valid holder or a reader's two reads differing while it was valid,
# (permits) more holders valid at once than the semaphore's permits.
# --help prints this text.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ " $* " == *" --help "* || " $* " == *" -h "* ]]; then
  # This header, without the shebang and the leading "# ".
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
  exit 0
fi

./mvnw -B -q -pl lock-chaos -am package -Dmaven.test.skip=true

# Run from copies of the checkout's module jars: a build of another module during the run
# would otherwise rewrite a jar under the running JVMs (workers are started throughout).
jars=lock-chaos/target/chaos-jars
rm -rf "$jars" && mkdir -p "$jars"
# Only the module's own jar: the build may also attach -sources and -javadoc jars.
main_jar=$(ls lock-chaos/target/lock-chaos-*.jar | grep -v -e '-sources\.jar$' -e '-javadoc\.jar$')
cp "$main_jar" "$jars/"
classpath="$PWD/$jars/$(basename "$main_jar")"
IFS=":" read -r -a entries < lock-chaos/target/chaos-classpath.txt || true  # no final newline
for entry in "${entries[@]}"; do
  if [[ "$entry" == "$PWD"/* ]]; then
    cp "$entry" "$jars/" && entry="$PWD/$jars/$(basename "$entry")"
  fi
  classpath="$classpath:$entry"
done

command="./scripts/chaos.sh${*:+ $*}"

exec java -Xmx256m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$classpath" dev.mortise.lock.chaos.ChaosRun \
  --command "$command" --doc docs/RELIABILITY.md "$@"
