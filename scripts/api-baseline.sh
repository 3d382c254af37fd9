#!/usr/bin/env bash
# Writes the public-API baseline that `./mvnw verify` checks every published module against
# (japicmp, see docs/releasing.md). Run it on the commit that is released:
#
#   ./scripts/api-baseline.sh 0.2.0
#
# It builds the published modules' jars (no tests), and for each writes
# api-baseline/<version>/<artifactId>.jar holding the classes outside `internal` packages, plus the
# `internal` supertypes those classes extend or implement (japicmp must load a class's whole type
# hierarchy). Then it points the root pom's <mortise.api.baseline> at <version>. Older baselines
# stay in the repository until removed by hand; only the one named in the pom is checked.
set -euo pipefail
version=${1:?"usage: $0 <released version, e.g. 0.1.0>"}
cd "$(dirname "$0")/.."
modules=(lock-api lock-tck lock-test lock-redis lock-etcd lock-zookeeper lock-jdbc lock-fencing
  lock-spring-boot-starter lock-shedlock lock-spring-integration)

./mvnw -B -q -DskipTests -Djapicmp.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
  package -pl "$(IFS=,; echo "${modules[*]}")" -am

out=api-baseline/$version
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the binary names of the direct supertypes (superclass, interfaces) of the given classes.
supertypes() {
  local dir=$1; shift
  javap -cp "$dir" "$@" | grep -E '^[a-z ]*(class|interface|enum|record) ' \
    | sed -E ':a; s/<[^<>]*>//g; ta' | sed -E 's/ *\{$//; s/ permits .*$//' \
    | sed -nE 's/^[^ ].* (extends|implements) (.*)$/\2/p' | sed -E 's/ (extends|implements) /,/g' \
    | tr ',' '\n' | sed -E 's/^ +//; s/ +$//' | grep -v '^$' | sort -u || true
}

for module in "${modules[@]}"; do
  jar=$(ls "$module"/target/"$module"-*.jar | grep -v -E -- '-(tests|sources|javadoc)\.jar$' | head -n 1)
  classes=$work/$module
  mkdir -p "$classes"
  (cd "$classes" && unzip -q "$OLDPWD/$jar" '*.class')
  # Start from every class outside `internal`, then add internal supertypes until none is new.
  # module-info.class names packages the baseline leaves out; japicmp compares classes, not modules.
  (cd "$classes" && find . -name '*.class' | sed 's|^\./||' | grep -v -E '(^|/)internal/|^module-info\.class$' | sort) \
    >"$work/$module.keep"
  pending=$(sed 's/\.class$//; s|/|.|g' "$work/$module.keep")
  while [ -n "$pending" ]; do
    next=""
    # shellcheck disable=SC2086 # one class name per word
    for super in $(supertypes "$classes" $pending); do
      # javap prints binary names (Outer$Nested), so the class file is the name with '/'.
      candidate=${super//.//}
      file=$candidate.class
      if [ -f "$classes/$file" ] && ! grep -qxF "$file" "$work/$module.keep"; then
        echo "$file" >>"$work/$module.keep"
        next="$next ${candidate//\//.}"
      fi
    done
    pending=$next
  done
  rm -f "$out/$module.jar"
  # A fixed date keeps the jar byte-identical when the API did not change.
  (cd "$classes" && sort -u "$work/$module.keep" | xargs jar --create --no-manifest \
    --date=2000-01-01T00:00:00Z --file "$OLDPWD/$out/$module.jar")
  echo "$out/$module.jar: $(sort -u "$work/$module.keep" | wc -l) classes"
done

sed -i -E "s|<mortise.api.baseline>[^<]*</mortise.api.baseline>|<mortise.api.baseline>$version</mortise.api.baseline>|" pom.xml
echo "Baseline $version written to $out; pom.xml now checks against it."
