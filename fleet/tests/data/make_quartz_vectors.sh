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
# the tz rules the zoned rows were searched with
tzdata=$(java -cp "$jar:$work" MakeQuartzVectors tzdata)
jdk=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')
echo "# made with: apt-get install -y openjdk-17-jdk-headless libquartz2-java"
echo "#            bash fleet/tests/data/make_quartz_vectors.sh > fleet/tests/data/quartz_starts.tsv"
echo "# Quartz: Debian libquartz2-java $(dpkg-query -W -f='${Version}' libquartz2-java), org.quartz.CronExpression in UTC"
echo "# zoned: Quartz 2.3.2's CronExpression in the row's zone, with the JDK's tz rules: tzdb $tzdata (OpenJDK $jdk)"
echo "# rows: fires<TAB>spec<TAB>search start<TAB>the first fire times after it; endless, the same
#       for a search Quartz never returns from, with the fire times before it; refused<TAB>spec<TAB>message, or fails<TAB>spec<TAB>the exception asking for a fire time throws;
#       zoned<TAB>zone<TAB>spec<TAB>search start<TAB>the first 40 fire times after it, searched in that zone
#       (setTimeZone, then getTimeAfter of the start), fewer if getTimeAfter gives null, times in Unix seconds;
#       starts: 2026-01-01 UTC and 6 hours before each of the zone's first two transitions after it;
#       zoned-endless, like endless, the same for these; each time is getTimeAfter of the one before, as given"
java -cp "$jar:$work" MakeQuartzVectors
