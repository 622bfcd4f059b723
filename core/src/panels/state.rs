//! The shareable state of the app and its query-string codec.
//!
//! A URL holds the format version (`v=1`), the open panel (`p`), the seed
//! (`s`) and every parameter of that panel under its short key, plus how an
//! embed shows it (`embed`, `controls`, `fig`, `theme`). The Learn page
//! writes `p=learn` and its `step` instead of the panel, then the step's
//! panel's parameters, which start from the step's own. Decoding never
//! fails: unknown keys are
//! ignored, out-of-range values clamped, unreadable ones replaced by their
//! defaults, and each adjustment is returned as a [`Notice`] naming the key.
//!
//! A link has room for only so much: a pasted list longer than its field's
//! link budget travels in [`State::to_query`] cut to its first whole items,
//! while [`State::to_full_query`] writes it whole for the page's own
//! history, where no one copies it.

use super::{Figure, Panel, State, for_panel, learn};
use crate::field::{Field, Kind, Notice, PanelParams, shorten};

/// The query format this code writes and reads.
pub const VERSION: &str = "1";
/// The seed a fresh page starts from.
pub const DEFAULT_SEED: u64 = 1;

const VERSION_KEY: &str = "v";
const PANEL_KEY: &str = "p";
const SEED_KEY: &str = "s";
const EMBED_KEY: &str = "embed";
const CONTROLS_KEY: &str = "controls";
const FIGURE_KEY: &str = "fig";
const THEME_KEY: &str = "theme";
const STEP_KEY: &str = "step";
/// The `p` of the Learn page.
pub const LEARN_SLUG: &str = "learn";
/// Keys owned by the state itself; no panel field may use them.
pub const RESERVED_KEYS: [&str; 8] = [
    VERSION_KEY,
    PANEL_KEY,
    SEED_KEY,
    EMBED_KEY,
    CONTROLS_KEY,
    FIGURE_KEY,
    THEME_KEY,
    STEP_KEY,
];

/// The seed, as a field, for notices and labels.
pub const SEED_FIELD: Field = Field::number(SEED_KEY, "Seed", "", (0.0, u64::MAX as f64), 1.0);

/// The colour scheme of an embed; the full app follows the reader's own
/// choice instead, which is not part of a shared link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Theme {
    /// The reader's system setting.
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::Auto, Theme::Light, Theme::Dark];

    pub fn slug(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|theme| theme.slug() == slug)
    }
}

/// How the page is shown: the whole app, or one panel inside an iframe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct View {
    /// Only the panel's figures and key numbers, no header or navigation.
    pub embed: bool,
    /// In an embed, show the panel's controls too.
    pub controls: bool,
    /// In an embed, only this figure of the panel; every figure when `None`.
    pub figure: Option<&'static Figure>,
    /// In an embed, the colour scheme.
    pub theme: Theme,
}

impl View {
    /// Whether the page shows the figure named `slug`.
    pub fn shows(&self, slug: &str) -> bool {
        self.figure.is_none_or(|figure| figure.slug == slug)
    }
}

impl State {
    /// The default state, showing `panel`.
    pub fn new(panel: Panel) -> Self {
        State {
            panel,
            seed: DEFAULT_SEED,
            ..State::default()
        }
    }

    /// The parameters of `panel`.
    pub fn params(&self, panel: Panel) -> &dyn PanelParams {
        for_panel!(panel, P => P::params(self))
    }

    pub fn params_mut(&mut self, panel: Panel) -> &mut dyn PanelParams {
        for_panel!(panel, P => P::params_mut(self))
    }

