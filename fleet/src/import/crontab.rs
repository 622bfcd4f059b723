//! Native crontabs, read as fleet lines.
//!
//! A user crontab (`crontab -e`) has `m h dom mon dow command` lines; a
//! system crontab (`/etc/crontab`, `/etc/cron.d/*`) puts the user before the
//! command. Each schedule line becomes a `cron` fleet line whose id is the
//! command (`user: command` in a system crontab) and whose spec is the five
//! fields or the `@hourly`-style macro. `NAME=value` lines set the
//! environment of the lines after them.
//!
//! Which daemon reads the crontab decides what that environment does to
//! the schedule, so two comments, wherever they stand, say what the text
//! cannot:
//!
//! - `# daemon: cronie` (the default) or `# daemon: debian` (Debian's and
//!   Ubuntu's `cron` package).
//! - `# machine-tz: Area/City`: the zone the daemon's clock runs in, which
//!   becomes each line's `TZ=` fleet option ([`crate::zoned`]).
//!
//! In a mixed paste a comment stays with the part before it
//! ([`super::parts`]), so there they go at the top of the paste or after
//! the crontab's first line.
//!
//! What each daemon reads, from its source:
//!
//! | setting          | cronie 1.7.2                               | Debian cron 3.0pl1-162         |
//! |------------------|--------------------------------------------|--------------------------------|
//! | `CRON_TZ=zone`   | the job's own zone: the `CRON_TZ=` option  | the command's environment only |
//! | `TZ=zone`        | the command's environment only             | the command's environment only |
//! | `RANDOM_DELAY=n` | a delay: the `RANDOM_DELAY=` option        | not read                       |
//!
//! cronie's `find_jobs` (`src/cron.c`) matches each job on `CRON_TZ` from
//! the job's environment, else on the daemon's own `TZ`; a crontab's `TZ=`
//! reaches only the command. A job in its own zone keeps it whatever the
//! machine's; cronie also holds such jobs back while the machine's own
//! clock is changing (`vGMToff != GMToff` in `find_jobs`), which is not
//! modelled. Debian's `find_jobs` (`cron.c`) matches every job on the
//! daemon's clock, and its cron(8) says it "will only handle tasks in a
//! single timezone". A setting that does not move the schedule is read
//! with a note on its own line saying so, for it reaches the commands. cronie reads `RANDOM_DELAY` in
//! `load_entry` (`src/entry.c`) as whole minutes from 0 to 1440 (`strtol`;
//! any other value is logged as bad and delays nothing) and delays the job
//! by that times one scale the daemon draws when it starts (`src/cron.c`,
//! `main`), shared by every job ([`crate::cron::RandomDelay`]).
//!
//! systemd-cron 2.8.1 (`src/bin/systemd-crontab-generator.cpp`,
//! `decode_environment` and `generate_timer`) reads a crontab otherwise:
//! `TZ=` and `CRON_TZ=` both set the zone of the timer's `OnCalendar=`
//! (`TZ=` when both are set), and `RANDOM_DELAY=n` becomes
//! `RandomizedDelaySec=`*n*`m` on every timer, so each job draws its own
//! delay at every elapse. Its crontabs are read here through the timers it
//! generates (`systemctl cat 'cron-*.timer'`), pasted as systemd units;
//! `# daemon: systemd-cron` is refused with that advice.
//!
//! The translation is fleet-file text with one line for each crontab line,
//! so the fleet reader's line numbers are the crontab's own; lines that are
//! not schedules become blank, and those that are skipped say why.

use stampede_core::field::shorten;

use crate::FleetNotice;
use crate::file::{self, FleetFile, SkippedLine};

/// Which of cron's two line shapes a crontab uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrontabForm {
    /// Decide from the lines, as [`detect_form`] does.
    Auto,
    /// `m h dom mon dow command`, as `crontab -e` edits.
    User,
    /// `m h dom mon dow user command`, as in `/etc/crontab` and `/etc/cron.d`.
    System,
}

