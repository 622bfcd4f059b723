//! The check's settings: `stampede.toml`, then the flags over it.
//!
//! ```toml
//! max-starts-per-minute = 20
//! max-concurrent = 8
//! fail-on = "warning"
//! zone = "Europe/Berlin"      # the machines' zone, for crontabs and the JVM
//! hours = 168
//! night = "0-5"
//! exclude = ["vendor/**"]
//!
//! [durations]                 # how long jobs run, by id
//! nightly-backup = "1h30m"
//!
//! [[ignore]]
//! rule = "github-top-of-hour"
//! paths = [".github/workflows/legacy-*.yml"]
//! ```
//!
//! An unknown key, a wrong type or a bad value stops the check with the
//! file, line and key, as the `toml` crate reports them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use stampede_fleet::check::{Level, Rule};
use stampede_fleet::file::parse_duration;
use stampede_fleet::fix::NightHours;

use super::{CheckArgs, Stop};

/// The file read when `--config` names none.
const DEFAULT_FILE: &str = "stampede.toml";

/// `stampede.toml` as written.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    max_starts_per_minute: Option<u32>,
    max_concurrent: Option<f64>,
    fail_on: Option<String>,
    zone: Option<String>,
    hours: Option<u32>,
    night: Option<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    durations: BTreeMap<String, String>,
    #[serde(default)]
    ignore: Vec<Ignore>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Ignore {
    rule: String,
    /// Globs of paths; every path when none.
    #[serde(default)]
    paths: Vec<String>,
}

/// The settings the check runs with.
pub struct Settings {
    pub max_starts_per_minute: Option<u32>,
    pub max_concurrent: Option<f64>,
    pub fail_on: Level,
    pub zone: Option<String>,
    pub hours: u32,
    pub night: Option<NightHours>,
    pub durations: BTreeMap<String, u64>,
    pub exclude: GlobSet,
    ignores: Vec<(Rule, Option<GlobSet>)>,
}

impl Settings {
    pub fn load(args: &CheckArgs) -> Result<Self, Stop> {
        let (file, name) = read_file(args.config.as_deref(), &args.paths)?;
        let at = |key: &str| format!("{name}: {key}");
        let fail_on = match &file.fail_on {
            Some(text) => Some(level(text).map_err(|e| format!("{}: {e}", at("fail-on")))?),
            None => None,
        };
        let night = match &file.night {
            Some(text) => {
                Some(NightHours::parse(text).map_err(|e| format!("{}: {e}", at("night")))?)
            }
            None => None,
        };
        if file.max_starts_per_minute == Some(0) {
            return Err(format!("{}: 0 is not 1 or more", at("max-starts-per-minute")).into());
        }
        if let Some(max) = file.max_concurrent {
            positive(&max.to_string()).map_err(|e| format!("{}: {e}", at("max-concurrent")))?;
        }
        let mut durations = BTreeMap::new();
        for (id, text) in &file.durations {
            let seconds = parse_duration(text)
                .map_err(|e| format!("{}: {e}", at(&format!("durations.{id}"))))?;
            durations.insert(id.clone(), seconds);
        }
        let mut ignores = Vec::new();
        for (index, ignore) in file.ignore.iter().enumerate() {
            let key = at(&format!("ignore[{index}]"));
            let rule = Rule::from_slug(&ignore.rule).ok_or_else(|| {
                format!(
                    "{key}: rule \"{}\" is not one of {}",
                    ignore.rule,
                    rule_names()
                )
            })?;
            let paths = (!ignore.paths.is_empty())
                .then(|| globs(&ignore.paths).map_err(|e| format!("{key}: {e}")))
                .transpose()?;
            ignores.push((rule, paths));
        }
        let zone_key = if args.zone.is_some() {
            "--zone".to_string()
        } else {
            at("zone")
        };
        let zone = args.zone.clone().or(file.zone);
        if let Some(zone) = &zone {
            stampede_fleet::zoned::time_zone(zone, "zone")
                .map_err(|refusal| format!("{zone_key}: {}", refusal.reason))?;
        }
        let hours = args.hours.or(file.hours).unwrap_or(168);
        if !(1..=744).contains(&hours) {
            return Err(format!("{}: {hours} is not from 1 to 744", at("hours")).into());
        }
        Ok(Self {
            max_starts_per_minute: args.max_starts_per_minute.or(file.max_starts_per_minute),
            max_concurrent: args.max_concurrent.or(file.max_concurrent),
            fail_on: args.fail_on.or(fail_on).unwrap_or(Level::Error),
            zone,
            hours,
            night: args.night.or(night),
            durations,
            exclude: globs(&file.exclude).map_err(|e| format!("{}: {e}", at("exclude")))?,
            ignores,
        })
    }

    /// Whether `stampede.toml` leaves `rule` out for `path`.
    pub fn ignores(&self, rule: Rule, path: &str) -> bool {
        self.ignores.iter().any(|(ignored, paths)| {
            *ignored == rule && paths.as_ref().is_none_or(|paths| paths.is_match(path))
        })
    }
}

/// The settings file and its name as messages give it: `--config`'s
/// file, else `stampede.toml` in the current folder, else in the one
/// folder `paths` names, else no settings.
fn read_file(given: Option<&Path>, paths: &[PathBuf]) -> Result<(File, String), Stop> {
    let in_folder = match paths {
        [folder] => folder.join(DEFAULT_FILE),
        _ => PathBuf::from(DEFAULT_FILE),
    };
    let path = match given {
        Some(path) => path.to_path_buf(),
        None if Path::new(DEFAULT_FILE).is_file() => PathBuf::from(DEFAULT_FILE),
        None if in_folder.is_file() => in_folder,
        None => return Ok((File::default(), DEFAULT_FILE.into())),
    };
    let path = path.as_path();
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("--config {name}: {e}"))?;
    let file = toml::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
    Ok((file, name))
}

fn globs(patterns: &[String]) -> Result<GlobSet, String> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        set.add(Glob::new(pattern).map_err(|e| format!("\"{pattern}\": {e}"))?);
    }
    set.build().map_err(|e| e.to_string())
}

fn rule_names() -> String {
    Rule::OPTIONS
        .iter()
        .map(|option| option.slug)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--fail-on`'s value.
pub fn level(text: &str) -> Result<Level, String> {
    Level::from_slug(text).ok_or_else(|| format!("\"{text}\" is not one of error, warning, note"))
}

/// `--max-concurrent`'s value: a number above 0.
pub fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("\"{text}\" is not a number above 0")),
    }
}