    /// The fields of `panel`.
    ///
    /// This, [`Self::set_param`] and [`Self::settle`] reach each panel's
    /// parameters by their own type, not through [`Self::params_mut`]: a
    /// `dyn PanelParams` would bring every panel's `value`, `status` and
    /// `is_relevant` into the docs module, which reads URLs but never
    /// calls them.
    pub fn fields(panel: Panel) -> &'static [Field] {
        for_panel!(panel, P => P::FIELDS)
    }

    /// Sets the field of `panel` with `key` from text, as
    /// [`PanelParams::set`] does.
    pub fn set_param(&mut self, panel: Panel, key: &str, raw: &str) -> Option<Notice> {
        for_panel!(panel, P => P::params_mut(self).set(key, raw))
    }

    /// Repairs the combinations of `panel`'s values, as
    /// [`PanelParams::settle`] does.
    pub fn settle(&mut self, panel: Panel) -> Vec<Notice> {
        for_panel!(panel, P => P::params_mut(self).settle())
    }

    /// Sets one parameter of the open panel (or the seed) from text, as a
    /// control or a URL gives it, and repairs combinations it breaks.
    pub fn set(&mut self, key: &str, raw: &str) -> Vec<Notice> {
        if key == SEED_KEY {
            return self.set_seed(raw).into_iter().collect();
        }
        let mut notices: Vec<Notice> = self.set_param(self.panel, key, raw).into_iter().collect();
        notices.extend(self.settle(self.panel));
        notices
    }

    fn set_seed(&mut self, raw: &str) -> Option<Notice> {
        let text = raw.trim();
        let (seed, why) = match text.parse::<u64>() {
            Ok(seed) => (seed, None),
            Err(_) if is_integer(text) && text.starts_with('-') => (
                0,
                Some(format!("{} is below the minimum 0; using 0", shorten(text))),
            ),
            Err(_) if is_integer(text) => (
                u64::MAX,
                Some(format!(
                    "{} is above the maximum {}; using {}",
                    shorten(text),
                    u64::MAX,
                    u64::MAX
                )),
            ),
            Err(_) => (
                self.seed,
                Some(format!(
                    "\"{}\" is not a whole number; using {}",
                    shorten(text),
                    self.seed
                )),
            ),
        };
        self.seed = seed;
        why.map(|why| SEED_FIELD.notice(why))
    }

    /// Reads a query string (with or without its leading `?`). Never fails:
    /// what it cannot take as written it adjusts, and says so.
    pub fn from_query(query: &str) -> (State, Vec<Notice>) {
        Self::from_pairs(&pairs_of(query), Vec::new())
    }

    /// Reads the query of a page of the app: as [`Self::from_query`], and
    /// the Learn page's `p=learn&step=N`, whose step's parameters come
    /// first so that the URL's own win. Only the app and the command line
    /// read Learn links, so what else decodes queries (the workers, the
    /// docs module) links none of the steps.
    pub fn from_page_query(query: &str) -> (State, Vec<Notice>) {
        let mut pairs = pairs_of(query);
        let mut notices = Vec::new();
        let Some(number) = learn_step(&pairs, &mut notices) else {
            return Self::from_pairs(&pairs, notices);
        };
        let step = &learn::STEPS[number - 1];
        pairs.splice(0..0, pairs_of(step.query));
        pairs.push((PANEL_KEY.into(), step.panel.slug().into()));
        // The step's text is written for its own values of everything but
        // its controls: a link may move only those.
        let fields = State::new(step.panel).params(step.panel).fields();
        let fixed = |key: &str| {
            fields.iter().any(|field| field.key == key) && !step.controls.contains(&key)
        };
        let own: Vec<_> = pairs
            .iter()
            .filter(|(key, _)| !fixed(key))
            .cloned()
            .collect();
        let (mut state, mut notices) = Self::from_pairs(&pairs, notices);
        let (kept, _) = Self::from_pairs(&[pairs_of(step.query), own].concat(), Vec::new());
        if kept != state {
            let params = kept.params(step.panel);
            for field in fields {
                let value = params.value(field.key);
                if value != state.params(step.panel).value(field.key) {
                    notices.push(Notice {
                        key: field.key,
                        label: field.label,
                        message: format!(
                            "step {number} keeps it at {}; open the full panel to change it",
                            value.unwrap_or_default()
                        ),
                    });
                }
            }
            state = kept;
        }
        state.learn_step = Some(number);
        (state, notices)
    }

    fn from_pairs(pairs: &[(String, String)], mut notices: Vec<Notice>) -> (State, Vec<Notice>) {
        let last = |key: &str| last_value(pairs, key);

        if let Some(version) = last(VERSION_KEY).filter(|v| *v != VERSION) {
            notices.push(Notice {
                key: VERSION_KEY,
                label: "Version",
                message: format!(
                    "version \"{}\" is not known; read as version {VERSION}",
                    shorten(version)
                ),
            });
        }
        let panel = match last(PANEL_KEY) {
            None => Panel::default(),
            Some(slug) => Panel::from_slug(slug).unwrap_or_else(|| {
                notices.push(Notice {
                    key: PANEL_KEY,
                    label: "Panel",
                    message: format!(
                        "\"{}\" is not a panel; showing {}",
                        shorten(slug),
                        Panel::default().slug()
                    ),
                });
                Panel::default()
            }),
        };
        let mut state = State::new(panel);
        state.view = read_view(&last, panel, &mut notices);
        if let Some(raw) = last(SEED_KEY) {
            notices.extend(state.set_seed(raw));
        }
        for field in Self::fields(panel) {
            if let Some(raw) = last(field.key) {
                notices.extend(state.set_param(panel, field.key, raw));
            }
        }
        notices.extend(for_panel!(panel, P => {
            P::read_old_keys(P::params_mut(&mut state), &last)
        }));
        notices.extend(state.settle(panel));
        (state, notices)
    }

    /// The query string (without `?`) of a link to this state: every value,
    /// a long list cut to the first items that fit a link.
    pub fn to_query(&self) -> String {
        self.query(self.panel, self.learn_step, false)
    }

    /// The query string (without `?`) that restores this state exactly,
    /// lists whole, however long.
    pub fn to_full_query(&self) -> String {
        self.query(self.panel, self.learn_step, true)
    }

    /// The query string (without `?`) of a link from this state to `panel`:
    /// its parameters as this state holds them, with the seed and the view
    /// kept (but for a figure of another panel); from a Learn step, the
    /// panel's defaults. Nothing of the state is copied, so
    /// a page can keep a link to every panel current.
    pub fn to_query_on(&self, panel: Panel) -> String {
        if self.learn_step.is_some() {
            return State {
                seed: self.seed,
                ..State::new(panel)
            }
            .to_query();
        }
        self.query(panel, None, false)
    }

    fn query(&self, panel: Panel, learn_step: Option<usize>, whole_lists: bool) -> String {
        let mut pairs: Vec<(&str, String)> = vec![(VERSION_KEY, VERSION.to_string())];
        match learn_step {
            Some(step) => pairs.extend([
                (PANEL_KEY, LEARN_SLUG.to_string()),
                (STEP_KEY, step.to_string()),
            ]),
            None => pairs.push((PANEL_KEY, panel.slug().to_string())),
        }
        pairs.push((SEED_KEY, self.seed.to_string()));
        let params = self.params(panel);
        for field in params.fields() {
            pairs.extend(params.value(field.key).map(|value| {
                let value = if whole_lists {
                    value
                } else {
                    field.in_link(&value).to_string()
                };
                (field.key, value)
            }));
        }
        if self.view.embed {
            pairs.push((EMBED_KEY, "1".into()));
        }
        if self.view.controls {
            pairs.push((CONTROLS_KEY, "1".into()));
        }
        // A figure is one panel's: a link to another shows all of its own.
        if let Some(figure) = self.view.figure.filter(|_| panel == self.panel) {
            pairs.push((FIGURE_KEY, figure.slug.into()));
        }
        if self.view.theme != Theme::Auto {
            pairs.push((THEME_KEY, self.view.theme.slug().into()));
        }
        let pairs: Vec<String> = pairs
            .iter()
            .map(|(key, value)| format!("{key}={}", escape(value)))
            .collect();
        pairs.join("&")
    }

    /// Whether every value lies in its field's range or choices.
    pub fn is_valid(&self) -> bool {
        Panel::ALL.into_iter().all(|panel| {
            let params = self.params(panel);
            params.fields().iter().all(|field| {
                let value = params.value(field.key).unwrap_or_default();
                match field.kind {
                    Kind::Number { min, max, .. } => {
                        crate::field::parse_finite(&value).is_some_and(|x| (min..=max).contains(&x))
                    }
                    Kind::Choice(options) => options.iter().any(|o| o.slug == value),
                    Kind::Choices { options, max } => {
                        let slugs: Vec<&str> = value.split(',').filter(|s| !s.is_empty()).collect();
                        slugs.len() <= max
                            && slugs.iter().enumerate().all(|(i, slug)| {
                                options.iter().any(|o| o.slug == *slug)
                                    && !slugs[..i].contains(slug)
                            })
                    }
                    Kind::Text { max_len, .. } => value.chars().count() <= max_len,
                    Kind::List { max_items, .. } => {
                        value.split(',').filter(|s| !s.is_empty()).count() <= max_items
                    }
                }
            })
        })
    }
}