/// Accounts that own system cron jobs on common distributions. A sixth
/// field naming one of them is a user, not a command.
const KNOWN_ACCOUNTS: &[&str] = &[
    "root", "daemon", "bin", "sys", "nobody", "www-data", "apache", "nginx", "http", "postgres",
    "mysql", "redis", "backup", "mail", "news", "operator", "syslog", "smmsp", "uucp", "lp",
];

/// Commands that often lead a user crontab's command and take a path after
/// them, so `nice /usr/bin/x` is not read as user `nice`.
const WRAPPERS: &[&str] = &[
    "nice", "ionice", "timeout", "flock", "env", "sudo", "sh", "bash", "exec", "chronic",
    "run-one", "test", "cd", "su", "runuser", "setsid", "nohup", "time",
];

/// Fleet-file text with one line for each crontab line, and the crontab
/// lines that produced none, with why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrontabTranslation {
    pub fleet_text: String,
    pub skipped: Vec<SkippedLine>,
    /// Settings read that do not move the schedule, such as `TZ=`.
    pub notes: Vec<FleetNotice>,
}

/// What a crontab line gives.
enum Taken {
    /// A schedule, as fleet-file text.
    Schedule(String),
    /// Nothing to say: a blank line, a comment, a setting taken in.
    Nothing,
    /// A setting the daemon reads for the commands alone, and what it does.
    Note(String),
}

/// Reads a crontab into the same [`FleetFile`] the fleet reader returns,
/// every line and refusal numbered as in the crontab, with a note on each
/// setting that reaches only the commands. Never fails.
pub fn read(text: &str, form: CrontabForm) -> (FleetFile, Vec<FleetNotice>) {
    let translation = translate(text, form);
    let mut read = file::parse(&translation.fleet_text);
    read.skipped.extend(translation.skipped);
    read.skipped.sort_by_key(|skipped| skipped.line);
    (read, translation.notes)
}

/// Translates a crontab into fleet-file text, line for line.
pub fn translate(text: &str, form: CrontabForm) -> CrontabTranslation {
    let form = match form {
        CrontabForm::Auto => detect_form(text),
        given => given,
    };
    let mut out = CrontabTranslation::default();
    let machine = read_machine(text, &mut out.skipped);
    let mut settings = Settings::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        match translate_line(raw, form, &machine, &mut settings) {
            Ok(Taken::Schedule(fleet_line)) => out.fleet_text.push_str(&fleet_line),
            Ok(Taken::Nothing) => {}
            Ok(Taken::Note(message)) => out.notes.push(FleetNotice { line, message }),
            Err((field, reason)) => out.skipped.push(SkippedLine {
                line,
                field: field.to_string(),
                reason,
            }),
        }
        out.fleet_text.push('\n');
    }
    out.skipped.sort_by_key(|skipped| skipped.line);
    out
}

/// The daemon that reads a crontab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Daemon {
    /// cronie, as Fedora, RHEL, Arch and SUSE run it.
    #[default]
    Cronie,
    /// Debian's `cron` package (Vixie cron 3.0pl1 and Debian's patches),
    /// as Debian and Ubuntu run it.
    Debian,
}

/// What a crontab's `# daemon:` and `# machine-tz:` comments say.
#[derive(Default)]
struct Machine<'a> {
    daemon: Daemon,
    /// The zone of the daemon's clock.
    zone: Option<&'a str>,
}

