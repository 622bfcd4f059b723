//! "How it works" for the Fleet panel: how the fleet is read, then one
//! short section per system with the rule that places its starts, the
//! formula and the version followed (as `fleet/src/` follows them),
//! and an example of what the rule does to a fleet.

use leptos::prelude::*;

use crate::panels::with_code;

/// One system: its name, the source followed, its rule, the formula and
/// an example.
struct System {
    name: &'static str,
    followed: &'static str,
    rule: &'static str,
    formula: &'static str,
    example: &'static str,
}

const SYSTEMS: &[System] = &[
    System {
        name: "Vixie cron and cronie",
        followed: "cronie 1.7.2, with TZ= and CRON_TZ=",
        rule: "A line fires in every minute its five fields allow, at second 0. Nothing spreads it: \
               every machine that copied the same line starts the job in the same minute. With TZ= \
               the machine's clock is in the zone; with CRON_TZ= the job alone is.",
        formula: "fires(t) = minute ∧ hour ∧ month ∧ day, day = dom ∧ dow when a day field starts with *, dom ∨ dow otherwise",
        example: "The crontab sample puts its jobs at minute 0: the whole fleet starts in one minute, \
                  the peak outlined on the heatmap.",
    },
    System {
        name: "Jenkins H",
        followed: "Jenkins 2.579-SNAPSHOT, hudson.scheduler.Hash",
        rule: "H is a value per job, fixed for that job's name: the MD5 of the full name seeds a \
               java.util.Random, and each H in the spec draws from it, left to right.",
        formula: "seed = MD5(name)[0..8] XOR MD5(name)[8..16]; H = lo + nextInt(hi − lo + 1)",
        example: "A shared prefix does not clump H: MD5 scrambles the whole name, so 100 jobs \
                  named sync-customer-001 to sync-customer-100 on `H * * * *` use 47 of the 60 \
                  minutes, about the 48.8 that uniform placement gives. In the Jenkins sample the \
                  jobs on `H H * * *` scatter over the day, while the ones written `0 0 * * *` stay \
                  piled at midnight: H spreads only the lines that use it.",
    },
    System {
        name: "croniter H (Python)",
        followed: "croniter 7.0.0",
        rule: "One CRC-32 of the hash id gives every field: field i (minute 0, hour 1, …) takes \
               the number shifted right by i. The fields are not drawn independently: the hour \
               comes from the same number as the minute, shifted by one bit.",
        formula: "crc = crc32(hash_id); field i = lo + (crc >> i) mod (hi − lo + 1)",
        example: "The same 100 sync-customer names on `H * * * *` use 51 of the 60 minutes, as \
                  uniform placement would. On `H H * * *` the minute is crc mod 60 and the hour \
                  (crc >> 1) mod 24, so only 240 of the 1,440 (minute, hour) pairs can come out at \
                  all.",
    },
    System {
        name: "systemd timers",
        followed: "systemd 252, RandomizedDelaySec= and FixedRandomDelay=",
        rule: "RandomizedDelaySec= delays each elapse. Without FixedRandomDelay= the delay is drawn \
               anew at every elapse, so the start moves every time; with it, the delay is a hash of \
               the machine id and the unit's name, the same on every boot.",
        formula: "delay = SipHash-2-4(machine id, unit) mod RandomizedDelaySec (fixed), else random_u64() mod RandomizedDelaySec",
        example: "The systemd sample runs one timer on 50 machines, 25 with FixedRandomDelay= \
                  and 25 without. A reboot moves the 25 without and none of the others; a new \
                  machine id moves all 50, the fixed ones because their hash takes the id.",
    },
    System {
        name: "Temporal schedules",
        followed: "Temporal 1.31.2, Jitter=",
        rule: "Each nominal time is delayed by a fingerprint of the time and the schedule's id, \
               scaled to the jitter (never past the next nominal time).",
        formula: "start = n + ⌊fp · ms / 2³²⌋ ms, fp = Fingerprint32(n ‖ namespace ‖ schedule id)",
        example: "A schedule with Jitter= starts at a different point of its window at each \
                  nominal time, but the same one for the same time on every server.",
    },
    System {
        name: "Prometheus scrapes",
        followed: "Prometheus 3.14",
        rule: "Each target is scraped at a fixed offset into its interval, hashed from the target's \
               labels and URL and from the server's name and external labels, so scrapes are \
               pinned to absolute time whenever the server started.",
        formula: "offset = (hash(target) XOR seed) mod interval",
        example: "The Prometheus sample's 500 targets already spread: their busiest second holds \
                  9 scrapes against a flat 3.17 a second, their busiest minute 202 against 190 on \
                  average. Changing the server changes the seed and reshuffles the offsets.",
    },
    System {
        name: "Puppet fqdn_rand",
        followed: "Puppet 7.23",
        rule: "fqdn_rand(N, seed) is a number below N fixed for each node: the MD5 of the node's \
               name and the seed starts Ruby's random generator, whose first draw is written into \
               the crontab.",
        formula: "fqdn_rand(N, seed) = Random.new(MD5(\"fqdn:N:seed\")).rand(N)",
        example: "Two nodes with the same name place a job in the same minute; the seed string \
                  keeps two jobs of one node apart.",
    },
    System {
        name: "Quartz cron (Java)",
        followed: "Quartz 2.3.2, CronExpression, in UTC or the trigger's zone",
        rule: "Seven fields from the second to an optional year, one of the two day fields `?`; \
               L, W and # pick the last day, the nearest weekday and the nth weekday of a month. \
               Nothing spreads it: triggers written alike fire in the same second.",
        formula: "fires(t) = second ∧ minute ∧ hour ∧ month ∧ year ∧ (day of month, or day of week)",
        example: "Thirty triggers on `0 0 2 ? * MON-FRI` all fire at 02:00:00; the fix gives each a \
                  minute hashed from its name, as for cron. `0 0 0 L-29W * ?` fires on 2 January \
                  2026 and never again: Quartz's search for the next time goes round without end.",
    },
    System {
        name: "Spring cron (Java)",
        followed: "Spring Framework 7.0.9, CronExpression, in UTC or the task's zone",
        rule: "Six fields from the second to the day of week, Sunday 0 or 7 as in cron, or a \
               macro such as @hourly; a day runs when both day fields allow it. L, W and # as in \
               Quartz. Nothing spreads it: tasks written alike run in the same second.",
        formula: "fires(t) = second ∧ minute ∧ hour ∧ day of month ∧ month ∧ day of week",
        example: "Ten tasks on `0 0 * * * *` all run at minute 0; the fix gives each a minute \
                  hashed from its class and method, as for cron. `0 0 0 L-30 * *` runs on 29 \
                  January and then, Spring's search giving back that same time, at once again.",
    },
    System {
        name: "EventBridge Scheduler (AWS)",
        followed: "AWS's documented rules; the service is closed source",
        rule: "cron() takes six fields from the minute to the year, with Quartz's `?`, L, W and #; \
               rate() steps from the schedule's StartDate. Each run is invoked somewhere within \
               the minute of its time, or within its flexible window (FLEXIBLE, \
               MaximumWindowInMinutes). AWS does not say how it picks the moment, so each start is \
               drawn uniformly in its window, and the load is shown across 20 such draws.",
        formula: "invoked(t) ∈ [t, t + window), window = 1 min (OFF) or MaximumWindowInMinutes",
        example: "In the EventBridge sample 16 schedules start in the minute of 02:00 on every \
                  draw; the two nightly ones with a 30-minute window land anywhere up to 02:30, \
                  underlined on the heatmap. The fix gives each schedule a window as long as its \
                  own: an hour for the hourly and nightly ones, 15 minutes for the 15-minute rate.",
    },
    System {
        name: "anacron",
        followed: "cronie 1.7.2, anacron/main.c, readtab.c and lock.c",
        rule: "An hourly run of anacron (cronie's 0hourly, at minute 01) starts each job that is \
               due (its timestamp PERIOD days old) at the run's start plus DELAY plus one \
               RANDOM_DELAY draw of 0 to N whole minutes, shared by the machine's jobs, but only \
               if that time's hour is within START_HOURS_RANGE; else a later run tries again.",
        formula: "start = first run with hour(run + DELAY + r) ∈ [a, b), r uniform in {0 … RANDOM_DELAY}",
        example: "RHEL's anacrontab on 200 hosts: every cron.daily starts between 03:06 and 03:51, \
                  about 4 a minute, every night; the weekly and monthly jobs join them on their \
                  days. The fix widens RANDOM_DELAY to the rest of the hour, or to the night's \
                  end when a night is set.",
    },
    System {
        name: "APScheduler (Python)",
        followed: "APScheduler 3.11, CronTrigger and IntervalTrigger, jitter as 3.x draws it",
        rule: "A cron trigger's fields, from the year to the second, days of the week from \
               Monday 0, or an interval. jitter adds uniform(0, jitter) seconds to each fire \
               time, drawn anew at every run, and 3.x searches the next time from the jittered \
               one, so an interval drifts later by half the jitter a run.",
        formula: "startₖ = timeₖ + U(0, jitter), timeₖ₊₁ = next time after startₖ",
        example: "Ten jobs on `hour=3, minute=0` all run at 03:00:00; the fix gives each a \
                  minute hashed from its id, as for cron, and keeps its jitter. \
                  `from_crontab('0 9 * * 1-5')` runs from Tuesday to Saturday.",
    },
    System {
        name: "sidekiq-cron (Ruby)",
        followed: "fugit 1.5.2's cron, sidekiq-cron 1.8.0's enqueue, Sidekiq 6.4.1's poller",
        rule: "A job's cron, seconds first when it has six fields, read as fugit reads it. No \
               poller runs at that time: the Sidekiq process polls every avg·rand + avg/2 \
               seconds (avg is cron_poll_interval, 30 by default) and enqueues the job at the \
               first poll a second or more after its time, if that time is at most 60 s old.",
        formula: "start = first poll ≥ time + 1 s, polls spaced U(avg/2, 3·avg/2)",
        example: "Ten hourly jobs on `0 * * * *` are enqueued together by one process, within \
                  1 to 46 s after :00; the fix moves each to a minute of its own, hashed from \
                  its name, written back into its `cron:`.",
    },
    System {
        name: "Kubernetes CronJobs",
        followed: "robfig/cron v3 as the CronJob controller reads it",
        rule: "A CronJob's schedule is plain cron with timeZone as CRON_TZ=; there is no H and no \
               jitter, so a cluster's CronJobs written at the top of the hour start together.",
        formula: "fires(t) as cron, in spec.timeZone",
        example: "In the Kubernetes sample the busiest minute holds 13 starts; the fix, which \
                  writes each job's minute as a hash of its name, brings it to 2.",
    },
    System {
        name: "GitHub Actions",
        followed: "on.schedule cron, placed in UTC",
        rule: "Scheduled workflows are cron without jitter; GitHub starts them late when its runners \
               are busy, most of all at the top of the hour, and may drop them. The map shows the \
               earliest a run can start.",
        formula: "fires(t) as cron, in UTC; the real start is later",
        example: "The GitHub Actions sample: workflows on `0 * * * *` queue behind everyone else's \
                  top-of-the-hour runs; the fix gives each a minute hashed from its name.",
    },
];

