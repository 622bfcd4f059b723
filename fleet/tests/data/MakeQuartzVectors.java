import java.text.ParseException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.time.zone.ZoneRulesProvider;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.quartz.CronExpression;

/**
 * Prints quartz_starts.tsv: what Quartz's own CronExpression makes of each
 * spec, in UTC. For a spec it reads, one row per search start with the
 * first fire times after it (Unix seconds); for a spec it refuses, the
 * refusal's message; for a spec it reads but cannot place, the exception
 * it throws; for a search Quartz never returns from (it is given 5 s), the
 * fire times found before it. Then the same in a few time zones
 * (setTimeZone), from the start of 2026 and from 6 hours before each of
 * the zone's first two transitions after it; every zoned spec is one
 * Quartz reads, so a refusal or a throw there stops the run. Run through
 * make_quartz_vectors.sh; with the argument tzdata it prints only the
 * JDK's tz rules version.
 */
public class MakeQuartzVectors {
    /** Search starts: 2026-01-01, a leap February, and a month ending on a weekend. */
    static final long[] STARTS = { 1767225600L, 1835222400L, 1790812800L };
    static final int FIRES = 40;

    static final String[] SPECS = {
        // plain fields, lists, ranges and steps
        "0 0 12 * * ?", "0 15 10 ? * *", "0 15 10 * * ? 2026", "0 * 14 * * ?",
        "0 0/5 14 * * ?", "0 0/5 14,18 * * ?", "0 0-5 14 * * ?", "0 10,44 14 ? 3 WED",
        "0 15 10 ? * MON-FRI", "*/20 * * * * ?", "7/13 * * * * ?", "0 */7 * * * ?",
        "0 3/20 * * * ?", "30 45 23 * * ?", "0 0 0 1 1 ?", "0 0 0 29 2 ?",
        "0 0 0 31 * ?", "0 0 6 ? * 1", "0 0 6 ? * 7", "0 0 6 ? * SUN,SAT",
        "0 0 6 ? * 2-6/2", "0 0 0/6 * * ?", "0 0 0 1/10 * ?", "0 0 0 ? 1/4 MON",
        "0 0 0 ? JAN-MAR FRI", "0 0 12 ? FEB,AUG,NOV TUE", "0 0 9-17 ? * MON-FRI",
        "0 0 9-17/3 * * ?", "5 4 3 2 1 ? 2027", "0 0 0 * * ? 2026-2028", "0 0 0 1 * ? 2026/2",
        "0 0 22-2 * * ?", "0 50-10 * * * ?", "0 0 0 ? * FRI-MON", "0 0 0 28-3 * ?",
        "0 0 0 ? NOV-FEB 1", "0 0 12 1,15 * ?", "1,2,3 0 0 * * ?", "0 0 0 10 OCT ?",
        "0\t0\t0\t*\t*\t?", "  0 0 0 * * ?  ", "0 30 8 ? * mon-fri", "0 0 0 1-5/0 * ?",
        "0 0 0 ? * 0#1", "0 0 0 L-0 * ?", "0 0 0 LW 2 ? 2028", "59 59 23 L 12 ? 2026-2030",
        // last days, weekdays and nth weekdays
        "0 0 0 L * ?", "0 0 0 LW * ?", "0 0 0 L-3 * ?", "0 0 0 L-30 * ?", "0 0 0 L-1W * ?",
        "0 0 0 15W * ?", "0 0 0 1W * ?", "0 0 0 31W * ?", "0 0 0 30W * ?", "0 0 0 ? * 6L",
        "0 0 0 ? * FRIL", "0 0 0 ? * L", "0 0 0 ? * 1L", "0 0 0 ? * 2#1", "0 0 0 ? * 6#3",
        "0 0 0 ? * 6#5", "0 0 0 ? * MON#2", "0 0 0 ? 2 2#5", "0 0 0 L 2 ?",
        // refused by Quartz
        "0 0 0 * * *", "0 0 0 ? * ?", "0 0 0 1 * MON", "0 0 0 * *", "60 0 0 * * ?",
        "0 60 0 * * ?", "0 0 24 * * ?", "0 0 0 32 * ?", "0 0 0 0 * ?", "0 0 0 * 13 ?",
        "0 0 0 ? * 8", "0 0 0 ? * 0", "0 0 0 ? * 1#6", "0 0 0 L,15 * ?", "0 0 0 ? * 2#1,3#2",
        "0 0 0 ? * MON,6L", "0 0 0 * FOO ?", "0 0 0 ? * FUN", "? 0 0 * * ?", "0 0 0 15X * ?",
        "0 0 12 * * ? 1969", "0 0 0 W * ?", "*/0 * * * * ?", "0 0 0 * * ? 2026 extra",
        "", "0 0 0 1W,15 * ?", "0 0 0 ? * 3W", "0 0 0 5L * ?", "0 0/60 * * * ?",
        "0 0 0 * * ? 2030-2026", "L 0 0 * * ?", "0 0 0 L-31 * ?", "0 0 0 ? * 1-", "0 0 0 1/x * ?",
        // searches Quartz never returns from
        "0 0 0 L-30W * ?", "0 0 0 L-29W * ?", "0 0 0 L-28W * ?",
    };

