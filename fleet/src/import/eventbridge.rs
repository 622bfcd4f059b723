//! EventBridge Scheduler schedules from infrastructure code, read as
//! `eventbridge` fleet lines.
//!
//! Three dialects, YAML or JSON, told apart by what they hold:
//!
//! - CloudFormation: each resource of `Type: AWS::Scheduler::Schedule`
//!   under `Resources`;
//! - SAM: each event of `Type: ScheduleV2` of an `AWS::Serverless::Function`;
//! - Terraform JSON: each `resource.aws_scheduler_schedule.NAME`.
//!
//! A schedule gives one line on the line of its expression
//! (`ScheduleExpression`, `schedule_expression`): id its name (`Name`,
//! `name`, after `GroupName/` when given) or, without one, its logical id;
//! `Zone=` from its time zone, `Window=` from a `FLEXIBLE` window's
//! `MaximumWindowInMinutes`, `Start=` from its `StartDate`. A disabled
//! schedule is skipped, and so is a value CloudFormation or Terraform
//! computes at deploy time (`!Ref`, `Fn::Sub`, `${var.x}`), each with the
//! field and why. An `EndDate` gets a note; EventBridge rules
//! (`AWS::Events::Rule`, SAM's `Schedule` events) are skipped, named:
//! they have no flexible window, and are a different service.

use super::NativeTranslation;
use super::yaml::{self, PasteLines, YamlNode, YamlValue};
use crate::line::System;
use stampede_core::field::shorten;

/// The keys one dialect names a schedule's parts with.
pub(crate) struct Keys {
    pub expression: &'static str,
    zone: &'static str,
    pub window: &'static str,
    pub mode: &'static str,
    pub most: &'static str,
    start: &'static str,
    end: &'static str,
    state: &'static str,
    name: &'static str,
    group: &'static str,
}

/// CloudFormation's and SAM's keys.
const CLOUDFORMATION: Keys = Keys {
    expression: "ScheduleExpression",
    zone: "ScheduleExpressionTimezone",
    window: "FlexibleTimeWindow",
    mode: "Mode",
    most: "MaximumWindowInMinutes",
    start: "StartDate",
    end: "EndDate",
    state: "State",
    name: "Name",
    group: "GroupName",
};

/// Terraform's `aws_scheduler_schedule` arguments.
const TERRAFORM: Keys = Keys {
    expression: "schedule_expression",
    zone: "schedule_expression_timezone",
    window: "flexible_time_window",
    mode: "mode",
    most: "maximum_window_in_minutes",
    start: "start_date",
    end: "end_date",
    state: "state",
    name: "name",
    group: "group_name",
};

/// What marks a text as EventBridge Scheduler schedules.
const MARKS: [&str; 3] = [
    "AWS::Scheduler::Schedule",
    "ScheduleV2",
    "aws_scheduler_schedule",
];

/// Whether `text` holds EventBridge Scheduler schedules.
pub fn holds(text: &str) -> bool {
    MARKS.iter().any(|mark| text.contains(mark))
}

/// A schedule found in a document: its properties, the keys they are
/// named with, and the id it is read under when it gives no name.
pub(crate) struct Found<'a> {
    pub properties: &'a YamlNode,
    pub keys: &'static Keys,
    logical_id: String,
}

/// Calls `each` with every schedule of `text`, in order; a document that
/// does not read is skipped, named.
pub(crate) fn for_each_schedule(
    text: &str,
    out: &mut NativeTranslation,
    mut each: impl FnMut(&Found, &mut NativeTranslation),
) {
    let error = yaml::each_document(text, 1, |document| {
        let document = &document;
        if let Some(resources) = document.get("Resources").and_then(YamlNode::entries) {
            for (logical_id, resource) in resources {
                cloudformation(logical_id, resource, out, &mut each);
            }
        }
        for resource in blocks(document.get("resource")) {
            for schedule in blocks(resource.get("aws_scheduler_schedule")) {
                for (name, body) in schedule.entries().unwrap_or(&[]) {
                    for properties in blocks(Some(body)) {
                        let found = Found {
                            properties,
                            keys: &TERRAFORM,
                            logical_id: name.as_str().unwrap_or_default().to_string(),
                        };
                        each(&found, out);
                    }
                }
            }
        }
        // Past the cap, nothing more is read.
        !out.full
    });
    if let Some(error) = error {
        out.skip(error.line, "yaml", error.reason);
    }
}