/// The machine the crontab's comments describe, wherever they stand; a
/// comment that names no known daemon, or contradicts an earlier one, is
/// skipped with why.
fn read_machine<'a>(text: &'a str, skipped: &mut Vec<SkippedLine>) -> Machine<'a> {
    let mut machine = Machine::default();
    // The line each convention was first given on.
    let (mut daemon_at, mut zone_at) = (None, None);
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let Some((key, value)) = convention(raw) else {
            continue;
        };
        let refusal = if key == "daemon" {
            match (parse_daemon(value), daemon_at) {
                (Err(reason), _) => Some(reason),
                (Ok(daemon), Some(first)) if daemon != machine.daemon => Some(format!(
                    "line {first} already names the daemon; this line is not read"
                )),
                (Ok(daemon), first) => {
                    machine.daemon = daemon;
                    daemon_at = first.or(Some(line));
                    None
                }
            }
        } else {
            match zone_at {
                Some(first) if machine.zone != Some(value) => Some(format!(
                    "line {first} already gives the machine's zone; this line is not read"
                )),
                _ => {
                    machine.zone = Some(value);
                    zone_at = zone_at.or(Some(line));
                    None
                }
            }
        };
        if let Some(reason) = refusal {
            skipped.push(SkippedLine {
                line,
                field: key.to_string(),
                reason,
            });
        }
    }
    machine
}

/// `# daemon: name` or `# machine-tz: zone`, as (key, value).
fn convention(raw: &str) -> Option<(&'static str, &str)> {
    let (key, value) = raw.trim().strip_prefix('#')?.split_once(':')?;
    let key = ["daemon", "machine-tz"]
        .into_iter()
        .find(|known| key.trim().eq_ignore_ascii_case(known))?;
    Some((key, value.trim()))
}

fn parse_daemon(name: &str) -> Result<Daemon, String> {
    match name.to_ascii_lowercase().as_str() {
        "cronie" => Ok(Daemon::Cronie),
        "debian" => Ok(Daemon::Debian),
        "systemd-cron" => Err(
            "systemd-cron turns each crontab line into a systemd timer; paste \
                               the timers it generates (systemctl cat 'cron-*.timer') to read \
                               them as systemd places them; the lines here are read as cronie's"
                .to_string(),
        ),
        _ => Err(format!(
            "\"{}\" is not a daemon read here: name cronie or debian; the lines are read as cronie's",
            shorten(name)
        )),
    }
}

/// The settings of the environment lines so far that reach the schedule.
#[derive(Default)]
struct Settings {
    /// `CRON_TZ=`, as cronie reads it.
    cron_tz: Option<String>,
    /// `RANDOM_DELAY=` in minutes, as cronie reads it.
    random_delay: Option<u32>,
}

/// A line's fleet-file text, `None` for a line with no schedule, or the
/// field that stopped it and why.
fn translate_line(
    raw: &str,
    form: CrontabForm,
    machine: &Machine,
    settings: &mut Settings,
) -> Result<Taken, (&'static str, String)> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(Taken::Nothing);
    }
    if let Some((name, value)) = environment(trimmed) {
        return set(name, value, machine.daemon, settings);
    }
    let job = split_job(trimmed, form)?;
    if job.spec == "@reboot" {
        return Err((
            "spec",
            "@reboot runs at boot, not at a time of day, so the line is skipped".to_string(),
        ));
    }
    // Tabs separate a fleet line's fields, so any inside the command or the
    // zone become spaces; nothing else of the text is changed.
    let command = job.command.replace('\t', " ");
    let id = match job.user {
        Some(user) => format!("{user}: {command}"),
        None => command,
    };
    let mut fleet_line = format!("cron\t{id}\t{}", job.spec);
    // cronie matches a job with `CRON_TZ` on that zone's clock, whatever
    // the machine's.
    let zone = match (&settings.cron_tz, machine.zone) {
        (Some(zone), _) => Some(("CRON_TZ", zone.as_str())),
        (None, Some(zone)) => Some(("TZ", zone)),
        (None, None) => None,
    };
    if let Some((key, zone)) = zone {
        fleet_line.push_str(&format!("\t{key}={}", zone.replace('\t', " ")));
    }
    if let Some(minutes) = settings.random_delay {
        fleet_line.push_str(&format!("\tRANDOM_DELAY={minutes}"));
    }
    Ok(Taken::Schedule(fleet_line))
}