    /** Zones for the zoned rows: DST shifts of an hour, of 30 minutes (Lord Howe), at midnight (Santiago), none (Kolkata), at +12:45 (Chatham). */
    static final String[] ZONES = {
        "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Santiago",
        "Asia/Kolkata", "Pacific/Chatham",
    };

    static final String[] ZONED_SPECS = {
        "0 0 * * * ?", "0 30 * * * ?", "0 0/15 * * * ?", "0 0 2 * * ?", "0 30 2 * * ?",
        "0 0 0 * * ?", "0 0 1 * * ?", "0 0 3 ? * SUN", "0 0 0 L * ?", "0 0 0 LW * ?",
        "0 0 0 15W * ?", "0 0 2 ? * 2#2", "0 0 0 ? * 6L", "0 59 23 * * ?", "0/30 * 2 * * ?",
        "0 0 0 L-3 * ?", "0 0 23 * * ?", "0 30 1 * * ?",
    };

    /** How long before each transition a zoned search starts. */
    static final long BEFORE_TRANSITION = 6 * 3600L;

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("tzdata")) {
            System.out.println(ZoneRulesProvider.getVersions("UTC").lastKey());
            return;
        }
        ExecutorService searches = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task);
            thread.setDaemon(true);
            return thread;
        });
        TimeZone utc = TimeZone.getTimeZone("UTC");
        for (String spec : SPECS) {
            CronExpression expression;
            try {
                expression = new CronExpression(spec);
            } catch (ParseException | RuntimeException refused) {
                System.out.println("refused\t" + escape(spec) + "\t" + escape(String.valueOf(refused.getMessage())));
                continue;
            }
            expression.setTimeZone(utc);
            Future<Date> probe = searches.submit(() -> expression.getNextValidTimeAfter(new Date(STARTS[0] * 1000)));
            try {
                probe.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException fails) {
                System.out.println("fails\t" + escape(spec) + "\t" + fails.getCause().getClass().getName());
                continue;
            } catch (TimeoutException endless) {
                // the searches below say so
            }
            for (long start : STARTS) {
                List<String> fires = new ArrayList<>();
                String kind = "fires";
                Date at = new Date(start * 1000);
                for (int i = 0; i < FIRES; i++) {
                    Date after = at;
                    Future<Date> next = searches.submit(() -> expression.getNextValidTimeAfter(after));
                    try {
                        at = next.get(5, TimeUnit.SECONDS);
                    } catch (TimeoutException endless) {
                        kind = "endless";
                        break;
                    }
                    if (at == null) break;
                    fires.add(Long.toString(at.getTime() / 1000));
                }
                System.out.println(kind + "\t" + escape(spec) + "\t" + start + "\t" + String.join(",", fires));
            }
        }
        for (String zone : ZONES) {
            List<Long> starts = zoneStarts(ZoneId.of(zone));
            for (String spec : ZONED_SPECS) zoned(searches, zone, spec, starts);
        }
        System.out.flush();
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

    /** Quartz searched in a zone: setTimeZone, then getTimeAfter of each fire time in turn. */
    static void zoned(ExecutorService searches, String zone, String spec, List<Long> starts) throws Exception {
        CronExpression expression = new CronExpression(spec);
        expression.setTimeZone(TimeZone.getTimeZone(zone));
        for (long start : starts) {
            List<String> fires = new ArrayList<>();
            String kind = "zoned";
            Date at = new Date(start * 1000);
            for (int i = 0; i < FIRES; i++) {
                Date after = at;
                Future<Date> next = searches.submit(() -> expression.getTimeAfter(after));
                try {
                    at = next.get(5, TimeUnit.SECONDS);
                } catch (TimeoutException endless) {
                    kind = "zoned-endless";
                    break;
                }
                if (at == null) break;
                fires.add(Long.toString(at.getTime() / 1000));
            }
            System.out.println(kind + "\t" + zone + "\t" + escape(spec) + "\t" + start + "\t" + String.join(",", fires));
        }
    }

    static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }
}
