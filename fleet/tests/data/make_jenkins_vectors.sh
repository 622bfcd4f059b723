#!/usr/bin/env bash
# Regenerates jenkins_h.tsv with Jenkins' own hudson.scheduler classes.
#
#   bash fleet/tests/data/make_jenkins_vectors.sh /path/to/jenkins-git-dir > fleet/tests/data/jenkins_h.tsv
#
# Needs: openjdk-17-jdk-headless, antlr4 and libantlr4-runtime-java (Debian
# packages), and a git clone of jenkinsci/jenkins. Hash.java, BaseParser.java,
# CronTab.java and the two grammars are taken unchanged from that clone's
# HEAD; the few Jenkins classes they import (error listener, message bundle,
# system properties, annotations) are replaced by the tiny stand-ins below,
# which only throw or return what the real ones do on this path.
set -euo pipefail
jenkins_git=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src/hudson/scheduler" "$src/jenkins/util/antlr" "$src/antlr" \
  "$src/edu/umd/cs/findbugs/annotations" "$src/org/kohsuke/accmod/restrictions" "$work/classes"

for f in Hash BaseParser CronTab CronTabList RareOrImpossibleDateException; do
  git -C "$jenkins_git" show "HEAD:core/src/main/java/hudson/scheduler/$f.java" > "$src/hudson/scheduler/$f.java"
done
for g in CrontabLexer CrontabParser; do
  git -C "$jenkins_git" show "HEAD:core/src/main/antlr4/hudson/scheduler/$g.g4" > "$work/$g.g4"
done
(cd "$work" && antlr4 -package hudson.scheduler -o "$src/hudson/scheduler" CrontabLexer.g4 CrontabParser.g4)

cat > "$src/antlr/ANTLRException.java" <<'JAVA'
package antlr;
public class ANTLRException extends IllegalArgumentException {
    public ANTLRException(String message) { super(message); }
    public ANTLRException(String message, Throwable cause) { super(message, cause); }
}
JAVA
cat > "$src/jenkins/util/antlr/JenkinsANTLRErrorListener.java" <<'JAVA'
package jenkins.util.antlr;
import java.util.function.Supplier;
import org.antlr.v4.runtime.*;
/** Stand-in: any lexer or parser error ends the parse, as in Jenkins. */
public class JenkinsANTLRErrorListener extends BaseErrorListener {
    private final Supplier<String> custom;
    public JenkinsANTLRErrorListener() { this(() -> null); }
    public JenkinsANTLRErrorListener(Supplier<String> custom) { this.custom = custom; }
    @Override
    public void syntaxError(Recognizer<?, ?> r, Object sym, int line, int col, String msg, RecognitionException e) {
        String m = custom.get();
        throw new antlr.ANTLRException(m != null ? m : msg, e);
    }
}
JAVA
cat > "$src/jenkins/util/SystemProperties.java" <<'JAVA'
package jenkins.util;
public class SystemProperties {
    public static String getString(String key) { return System.getProperty(key); }
}
JAVA
cat > "$src/edu/umd/cs/findbugs/annotations/CheckForNull.java" <<'JAVA'
package edu.umd.cs.findbugs.annotations;
public @interface CheckForNull {}
JAVA
cat > "$src/edu/umd/cs/findbugs/annotations/NonNull.java" <<'JAVA'
package edu.umd.cs.findbugs.annotations;
public @interface NonNull {}
JAVA
cat > "$src/edu/umd/cs/findbugs/annotations/SuppressFBWarnings.java" <<'JAVA'
package edu.umd.cs.findbugs.annotations;
public @interface SuppressFBWarnings { String[] value() default {}; String justification() default ""; }
JAVA
cat > "$src/hudson/scheduler/Messages.java" <<'JAVA'
package hudson.scheduler;
/** Stand-in for the generated message bundle (English texts). */
class Messages {
    static String BaseParser_StartEndReversed(Object a, Object b) { return "You mean " + a + "-" + b + "?"; }
    static String BaseParser_MustBePositive(Object a) { return "step must be positive, but found " + a; }
    static String BaseParser_OutOfRange(Object a, Object b, Object c) { return a + " is an invalid value. Must be within " + b + " and " + c; }
    static String CronTab_do_you_really_mean_every_minute_when_you(Object a, Object b) { return "every minute " + a + " " + b; }
    static String CronTab_short_cycles_in_the_day_of_month_field_w() { return "short cycles"; }
    static String CronTab_spread_load_evenly_by_using_rather_than_(Object a, Object b) { return "spread " + a + " " + b; }
    static String CronTabList_InvalidInput(Object a, Object b) { return "Invalid input: " + a + ": " + b; }
}
JAVA
cat > "$src/org/kohsuke/accmod/Restricted.java" <<'JAVA'
package org.kohsuke.accmod;
public @interface Restricted { Class<?>[] value(); }
JAVA
cat > "$src/org/kohsuke/accmod/restrictions/NoExternalUse.java" <<'JAVA'
package org.kohsuke.accmod.restrictions;
public class NoExternalUse {}
JAVA
cp "$here/MakeJenkinsVectors.java" "$src/hudson/scheduler/"
cp_rt=/usr/share/java/antlr4-runtime.jar
javac -nowarn -cp "$cp_rt" -d "$work/classes" $(find "$src" -name '*.java') 2>&1 | grep -v '^Note:' >&2 || true
echo "# made with: apt-get install -y openjdk-17-jdk-headless antlr4 libantlr4-runtime-java"
echo "#            bash fleet/tests/data/make_jenkins_vectors.sh <jenkinsci/jenkins git dir> > fleet/tests/data/jenkins_h.tsv"
echo "# antlr (tool and runtime): Debian $(dpkg-query -W -f='${Version}' antlr4); Jenkins' pom pins 4.13.2, same grammar and actions"
java -ea -cp "$cp_rt:$work/classes" hudson.scheduler.MakeJenkinsVectors "$(git -C "$jenkins_git" log -1 --format='%H %cs')"