pub fn explanation() -> impl IntoView {
    let systems = SYSTEMS
        .iter()
        .map(|system| {
            view! {
                <section class="explain-system">
                    <h4>{system.name} <span class="followed">" (" {system.followed} ")"</span></h4>
                    <p class="explain">{with_code(system.rule)}</p>
                    <p class="explain formula"><code>{system.formula}</code></p>
                    <p class="explain">{with_code(system.example)}</p>
                </section>
            }
        })
        .collect_view();
    view! {
        <p class="explain">
            "Paste the schedules a fleet runs. The panel expands them over one week from midnight
            UTC, minute by minute, the way each scheduler itself places them, and counts the starts
            in every minute (and, where lines give a Duration=, the jobs running). Where a scheduler
            draws a delay when it runs (cronie's RANDOM_DELAY, systemd's RandomizedDelaySec=,
            EventBridge's window, anacron's RANDOM_DELAY), the figures are one draw under the page's seed; the load chart
            shades the 10th to 90th percentile of 20 more draws, and the heatmap underlines the
            minutes the delays can reach."
        </p>
        <p class="explain">
            "The fix moves each fixed start within a window and leaves what the reader chose: the
            days, the months, the hours. A line every n minutes gets an offset below n; a line at
            one minute of some hours gets any minute of those hours, midnight and macros such as
            @daily too, so a nightly job stays in its night; set the night's hours (such as 0-5)
            and a line once a day within them gets any minute of them. Each system writes its window in its
            own syntax (H for Jenkins, RandomizedDelaySec= with FixedRandomDelay= for systemd,
            Jitter= for Temporal, a flexible window for EventBridge, RANDOM_DELAY for anacron), and where the system has none, a minute hashed from the job's
            name, so the place holds when the fleet changes."
        </p>
        {systems}
    }
}
