#!/usr/bin/env bash
# Regenerates quartz_starts.tsv with Quartz's own CronExpression.
#
#   bash fleet/tests/data/make_quartz_vectors.sh > fleet/tests/data/quartz_starts.tsv
#
# Needs: openjdk-17-jdk-headless and libquartz2-java (Debian packages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jar=/usr/share/java/quartz2.jar
javac -nowarn -cp "$jar" -d "$work" "$here/MakeQuartzVectors.java"
echo "# made with: apt-get install -y openjdk-17-jdk-headless libquartz2-java"
echo "#            bash fleet/tests/data/make_quartz_vectors.sh > fleet/tests/data/quartz_starts.tsv"
echo "# Quartz: Debian libquartz2-java $(dpkg-query -W -f='${Version}' libquartz2-java), org.quartz.CronExpression in UTC"
echo "# rows: fires<TAB>spec<TAB>search start<TAB>the first fire times after it; endless, the same
#       for a search Quartz never returns from, with the fire times before it; refused<TAB>spec<TAB>message, or fails<TAB>spec<TAB>the exception asking for a fire time throws"
java -cp "$jar:$work" MakeQuartzVectors