/// Takes in the environment line `name=value` as `daemon` does: a setting
/// the daemon schedules by changes `settings`; one that reaches only the
/// commands, where it may look as if it moved the schedule, gives a note
/// saying so.
fn set(
    name: &str,
    value: &str,
    daemon: Daemon,
    settings: &mut Settings,
) -> Result<Taken, (&'static str, String)> {
    const DEBIAN: &str = "Debian's cron matches every job on the daemon's clock (cron.c, \
                          find_jobs, cron 3.0pl1-162)";
    const ON_THE_MACHINE: &str = "give the machine's zone as # machine-tz: Area/City";
    match (name, daemon) {
        ("CRON_TZ", Daemon::Cronie) => {
            settings.cron_tz = (!value.is_empty()).then(|| value.to_string());
            Ok(Taken::Nothing)
        }
        ("RANDOM_DELAY", Daemon::Cronie) => {
            settings.random_delay = None;
            let minutes = cronie_minutes(value).ok_or((
                "RANDOM_DELAY",
                "cronie takes 0 to 1440 minutes and logs any other value as bad \
                 (src/entry.c, load_entry), delaying none of the lines after it"
                    .to_string(),
            ))?;
            settings.random_delay = (minutes > 0).then_some(minutes);
            Ok(Taken::Nothing)
        }
        ("TZ", Daemon::Cronie) => Ok(Taken::Note(format!(
            "TZ= reaches only the commands: cronie matches a job on its CRON_TZ= or the \
                 daemon's own zone (src/cron.c, find_jobs, cronie 1.7.2); {ON_THE_MACHINE}"
        ))),
        ("TZ", Daemon::Debian) => Ok(Taken::Note(format!(
            "TZ= reaches only the commands: {DEBIAN}; {ON_THE_MACHINE}"
        ))),
        ("CRON_TZ", Daemon::Debian) => Ok(Taken::Note(format!(
            "CRON_TZ= reaches only the commands: {DEBIAN}; {ON_THE_MACHINE}"
        ))),
        ("RANDOM_DELAY", Daemon::Debian) => Ok(Taken::Note(
            "Debian's cron does not read RANDOM_DELAY (cron 3.0pl1-162): the jobs start on time"
                .to_string(),
        )),
        _ => Ok(Taken::Nothing),
    }
}

/// A `RANDOM_DELAY` value as cronie's `load_entry` takes it: `strtol`'s
/// leading number (none reads as 0), kept when it is 0 to 1440.
fn cronie_minutes(value: &str) -> Option<u32> {
    let text = value.trim_start();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return Some(0);
    }
    let minutes: u64 = text[..digits].parse().ok()?;
    match (negative, minutes) {
        (false, 0..=1440) => Some(minutes as u32),
        // `-0` is 0; any other negative is refused.
        (true, 0) => Some(0),
        _ => None,
    }
}

/// `NAME=value` as cron reads an environment line: a name without blanks
/// before the first `=`, the value trimmed and unquoted. A schedule line's
/// first field never holds `=`, so the two cannot be confused.
fn environment(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once('=')?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) || name.starts_with('@') {
        return None;
    }
    let value = value.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|&quote| value.strip_prefix(quote)?.strip_suffix(quote))
        .unwrap_or(value);
    Some((name, unquoted))
}

/// A schedule line's parts.
struct Job<'a> {
    /// The five fields joined by single spaces, or the macro.
    spec: String,
    user: Option<&'a str>,
    command: &'a str,
}

fn split_job(line: &str, form: CrontabForm) -> Result<Job<'_>, (&'static str, String)> {
    let spec_fields = if line.starts_with('@') { 1 } else { 5 };
    let (fields, rest) = leading_fields(line, spec_fields);
    if fields.len() < spec_fields {
        return Err((
            "spec",
            format!(
                "\"{}\" has {} of the 5 time fields, then no command",
                shorten(line),
                fields.len()
            ),
        ));
    }
    let (user, command) = if form == CrontabForm::System {
        let (user, command) = leading_fields(rest, 1);
        let Some(&user) = user.first() else {
            return Err((
                "user",
                "is missing; a system crontab gives the user after the schedule".to_string(),
            ));
        };
        (Some(user), command)
    } else {
        (None, rest)
    };
    let command = command.trim();
    if command.is_empty() {
        // Five words of prose read as fields with no command: say what is
        // wrong with the fields first.
        let spec = fields.join(" ");
        return Err(match crate::cron::parse(&spec) {
            Err(refusal) => ("spec", format!("{}: {}", refusal.field, refusal.reason)),
            Ok(_) => ("id", "the line has a schedule but no command".to_string()),
        });
    }
    Ok(Job {
        spec: fields.join(" "),
        user,
        command,
    })
}

