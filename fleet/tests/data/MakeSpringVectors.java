import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.time.zone.ZoneRulesProvider;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.scheduling.support.CronSequenceGenerator;

/**
 * Prints spring_starts.tsv: what Spring's own cron code makes of each spec,
 * in UTC. Spring 7's CronExpression first: for a spec it reads, one row per
 * search start with the first fire times after it (Unix seconds), fewer when
 * next() gives null; for a spec it refuses, the refusal's message. Then the
 * same for Spring 4.3's CronSequenceGenerator, whose next() throws rather
 * than give up: then the row holds the fire times before the throw and the
 * exception. Every call gets 5 s: a search that takes longer is written
 * down with the fire times found before it, a parse that does stops the
 * run. Then Spring 7 again in a few time zones, searched the way a
 * CronTrigger with a zone searches: next() of the start instant as a
 * ZonedDateTime in the zone, from the start of 2026 and from 6 hours before
 * each of the zone's first two transitions after it. Run through
 * make_spring_vectors.sh; with the argument tzdata it prints only the JDK's
 * tz rules version.
 */
public class MakeSpringVectors {
    /** Search starts: 2026-01-01, a leap February, and a month ending on a weekend. */
    static final long[] STARTS = { 1767225600L, 1835222400L, 1790812800L };
    static final int FIRES = 40;

    static final String[] SPECS = {
        // common jobs
        "0 0 * * * *", "0 */5 * * * *", "*/10 * * * * *", "0 0 9-17 * * MON-FRI",
        "0 0 0 * * *", "0 30 2 * * SUN", "0 0 12 1 * ?", "0 15 10 ? * *",
        "0 0/30 8-10 * * *", "0 0 6,19 * * *", "0 0 0 25 12 ?", "0,30 * * * * *",
        // names, either case, and Sunday as 0 or 7 (7 at the start of a range is 0)
        "0 0 0 1 JAN-MAR *", "0 0 0 1 jun,Dec *", "0 0 0 * * mon-fri", "0 0 0 * * SUN",
        "0 0 0 * * sun-sat", "0 0 0 * * MON-SUN", "0 0 0 * * 7", "0 0 0 * * 0",
        "0 0 0 * * 0-7", "0 0 0 * * 5-7", "0 0 0 * * 7-2", "0 0 0 * * SAT,SUN",
        // each name is swapped for its number inside the field, wherever it is
        "0 0 0 1 JANFEB *", "0 0 0 1 janjan *", "0 0 0 * * wedl", "0 0 0 * * MONDAY",
        "0 0 0 1 DECEMBER *", "0 0 0 * * SATSUN",
        // ranges and steps
        "1-10/3 * * * * *", "5/15 * * * * *", "0 0 */7 * * *", "0 10-50/20 * * * *",
        "*/60 * * * * *", "0 0 0 */10 * *", "0 0 0 1 */5 *", "0 0 0 * * */2",
        "0 0 0 * * 1/2", "0 0 12-12 * * *",
        // lists mixing plain and Quartz-style days
        "0 0 0 1,15,L * *", "0 0 0 1W,LW * *", "0 0 0 10-12,L * *", "0 0 0 * * MON,5L",
        "0 0 0 ? * 1#1,3#2",
        // macros
        "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
        "@HOURLY", "  @daily  ",
        // last days and nearest weekdays; an offset back past the 1st is
        // taken, and next() then gives back the time it was given
        "0 0 0 L * *", "0 0 0 L-3 * *", "0 0 0 LW * *", "0 0 0 15W * *", "0 0 0 1W * *",
        "0 0 0 31W * *", "0 0 0 30W 2 *", "0 0 0 L 2 *", "0 0 0 LW 2 *",
        "0 0 0 L-30 * *", "0 0 0 L-31 * *",
        // last and nth weekdays of the month
        "0 0 0 * * 5L", "0 0 0 * * FRIL", "0 0 0 * * 0L", "0 0 0 ? * MON#1",
        "0 0 0 ? * 5#3", "0 0 0 ? * 0#2", "0 0 0 ? * 7#5", "0 0 0 ? * 6#5",
        "0 0 0 ? * MON#6",
        // day of month and day of week must both match
        "0 0 0 13 * FRI", "0 0 0 29 2 MON", "0 0 0 1 * MON", "0 0 0 L * FRI",
        // days that never come
        "0 0 0 30 2 *", "0 0 0 31 4 *", "0 0 0 31 2,4,6,9,11 *",
        // ? in both day fields, and spacing
        "0 0 0 ? * ?", "0  0  0  *  *  *", "0\t0\t0\t*\t*\t*",
        // refused by Spring 7
        "0 * * * *", "0 0 0 1 1 * 2026", "60 * * * * *", "0 60 * * * *", "* * 24 * * *",
        "*/0 * * * * *", "0 0 0 0 * *", "0 0 0 32 * *", "0 0 0 * 13 *", "0 0 0 * 0 *",
        "0 0 0 * * 8", "5-3 * * * * *", "0 0 22-2 * * *", "", " ", "abc", "@reboot",
        "0 0 0 L-0 * *", "0 0 0 32W * *", "0 0 0 ? * 1#0", "? * * * * *", "0 0 0 * ? *",
        "0 0 0 * * L", "0 0 0 5L * *", "0 0 0 l * *", "0 0 0 W * *", "0 0 0 15W1 * *",
        "0 0 0 L-3W * *", "0 0 0 * * #1", "0 0 0 * * 1#", "0 0 0 * * 8#1",
        "0 0 0 * * 1-5#2", "/5 * * * * *", "5/ * * * * *", "0 0 0 * * SU",
    };