/// Percent-encodes what a query value may not hold as it is. Characters a
/// query allows (RFC 3986), such as `@`, `,` and `:`, stay readable.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => out.push(byte as char),
            b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'\'' | b'(' | b')' | b'*' | b',' | b';'
            | b':' | b'@' | b'/' | b'?' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads how the page is shown: the embed flags, the one figure of `panel`
/// an embed names, and its colour scheme.
fn read_view<'a>(
    last: &dyn Fn(&str) -> Option<&'a str>,
    panel: Panel,
    notices: &mut Vec<Notice>,
) -> View {
    View {
        embed: flag(last(EMBED_KEY), EMBED_KEY, "Embed", notices),
        controls: flag(last(CONTROLS_KEY), CONTROLS_KEY, "Controls", notices),
        figure: last(FIGURE_KEY).and_then(|slug| {
            let figure = panel.figure(slug);
            if figure.is_none() {
                notices.push(Notice {
                    key: FIGURE_KEY,
                    label: "Figure",
                    message: format!(
                        "\"{}\" is not a figure of {}; showing all of them",
                        shorten(slug),
                        panel.title()
                    ),
                });
            }
            figure
        }),
        theme: last(THEME_KEY).map_or(Theme::Auto, |slug| {
            Theme::from_slug(slug).unwrap_or_else(|| {
                notices.push(Notice {
                    key: THEME_KEY,
                    label: "Theme",
                    message: format!(
                        "\"{}\" is not auto, light or dark; using auto",
                        shorten(slug)
                    ),
                });
                Theme::Auto
            })
        }),
    }
}

