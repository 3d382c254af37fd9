#!/usr/bin/env bash
# Starts the Mortise sample service on a fresh Debian/Ubuntu machine.
#
# Installs a JDK (17, or the oldest newer one the distribution has) when javac is missing,
# builds the sample and the modules it needs with the Maven wrapper (no Maven install
# needed), then runs it on its default profile: JDBC locks on an embedded H2 file database,
# no server to install. Arguments go to the service, e.g.
#   ./scripts/run-sample.sh --server.port=8081
#   ./scripts/run-sample.sh --spring.profiles.active=redis --mortise.lock.redis.address=redis://127.0.0.1:6379
# See docs/sample.md.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
# The wrapper downloads Maven on its first run.
command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || missing+=(curl)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
if ! command -v javac >/dev/null 2>&1 || [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update -qq
  if ! command -v javac >/dev/null 2>&1; then
    # Debian 12 has 17; later releases start at 21. The sample needs 17 or newer.
    for jdk in openjdk-17-jdk-headless openjdk-21-jdk-headless openjdk-25-jdk-headless default-jdk-headless; do
      if apt-cache show "$jdk" >/dev/null 2>&1; then missing+=("$jdk"); break; fi
    done
  fi
  echo "Installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "Building the sample (first run: a few minutes while Maven downloads dependencies)..."
# No Javadoc or sources jars: the service does not need them (they took most of a rebuild's time).
./mvnw -B -q -pl samples -am package -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true

# The repackaged, runnable jar (samples/pom.xml fixes its name; -sources and -javadoc jars sit beside it).
jar=samples/target/mortise-sample.jar
if [ ! -f "$jar" ]; then
  echo "The build did not make $jar; see the Maven output above." >&2
  exit 1
fi
echo "Starting $jar (Ctrl-C stops it)"
exec java -jar "$jar" "$@"