    /** Zones for the zoned rows: DST shifts of an hour, of 30 minutes (Lord Howe), at midnight (Santiago), none (Kolkata), at +12:45 (Chatham). */
    static final String[] ZONES = {
        "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Santiago",
        "Asia/Kolkata", "Pacific/Chatham",
    };

    static final String[] ZONED_SPECS = {
        "0 0 * * * *", "0 30 * * * *", "0 */15 * * * *", "0 0 2 * * *", "0 30 2 * * *",
        "0 0 0 * * *", "0 0 1 * * *", "0 0 3 * * SUN", "0 0 0 L * *", "0 0 0 LW * *",
        "0 0 0 15W * *", "0 0 2 ? * MON#2", "0 0 0 * * 5L", "0 59 23 * * *", "*/30 * 2 * * *",
        "0 0 0 L-3 * *", "@daily", "@hourly",
    };

    /** How long before each transition a zoned search starts. */
    static final long BEFORE_TRANSITION = 6 * 3600L;

    static final ExecutorService CALLS = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task);
        thread.setDaemon(true);
        return thread;
    });

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("tzdata")) {
            System.out.println(ZoneRulesProvider.getVersions("UTC").lastKey());
            return;
        }
        for (String spec : SPECS) spring7(spec);
        for (String spec : SPECS) spring4(spec);
        for (String zone : ZONES) {
            List<Long> starts = zoneStarts(ZoneId.of(zone));
            for (String spec : ZONED_SPECS) zoned(zone, spec, starts);
        }
        System.out.flush();
    }

    static void spring7(String spec) throws Exception {
        CronExpression expression;
        try {
            expression = timed(() -> CronExpression.parse(spec));
        } catch (ExecutionException refused) {
            System.out.println("refused\t" + escape(spec) + "\t" + message(refused.getCause()));
            return;
        }
        for (long start : STARTS) {
            List<String> fires = new ArrayList<>();
            String kind = "fires";
            String thrown = null;
            ZonedDateTime at = Instant.ofEpochSecond(start).atZone(ZoneOffset.UTC);
            for (int i = 0; i < FIRES; i++) {
                ZonedDateTime after = at;
                try {
                    at = timed(() -> expression.next(after));
                } catch (TimeoutException endless) {
                    kind = "endless";
                    break;
                } catch (ExecutionException fails) {
                    // not seen: Spring 7 gives null instead
                    kind = "fails";
                    Throwable cause = fails.getCause();
                    thrown = cause.getClass().getName() + ": " + message(cause);
                    break;
                }
                if (at == null) break;
                fires.add(Long.toString(at.toEpochSecond()));
            }
            System.out.println(kind + "\t" + escape(spec) + "\t" + start + "\t" + String.join(",", fires)
                    + (thrown == null ? "" : "\t" + thrown));
        }
    }

    /** The start of 2026, and 6 hours before each of the zone's first two transitions after it. */
    static List<Long> zoneStarts(ZoneId zone) {
        List<Long> starts = new ArrayList<>();
        starts.add(STARTS[0]);
        ZoneRules rules = zone.getRules();
        Instant after = Instant.ofEpochSecond(STARTS[0]);
        for (int i = 0; i < 2; i++) {
            ZoneOffsetTransition transition = rules.nextTransition(after);
            if (transition == null) break;
            starts.add(transition.getInstant().getEpochSecond() - BEFORE_TRANSITION);
            after = transition.getInstant();
        }
        return starts;
    }

    /** Spring 7 searched in a zone, as CronTrigger with that zone searches. */
    static void zoned(String zone, String spec, List<Long> starts) throws Exception {
        // every zoned spec is one Spring 7 reads: a refusal or a hang stops the run
        CronExpression expression = timed(() -> CronExpression.parse(spec));
        ZoneId id = ZoneId.of(zone);
        for (long start : starts) {
            List<String> fires = new ArrayList<>();
            String kind = "zoned";
            String thrown = null;
            ZonedDateTime at = Instant.ofEpochSecond(start).atZone(id);
            for (int i = 0; i < FIRES; i++) {
                ZonedDateTime after = at;
                try {
                    at = timed(() -> expression.next(after));
                } catch (TimeoutException endless) {
                    kind = "zoned-endless";
                    break;
                } catch (ExecutionException fails) {
                    kind = "zoned-fails";
                    Throwable cause = fails.getCause();
                    thrown = cause.getClass().getName() + ": " + message(cause);
                    break;
                }
                if (at == null) break;
                fires.add(Long.toString(at.toEpochSecond()));
            }
            System.out.println(kind + "\t" + zone + "\t" + escape(spec) + "\t" + start + "\t"
                    + String.join(",", fires) + (thrown == null ? "" : "\t" + thrown));
        }
    }

    static void spring4(String spec) throws Exception {
        TimeZone utc = TimeZone.getTimeZone("UTC");
        CronSequenceGenerator generator;
        try {
            generator = timed(() -> new CronSequenceGenerator(spec, utc));
        } catch (ExecutionException refused) {
            System.out.println("spring4-refused\t" + escape(spec) + "\t" + message(refused.getCause()));
            return;
        }
        for (long start : STARTS) {
            List<String> fires = new ArrayList<>();
            String kind = "spring4";
            String thrown = null;
            Date at = new Date(start * 1000);
            for (int i = 0; i < FIRES; i++) {
                Date after = at;
                try {
                    at = timed(() -> generator.next(after));
                } catch (TimeoutException endless) {
                    kind = "spring4-endless";
                    break;
                } catch (ExecutionException fails) {
                    // Spring 4 gives up by throwing, after a year of days at most
                    kind = "spring4-fails";
                    Throwable cause = fails.getCause();
                    thrown = cause.getClass().getName() + ": " + message(cause);
                    break;
                }
                fires.add(Long.toString(at.getTime() / 1000));
            }
            System.out.println(kind + "\t" + escape(spec) + "\t" + start + "\t" + String.join(",", fires)
                    + (thrown == null ? "" : "\t" + thrown));
        }
    }

    /** Runs a call, giving it 5 s; one that takes longer raises TimeoutException. */
    static <T> T timed(Callable<T> call) throws ExecutionException, TimeoutException, InterruptedException {
        return CALLS.submit(call).get(5, TimeUnit.SECONDS);
    }

    static String message(Throwable thrown) {
        return escape(String.valueOf(thrown.getMessage()));
    }

    static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }
}
