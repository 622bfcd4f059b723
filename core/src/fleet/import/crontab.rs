//! Native crontabs, read as fleet lines.
//!
//! A user crontab (`crontab -e`) has `m h dom mon dow command` lines; a
//! system crontab (`/etc/crontab`, `/etc/cron.d/*`) puts the user before the
//! command. Each schedule line becomes a `cron` fleet line whose id is the
//! command (`user: command` in a system crontab) and whose spec is the five
//! fields or the `@hourly`-style macro. `NAME=value` lines set the
//! environment of the lines after them; of those only the zone matters here,
//! and it becomes the line's `CRON_TZ=` option (the job's own zone) or,
//! without one, its `TZ=` option (the machine's clock).
//!
//! The translation is fleet-file text with one line for each crontab line,
//! so the fleet reader's line numbers are the crontab's own; lines that are
//! not schedules become blank, and those that are skipped say why.

use crate::field::shorten;

use super::super::file::{self, FleetFile, SkippedLine};

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
}

/// Reads a crontab into the same [`FleetFile`] the fleet reader returns,
/// every line and refusal numbered as in the crontab. Never fails.
pub fn read(text: &str, form: CrontabForm) -> FleetFile {
    let translation = translate(text, form);
    let mut read = file::parse(&translation.fleet_text);
    read.skipped.extend(translation.skipped);
    read.skipped.sort_by_key(|skipped| skipped.line);
    read
}

/// Translates a crontab into fleet-file text, line for line.
pub fn translate(text: &str, form: CrontabForm) -> CrontabTranslation {
    let form = match form {
        CrontabForm::Auto => detect_form(text),
        given => given,
    };
    let mut out = CrontabTranslation::default();
    let mut zone = Zone::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        match translate_line(raw, form, &mut zone) {
            Ok(Some(fleet_line)) => out.fleet_text.push_str(&fleet_line),
            Ok(None) => {}
            Err((field, reason)) => out.skipped.push(SkippedLine {
                line,
                field: field.to_string(),
                reason,
            }),
        }
        out.fleet_text.push('\n');
    }
    out
}

/// The zone the environment lines set so far: cronie reads `CRON_TZ` for
/// the schedule and `TZ` only for the command, but other crons schedule in
/// `TZ`, so `CRON_TZ` wins when both are set.
#[derive(Default)]
struct Zone {
    cron_tz: Option<String>,
    tz: Option<String>,
}

impl Zone {
    /// The fleet option for the zone in force, key and value: `CRON_TZ=`
    /// for the job's own zone, `TZ=` for the machine's clock.
    fn current(&self) -> Option<(&'static str, &str)> {
        match (&self.cron_tz, &self.tz) {
            (Some(zone), _) => Some(("CRON_TZ", zone)),
            (None, Some(zone)) => Some(("TZ", zone)),
            (None, None) => None,
        }
    }
}

/// A line's fleet-file text, `None` for a line with no schedule, or the
/// field that stopped it and why.
fn translate_line(
    raw: &str,
    form: CrontabForm,
    zone: &mut Zone,
) -> Result<Option<String>, (&'static str, String)> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    if let Some((name, value)) = environment(trimmed) {
        let value = (!value.is_empty()).then(|| value.to_string());
        match name {
            "CRON_TZ" => zone.cron_tz = value,
            "TZ" => zone.tz = value,
            _ => {}
        }
        return Ok(None);
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
    if let Some((key, zone)) = zone.current() {
        fleet_line.push_str(&format!("\t{key}={}", zone.replace('\t', " ")));
    }
    Ok(Some(fleet_line))
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
        return Err(("id", "the line has a schedule but no command".to_string()));
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