/// A Terraform JSON block, written as an object or a list of them.
fn blocks(node: Option<&YamlNode>) -> Vec<&YamlNode> {
    match node.map(|node| &node.value) {
        Some(YamlValue::Sequence(items)) => items.iter().collect(),
        Some(YamlValue::Mapping(_)) => node.into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The schedules of one CloudFormation or SAM resource.
fn cloudformation(
    logical_id: &YamlNode,
    resource: &YamlNode,
    out: &mut NativeTranslation,
    each: &mut impl FnMut(&Found, &mut NativeTranslation),
) {
    let logical_id = logical_id.as_str().unwrap_or_default();
    let properties = resource.get("Properties");
    match resource.get("Type").and_then(YamlNode::as_str) {
        Some("AWS::Scheduler::Schedule") => {
            if let Some(properties) = properties {
                let logical_id = logical_id.to_string();
                let found = Found {
                    properties,
                    keys: &CLOUDFORMATION,
                    logical_id,
                };
                each(&found, out);
            }
        }
        Some("AWS::Events::Rule") => {
            if let Some(expression) = properties.and_then(|p| p.get("ScheduleExpression")) {
                out.skip(expression.line, "Type", format!("{logical_id} is an EventBridge rule, not a Scheduler schedule: rules have no flexible window; not read"));
            }
        }
        Some("AWS::Serverless::Function") => {
            let events = properties
                .and_then(|p| p.get("Events"))
                .and_then(YamlNode::entries);
            for (name, event) in events.unwrap_or(&[]) {
                let name = format!("{logical_id}/{}", name.as_str().unwrap_or_default());
                let (kind, properties) = (event.get("Type"), event.get("Properties"));
                match (kind.and_then(YamlNode::as_str), properties) {
                    (Some("ScheduleV2"), Some(properties)) => {
                        let found = Found {
                            properties,
                            keys: &CLOUDFORMATION,
                            logical_id: name,
                        };
                        each(&found, out);
                    }
                    (Some("Schedule"), _) => out.skip(
                        kind.map_or(event.line, |kind| kind.line),
                        "Type",
                        format!("{name} is a Schedule event, an EventBridge rule: it has no flexible window; ScheduleV2 is a Scheduler schedule"),
                    ),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Translates CloudFormation, SAM or Terraform JSON into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let paste = PasteLines::new(text);
    for_each_schedule(text, &mut out, |found, out| {
        read_schedule(found, &paste, out)
    });
    out
}

/// A literal value of `node`, or why it is none: a value computed at
/// deploy time, or a collection.
fn literal<'a>(paste: &PasteLines, node: &'a YamlNode, key: &str) -> Result<&'a str, String> {
    let computed = |what: &str| format!("{key} is {what}, known only at deploy time, so not read");
    match node.as_str() {
        None if matches!(node.value, YamlValue::Mapping(_)) => {
            Err(computed("a function such as Ref or Fn::Sub"))
        }
        None => Err(format!("{key} is {}, not a value", node.kind())),
        Some(_) if tagged(paste, node) => Err(computed("a function such as !Ref or !Sub")),
        Some(text) if text.contains("${") => Err(computed("an interpolation")),
        Some(text) => Ok(text),
    }
}

/// Whether a YAML tag such as `!Ref` stands before `node` on its line.
fn tagged(paste: &PasteLines, node: &YamlNode) -> bool {
    let Some(at) = paste.offset(node) else {
        return false;
    };
    let (before, from) = paste.text().split_at(at);
    let line = &before[before.rfind('\n').map_or(0, |end| end + 1)..];
    from.starts_with('!') || line.rsplit(':').next().is_some_and(|gap| gap.contains('!'))
}

fn read_schedule(found: &Found, paste: &PasteLines, out: &mut NativeTranslation) {
    let (properties, keys) = (found.properties, found.keys);
    let Some(expression_node) = properties.get(keys.expression) else {
        out.skip(
            properties.line,
            keys.expression,
            format!("is missing from {}", found.logical_id),
        );
        return;
    };
    let line = expression_node.line;
    let read = |key: &str| {
        properties
            .get(key)
            .map(|node| literal(paste, node, key))
            .transpose()
    };
    let schedule = (|| {
        let expression = literal(paste, expression_node, keys.expression)?;
        if read(keys.state)?.is_some_and(|state| state.eq_ignore_ascii_case("DISABLED")) {
            return Err(format!(
                "{} is DISABLED, so it invokes nothing",
                shorten(&found.logical_id)
            ));
        }
        let name = read(keys.name)?.unwrap_or(&found.logical_id);
        let id = match read(keys.group)? {
            Some(group) if group != "default" => format!("{group}/{name}"),
            _ => name.to_string(),
        };
        let mut options = Vec::new();
        if let Some(zone) = read(keys.zone)? {
            options.push(("Zone", zone.to_string()));
        }
        if let Some(minutes) = window_minutes(paste, properties.get(keys.window), keys)? {
            options.push(("Window", minutes));
        }
        if let Some(start) = read(keys.start)? {
            options.push(("Start", start.to_string()));
        }
        Ok((expression, id, options))
    })();
    match schedule {
        Ok((expression, id, options)) => {
            if properties.get(keys.end).is_some() {
                out.note(
                    line,
                    format!("{} is not read: starts are placed past it too", keys.end),
                );
            }
            let options: Vec<(&str, &str)> = options
                .iter()
                .map(|(key, value)| (*key, value.as_str()))
                .collect();
            out.push(line, System::EventBridge, &id, expression, &options);
        }
        Err(why) => out.skip(line, keys.expression, why),
    }
}

/// A flexible window's minutes, `None` when it is `OFF` or not given.
fn window_minutes(
    paste: &PasteLines,
    window: Option<&YamlNode>,
    keys: &Keys,
) -> Result<Option<String>, String> {
    let Some(window) = blocks(window).into_iter().next() else {
        return Ok(None);
    };
    let mode = match window.get(keys.mode) {
        Some(mode) => literal(paste, mode, keys.mode)?,
        None => return Err(format!("{} has no {}", keys.window, keys.mode)),
    };
    if mode.eq_ignore_ascii_case("OFF") {
        return Ok(None);
    }
    if !mode.eq_ignore_ascii_case("FLEXIBLE") {
        return Err(format!(
            "{} is \"{}\", not OFF or FLEXIBLE",
            keys.mode,
            shorten(mode)
        ));
    }
    match window.get(keys.most) {
        Some(most) => literal(paste, most, keys.most).map(|most| Some(most.to_string())),
        None => Err(format!("a FLEXIBLE window needs {}", keys.most)),
    }
}