/// Up to `count` blank-separated fields from the start of `text`, and the
/// text after them.
fn leading_fields(text: &str, count: usize) -> (Vec<&str>, &str) {
    let mut fields = Vec::with_capacity(count);
    let mut rest = text.trim_start();
    while fields.len() < count && !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        fields.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    (fields, rest)
}

/// Which form a crontab is in. The first schedule line that tells decides:
/// its field after the schedule is a user when it is a known account
/// (`root`, `www-data`, …) or a plain name, not a common command wrapper
/// (`nice`, `sh`, …), followed by an absolute path; it is a command when it
/// starts with `/`, `~` or `.`, or holds characters no user name holds.
/// A crontab where no line tells is a user crontab, the more common kind.
pub fn detect_form(text: &str) -> CrontabForm {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter(|line| environment(line).is_none())
        .find_map(vote)
        .unwrap_or(CrontabForm::User)
}

/// What one schedule line says of the form, if anything.
fn vote(line: &str) -> Option<CrontabForm> {
    let spec_fields = if line.starts_with('@') { 1 } else { 5 };
    let (fields, rest) = leading_fields(line, spec_fields + 2);
    let word = *fields.get(spec_fields)?;
    if KNOWN_ACCOUNTS.contains(&word) {
        return Some(CrontabForm::System);
    }
    if word.starts_with(['/', '~', '.']) || !is_user_name(word) {
        return Some(CrontabForm::User);
    }
    let next = fields.get(spec_fields + 1).copied().unwrap_or(rest);
    (next.starts_with('/') && !WRAPPERS.contains(&word)).then_some(CrontabForm::System)
}

/// A name as `useradd` takes it: a letter or `_`, then letters, digits,
/// `_`, `-` or `.`.
fn is_user_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_on_any_blanks_and_keep_the_rest_as_written() {
        let (fields, rest) = leading_fields(" 1\t2  3 4 5  echo  a\tb ", 5);
        assert_eq!(fields, ["1", "2", "3", "4", "5"]);
        assert_eq!(rest, "echo  a\tb ");
    }

    #[test]
    fn environment_lines_are_told_from_schedules() {
        assert_eq!(environment("CRON_TZ = \"UTC\""), Some(("CRON_TZ", "UTC")));
        assert_eq!(environment("MAILTO="), Some(("MAILTO", "")));
        assert_eq!(environment("*/5 * * * * A=1 run"), None);
        assert_eq!(environment("@daily A=1 run"), None);
    }

    #[test]
    fn the_form_is_told_by_the_first_line_that_tells() {
        let form = |text| detect_form(text);
        assert_eq!(
            form("0 * * * * root run-parts /etc/cron.hourly"),
            CrontabForm::System
        );
        assert_eq!(form("@daily backup /usr/bin/dump"), CrontabForm::System);
        assert_eq!(form("0 * * * * /usr/bin/backup"), CrontabForm::User);
        assert_eq!(form("0 * * * * nice /usr/bin/x"), CrontabForm::User);
        assert_eq!(
            form("0 * * * * /bin/echo\n0 * * * * root x"),
            CrontabForm::User
        );
        assert_eq!(
            form("0 * * * * echo hi\n0 * * * * root x"),
            CrontabForm::System
        );
        assert_eq!(form("0 * * * * echo hi"), CrontabForm::User);
        assert_eq!(form(""), CrontabForm::User);
    }
}
