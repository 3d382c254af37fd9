#!/usr/bin/env bash
# Runs the whole Mortise test suite on a fresh Debian/Ubuntu machine.
#
# Installs what the tests need and is missing (a JDK 17+, and the real servers the tests
# start on their own loopback ports: redis-server, etcd, PostgreSQL, MariaDB), then runs
# ./mvnw verify. ZooKeeper runs inside the tests (curator-test), so it needs no package.
# Extra arguments go to Maven, e.g. ./scripts/test-all.sh -pl lock-api,lock-tck
# --repeat N (first) runs the same Maven command up to N times and stops at the first failing
# round, to make an intermittent failure show: ./scripts/test-all.sh --repeat 5 -pl lock-redis -am
set -euo pipefail
repeat=1
if [ "${1:-}" = "--repeat" ]; then
  repeat=${2:?"--repeat needs a number of rounds"}
  shift 2
fi
cd "$(dirname "$0")/.."

missing=()
command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || missing+=(curl)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
# lock-chaos builds a tiny clock shim for redis-server (libfaketime aborts a jemalloc redis-server).
command -v cc >/dev/null 2>&1 || missing+=(gcc)
[ -f /usr/include/stdio.h ] || missing+=(libc6-dev)

if [ ${#missing[@]} -gt 0 ] || ! command -v javac >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  if ! command -v javac >/dev/null 2>&1; then
    # Debian 12 has 17; later releases start at 21. Mortise needs 17 or newer.
    for jdk in openjdk-17-jdk-headless openjdk-21-jdk-headless openjdk-25-jdk-headless default-jdk-headless; do
      if apt-cache show "$jdk" >/dev/null 2>&1; then missing+=("$jdk"); break; fi
    done
  fi
  echo "Installing test prerequisites: ${missing[*]}"
  # The packages' own services are not needed: tests start private servers on free ports.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# lock-virtual-threads runs its waiters in a JDK 21+ beside the build's JDK (docs/virtual-threads.md):
# install one where the distribution has it and none is there (Debian 12 has none: its test then fails
# naming the fix, MORTISE_JDK21_HOME).
if [ -z "${MORTISE_JDK21_HOME:-}" ] && ! grep -qsE 'JAVA_VERSION="(2[1-9]|[3-9][0-9])' /usr/lib/jvm/*/release; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  for jdk in openjdk-25-jdk-headless openjdk-21-jdk-headless; do
    if apt-cache show "$jdk" >/dev/null 2>&1; then
      echo "Installing a JDK 21+ for the virtual-thread runs: $jdk"
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$jdk"
      break
    fi
  done
fi

# Three modules at a time: the suites mostly wait on servers and leases (a quiet fresh-clone run
# used 0.53 of a core on average at -T 2), and with three the Redis, etcd+ZooKeeper and JDBC
# suites run side by side instead of two chains of 12 and 14 minutes (docs/ci.md).
if [ "$repeat" -eq 1 ]; then
  exec ./mvnw -B -T 3 verify "$@"
fi
for round in $(seq 1 "$repeat"); do
  echo "==== test-all round $round of $repeat ===="
  if ! ./mvnw -B -T 3 verify "$@"; then
    echo "==== round $round of $repeat failed (surefire reports: */target/surefire-reports) ====" >&2
    exit 1
  fi
done
echo "==== all $repeat rounds passed ===="
