#!/usr/bin/env bash
# Regenerates spring_starts.tsv with Spring's own cron classes: Spring 7's
# CronExpression and Spring 4.3's CronSequenceGenerator.
#
#   bash fleet/tests/data/make_spring_vectors.sh /path/to/spring-framework > fleet/tests/data/spring_starts.tsv
#
# Needs: openjdk-17-jdk-headless and libspring-context-java (Debian packages,
# Spring 4.3.30), and a git clone or git dir of spring-projects/spring-framework
# holding tag v7.0.9:
#
#   git clone --branch v7.0.9 --depth 1 https://github.com/spring-projects/spring-framework
#
# Maven is not needed: the five cron classes are taken unchanged from the tag
# and compiled here. They use only java.time, Assert and StringUtils, whose
# methods on this path are the same in Debian's spring-core 4.3.30, and
# jspecify's @Nullable, which the one-line stand-in below replaces.
set -euo pipefail
spring_git=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tag=v7.0.9
pkg=org/springframework/scheduling/support
mkdir -p "$work/src/$pkg" "$work/src/org/jspecify/annotations" "$work/classes"
for f in CronExpression CronField BitsCronField QuartzCronField CompositeCronField; do
  git -C "$spring_git" show "$tag:spring-context/src/main/java/$pkg/$f.java" > "$work/src/$pkg/$f.java"
done
echo 'package org.jspecify.annotations; import java.lang.annotation.*; @Target(ElementType.TYPE_USE) public @interface Nullable {}' \
  > "$work/src/org/jspecify/annotations/Nullable.java"
maven=/usr/share/maven-repo/org/springframework
cp_spring=$maven/spring-core/4.3.30.RELEASE/spring-core-4.3.30.RELEASE.jar:$maven/spring-context/4.3.30.RELEASE/spring-context-4.3.30.RELEASE.jar
javac -nowarn -cp "$cp_spring" -d "$work/classes" $(find "$work/src" -name '*.java') "$here/MakeSpringVectors.java" 2>&1 \
  | grep -v '^Note:' >&2 || true
# the tz rules the zoned rows were searched with
tzdata=$(java -cp "$cp_spring:$work/classes" MakeSpringVectors tzdata)
jdk=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')
echo "# made with: apt-get install -y openjdk-17-jdk-headless libspring-context-java"
echo "#            git clone --branch $tag --depth 1 https://github.com/spring-projects/spring-framework"
echo "#            bash fleet/tests/data/make_spring_vectors.sh spring-framework > fleet/tests/data/spring_starts.tsv"
echo "# Spring 7.0.9: org.springframework.scheduling.support.CronExpression compiled from source at tag $tag ($(git -C "$spring_git" rev-parse "$tag^{commit}")), in UTC"
echo "# Spring 4.3: Debian libspring-context-java $(dpkg-query -W -f='${Version}' libspring-context-java), org.springframework.scheduling.support.CronSequenceGenerator in UTC"
echo "# zoned: Spring 7.0.9's CronExpression in the row's zone, with the JDK's tz rules: tzdb $tzdata (OpenJDK $jdk)"
echo "# rows: fires<TAB>spec<TAB>search start<TAB>Spring 7's first 40 fire times after it, fewer if next() gives null;
#       refused<TAB>spec<TAB>message; endless, like fires, for a search that took over 5 s, with the fire times before it;
#       fails, like fires, for a search that throws, with a fifth column: the exception's class and message;
#       spring4, spring4-refused, spring4-endless and spring4-fails, the same for Spring 4.3's CronSequenceGenerator;
#       zoned<TAB>zone<TAB>spec<TAB>search start<TAB>Spring 7's first 40 fire times after it, searched in that zone as
#       CronTrigger with a zone searches (next() of the start as a ZonedDateTime there), fewer if next() gives null,
#       times in Unix seconds; starts: 2026-01-01 UTC and 6 hours before each of the zone's first two transitions
#       after it; zoned-endless and zoned-fails, like endless and fails, the same for these;
#       each time is next() of the one before, as given, even when no later (Spring 7 on L-30 and L-31)"
java -cp "$cp_spring:$work/classes" MakeSpringVectors