/// The value of `key`: the last one given, as most servers read a
/// repeated key.
fn last_value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn pairs_of(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.trim_start_matches('?').as_bytes())
        .into_owned()
        .collect()
}

/// The Learn page's step, when `p` names it: `step` read as a whole number
/// from 1 to the number of steps, the first when absent, and the nearest
/// when out of range.
impl learn::Step {
    /// The state showing this step from `seed`: the panel at the step's
    /// parameters over the defaults.
    pub fn state(&self, seed: u64) -> State {
        State::from_page_query(&format!("v=1&p=learn&step={}&s={seed}", self.number())).0
    }
}

fn learn_step(pairs: &[(String, String)], notices: &mut Vec<Notice>) -> Option<usize> {
    let last = |key: &str| last_value(pairs, key);
    if last(PANEL_KEY) != Some(LEARN_SLUG) {
        return None;
    }
    let steps = learn::STEPS.len();
    let Some(raw) = last(STEP_KEY) else {
        return Some(1);
    };
    let text = raw.trim();
    let (step, why) = match text.parse::<usize>() {
        Ok(step) if (1..=steps).contains(&step) => (step, None),
        Ok(0) => (
            1,
            Some(format!("{text} is below the first step, 1; showing 1")),
        ),
        Ok(_) => (
            steps,
            Some(format!(
                "{} is past the last step, {steps}; showing {steps}",
                shorten(text)
            )),
        ),
        Err(_) => (
            1,
            Some(format!(
                "\"{}\" is not a step number; showing 1",
                shorten(text)
            )),
        ),
    };
    notices.extend(why.map(|message| Notice {
        key: STEP_KEY,
        label: "Step",
        message,
    }));
    Some(step)
}

/// Reads a view flag: "1" or "true" is on, absent, "0" or "false" is off.
fn flag(
    raw: Option<&str>,
    key: &'static str,
    label: &'static str,
    notices: &mut Vec<Notice>,
) -> bool {
    match raw {
        None | Some("0" | "false" | "") => false,
        Some("1" | "true") => true,
        Some(other) => {
            notices.push(Notice {
                key,
                label,
                message: format!("\"{}\" is not 1 or 0; using 0", shorten(other)),
            });
            false
        }
    }
}
