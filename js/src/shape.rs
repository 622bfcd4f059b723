//! Compares hand-written TypeScript interfaces with the JSON a module
//! really returns, key by key. Shared by the tests of both JS modules.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The member names of each `export interface` in `types`, by interface.
pub fn interfaces(types: &'static str) -> BTreeMap<&'static str, BTreeSet<&'static str>> {
    let mut found = BTreeMap::new();
    let mut current = None;
    for line in types.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("export interface ") {
            let name = name.trim_end_matches('{').trim();
            found.insert(name, BTreeSet::new());
            current = Some(name);
        } else if line == "}" {
            current = None;
        } else if let Some(name) = current {
            let comment_or_union = ["/", "*", "|"].iter().any(|p| line.starts_with(p));
            if let (false, Some((member, _))) = (comment_or_union, line.split_once(':')) {
                found
                    .entry(name)
                    .or_default()
                    .insert(member.trim_end_matches('?'));
            }
        }
    }
    found
}

/// An interface nested in another: (outer, inner, where the inner object sits).
pub type Nested = (&'static str, &'static str, fn(&Value) -> &Value);

/// Compares the keys of `value` with interface `name` of `types`, then each
/// nested object whose interface `nested` names.
pub fn assert_shape(types: &'static str, name: &str, value: &Value, nested: &[Nested]) {
    let members = &interfaces(types)[name];
    let keys: BTreeSet<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("{name} is not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(&keys, members, "the keys of {name}");
    for (owner, inner, pick) in nested {
        if *owner == name {
            assert_shape(types, inner, pick(value), nested);
        }
    }
}
