//! A new spec written over an old one inside a source's string (Groovy,
//! Java, Kotlin), an XML element or as a YAML scalar.

use super::retext;

/// A spec inside a string of a Jenkinsfile, a Java or a Kotlin source
/// (`source` is the text between the quotes, escapes as written), its
/// blanks kept. A spec that would need escaping there (a quote, `\`, `$`
/// or a line break) is refused, as no spec of theirs holds one.
pub(super) fn source_string(source: &str, spec: &str) -> Result<String, String> {
    if let Some(c) = spec.chars().find(|c| "'\"\\$\n\r".contains(*c)) {
        return Err(format!(
            "a spec in a source's string is not written with {c:?} in it"
        ));
    }
    Ok(retext(source, spec))
}

/// An APScheduler call's trigger fields (`source`: from the first field
/// written to the last, `hour=3, minute=0`) holding new `spec`'s: each
/// field whose value changes is replaced where it stands, quoted as it
/// was, and a field it did not give is added after them. A
/// `from_crontab` string (`spec` `crontab …`) is written as a source's
/// string is.
pub(super) fn python_call(source: &str, spec: &str) -> Result<String, String> {
    if let Some(fields) = spec.trim().strip_prefix("crontab ") {
        return source_string(source, fields);
    }
    let new = crate::apscheduler::keywords(spec.trim().strip_prefix("cron").unwrap_or(spec))?;
    let mut out = source.to_string();
    for (key, value) in new {
        if value.contains(['\'', '"', '\\', '\n', '\r']) {
            return Err(format!(
                "a value in a call is not written with quotes in it: {value}"
            ));
        }
        let bare = value.bytes().all(|b| b.is_ascii_digit()) && !value.is_empty();
        match keyword_value(&out, key) {
            Some(range) => {
                let old = &out[range.clone()];
                let written = match old.chars().next() {
                    Some(quote @ ('\'' | '"')) => {
                        if &old[1..old.len() - 1] == value {
                            continue;
                        }
                        format!("{quote}{value}{quote}")
                    }
                    _ if old == value => continue,
                    _ if bare => value.to_string(),
                    _ => format!("'{value}'"),
                };
                out.replace_range(range, &written);
            }
            None if bare => out.push_str(&format!(", {key}={value}")),
            None => out.push_str(&format!(", {key}='{value}'")),
        }
    }
    Ok(out)
}

/// Where the value of keyword `key` stands in `arguments` (`name=value`
/// pairs split at commas outside quotes), blanks around it left out.
fn keyword_value(arguments: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    let mut quote = None;
    for (at, c) in arguments.char_indices().chain([(arguments.len(), ',')]) {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                let part = &arguments[start..at];
                if let Some((name, value)) = part.split_once('=')
                    && name.trim() == key
                {
                    let value_start = start + name.len() + 1;
                    let lead = value.len() - value.trim_start().len();
                    return Some(value_start + lead..value_start + value.trim_end().len());
                }
                start = at + 1;
            }
            (None, _) => {}
        }
    }
    None
}

/// A spec line inside a `config.xml`'s `<spec>` (`source` is the line as
/// written), its blanks kept and `&`, `<` and `>` escaped.
pub(super) fn xml(source: &str, spec: &str) -> Result<String, String> {
    if spec.contains(['\n', '\r']) {
        return Err("a spec line holds no line break".into());
    }
    let escaped = spec
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Ok(retext(source, &escaped))
}

/// A YAML scalar (`source`, quotes included) holding `spec` instead, in
/// the same style: single-quoted, double-quoted, or plain unless the spec
/// needs quotes, in which case double-quoted.
pub(super) fn yaml(source: &str, spec: &str) -> Result<String, String> {
    Ok(match source.chars().next() {
        Some('\'') if !spec.contains(['\n', '\r']) => format!("'{}'", spec.replace('\'', "''")),
        Some('\'' | '"') => double_quoted(spec),
        _ if plain_holds(spec) => spec.to_string(),
        _ => double_quoted(spec),
    })
}

/// Whether a plain scalar reads as `spec` itself, in block and flow
/// collections alike: no indicator first, no `: `, ` #` or flow
/// indicator inside, no blanks at the ends, nothing but printable text.
fn plain_holds(spec: &str) -> bool {
    let Some(first) = spec.chars().next() else {
        return false;
    };
    !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && !spec.contains(": ")
        && !spec.contains(" #")
        && !spec.contains([',', '[', ']', '{', '}'])
        && !spec.ends_with([':', ' '])
        && !spec.starts_with(' ')
        && spec
            .chars()
            .all(|c| c == ' ' || !(c.is_control() || c.is_whitespace()))
}

/// `text` as a double-quoted YAML scalar, which escapes anything.
fn double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars_keep_their_style_unless_plain_cannot_hold_the_spec() {
        assert_eq!(yaml("0 2 * * *", "17 2 * * *").unwrap(), "17 2 * * *");
        assert_eq!(yaml("'0 2 * * *'", "it's").unwrap(), "'it''s'");
        assert_eq!(yaml("\"x\"", "a\"\\\t").unwrap(), "\"a\\\"\\\\\\u0009\"");
        assert_eq!(yaml("0 * * * *", "*/5 * * * *").unwrap(), "\"*/5 * * * *\"");
        assert_eq!(yaml("x", "@daily").unwrap(), "\"@daily\"");
        assert_eq!(yaml("x", "0,30 * * * *").unwrap(), "\"0,30 * * * *\"");
        assert_eq!(yaml("x", "a: b").unwrap(), "\"a: b\"");
        assert_eq!(yaml("x", "").unwrap(), "\"\"");
        assert_eq!(
            source_string(" 0 0 * * * ", "H H * * *").unwrap(),
            " H H * * * "
        );
        assert!(source_string("0 0 * * *", "H ${x} * * *").is_err());
    }
}
