package hudson.scheduler;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Random;

/**
 * Prints jenkins_h.tsv: what Jenkins' own CronTab makes of each (job, spec)
 * pair, plus java.util.Random draws for known seeds and the Hash seed of
 * each job name. Run through make_jenkins_vectors.sh, which compiles it in
 * package hudson.scheduler beside Jenkins' unchanged scheduler sources so
 * it can read CronTab's package-private bit fields.
 */
public class MakeJenkinsVectors {
    static final String[] NAMES = {
        "", " ", "a", "nightly-build", "my job", "folder/sub/job", "a/b/c",
        "ACME/backend/deploy-prod", "Ünïcødé/ジョブ", "emoji 🚀 job",
        "x".repeat(200), "org/repo/PR-1234", "tab\u00a0nbsp",
    };

    static final String[] SPECS = {
        "H H * * *", "H/15 * * * *", "H(0-29)/10 H(9-17) * * 1-5", "@daily",
        "@hourly", "H H(0-7) * * H(1-5)", "@midnight", "@weekly", "@monthly",
        "@yearly", "@annually", "H H H H H", "H/1 H/1 H/1 H/1 H/1",
        "H/30 H/6 H/7 H/3 H/2", "H(5-5) H(23-23) H(31-31) H(12-12) H(7-7)",
        "H H(0-23)/5 H(1-31)/8 * H(0-7)/3", "*/15 * * * *", "0 12 * * 1-5",
        "5,10,H 1-3,H * * *", "H,H,H H,H * * *", "1-59/7 */5 1-31/10 */4 */2",
        "0 0 1 1 7", "0 0 * * 0-7", "30 2 * * 7", "*/7 * * * */7",
        "H(0-59)/60 H * * *", "H/60 * * * *", "H/24 H/24 * * *",
        "H/28 H H/28 H/12 H/7", "  H H * * *  ", "H\tH\t*\t*\t*",
        "1-5/2147483647 * * * *", "0 0 * * 1-7/2147483647", "*/2147483647 * * * *",
        "05 007 01 012 00", "H 9-17/2 * * 1,3,5", "@daily 5", "@daily   ",
        // refused by Jenkins
        "H(5-3) * * * *", "H/0 * * * *", "*/0 * * * *", "60 * * * *",
        "H/61 * * * *", "5-3 * * * *", "H H 0 * *", "H H 32 * *", "H H * 13 *",
        "H H * * 8", "* * * *", "* * * * * *", "h * * * *", "@reboot", "@dailyx",
        "5/10 * * * *", "H(0-29 * * * *", "H() * * * *", "*/2147483648 * * * *",
        "", "H H * * mon", "H H(0-2)/4 * * *", "H(1-31)/32 * * * *",
    };

    static final long[] SEEDS = {0L, 1L, 42L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x5DEECE66DL, 1234567890123L};
    static final int[] BOUNDS = {1, 2, 6, 7, 10, 24, 28, 60, 1 << 30, Integer.MAX_VALUE, 1_500_000_000};

    /** The seed Hash.from(name) gives its Random, computed here independently. */
    static long seedOf(String name) throws Exception {
        byte[] d = MessageDigest.getInstance("MD5").digest(name.getBytes(StandardCharsets.UTF_8));
        long seed = 0;
        for (int i = 0; i < 8; i++) {
            seed = (seed << 8) | ((d[i] ^ d[i + 8]) & 0xFF);
        }
        return seed;
    }

    static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    static String bits(CronTab t) {
        return String.format("%x\t%x\t%x\t%x\t%x", t.bits[0], t.bits[1], t.bits[2], t.bits[3], t.dayOfWeek);
    }

    public static void main(String[] args) throws Exception {
        System.out.println("# Jenkins H vectors: made by fleet/tests/data/make_jenkins_vectors.sh");
        System.out.println("# jenkins commit: " + args[0]);
        System.out.println("# java: " + System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version"));
        System.out.println("# random<TAB>seed<TAB>bound<TAB>ten nextInt(bound) draws of new Random(seed)");
        System.out.println("# seed<TAB>job<TAB>the long Hash.from(job) seeds its Random with");
        System.out.println("# spec<TAB>job<TAB>spec<TAB>minutes hours days-of-month months days-of-week (hex bits, Jenkins' raw fields) or 'refused'");
        System.out.println("# lines<TAB>job<TAB>crontab text (\\n between lines)<TAB>one 5-hex group per CronTab, ';' between, or 'refused'");
        for (long seed : SEEDS) {
            for (int bound : BOUNDS) {
                Random r = new Random(seed);
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 10; i++) sb.append(i == 0 ? "" : ",").append(r.nextInt(bound));
                System.out.println("random\t" + seed + "\t" + bound + "\t" + sb);
            }
        }
        for (String name : NAMES) {
            long seed = seedOf(name);
            Hash h = Hash.from(name);
            Random mine = new Random(seed);
            for (int i = 1; i < 100; i++) {
                if (h.next(i) != mine.nextInt(i)) throw new AssertionError("seed of " + name);
            }
            System.out.println("seed\t" + esc(name) + "\t" + seed);
        }
        for (String name : NAMES) {
            for (String spec : SPECS) {
                String out;
                try {
                    out = bits(new CronTab(spec, Hash.from(name)));
                } catch (IllegalArgumentException e) {
                    out = "refused";
                }
                System.out.println("spec\t" + esc(name) + "\t" + esc(spec) + "\t" + out);
            }
        }
        String[] texts = {
            "H H * * *\nH H * * *", "# nightly\n\nH/15 * * * *\n  @daily  \r\nH H(0-7) * * H(1-5)",
            "@hourly\n@hourly\n@hourly", "H H * * *\nbad", "TZ=Europe/London\nH H * * *",
        };
        Field tabs = CronTabList.class.getDeclaredField("tabs");
        tabs.setAccessible(true);
        for (String name : new String[] {"a/b/c", "nightly-build", "Ünïcødé/ジョブ"}) {
            for (String text : texts) {
                String out;
                try {
                    @SuppressWarnings("unchecked")
                    List<CronTab> list = (List<CronTab>) tabs.get(CronTabList.create(text, Hash.from(name)));
                    StringBuilder sb = new StringBuilder();
                    for (CronTab t : list) sb.append(sb.length() == 0 ? "" : ";").append(bits(t));
                    out = sb.toString();
                } catch (IllegalArgumentException e) {
                    out = "refused";
                }
                System.out.println("lines\t" + esc(name) + "\t" + esc(text) + "\t" + out);
            }
        }
    }
}
