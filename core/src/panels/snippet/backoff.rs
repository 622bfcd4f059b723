//! Backoff snippets: the panel's retry strategy as five libraries write it.
//!
//! Each library counts differently, so each snippet converts: tenacity
//! stops after attempts (k + 1, the first call included), botocore's
//! `total_max_attempts` counts the same way, Sidekiq's `retry:` and
//! Celery's `max_retries` count retries (k), Active Job's `attempts:`
//! counts executions (k + 1). Where a library has the strategy built in the
//! snippet uses it; elsewhere it computes the panel's wait before retry n
//! (min(c, b·f^(n−1)) for exponential) in a few lines of the library's
//! language, and the note says what the library does on top of it.
//!
//! Each library's behaviour is read from its source: tenacity 9.2.1
//! `tenacity/wait.py`, botocore's `args.py` (whose client `max_attempts`
//! counts retries), Sidekiq 8.1.7 `lib/sidekiq/job_retry.rb` (a
//! `sidekiq_retry_in` value is cut to whole seconds, and its own jitter is
//! added), Active Job 8.1 `exceptions.rb` (a `wait:` proc gets no jitter)
//! and Celery 5.7.0 `celery/app/autoretry.py`.

use crate::backoff::{
    ACTIVE_JOB_JITTER, AWS_MAX_BACKOFF, AWS_THROTTLING_SCALE, AWS_TRANSIENT_SCALE, BackoffParams,
    CELERY_MAX_COUNTDOWN, DECORRELATED_SPREAD, RetryStrategy,
};

use super::Snippet;

/// The snippets for the Backoff panel's main strategy: tenacity, botocore,
/// Sidekiq, Active Job and Celery, in that order.
pub fn snippets(params: &BackoffParams) -> Vec<Snippet> {
    vec![
        tenacity(params),
        botocore(params),
        sidekiq(params),
        active_job(params),
        celery(params),
    ]
}

/// The form of a strategy's wait, which decides how each library writes
/// it. Every other match in this module is on the form, so a new strategy
/// needs one arm here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Constant,
    Linear,
    Exponential,
    FullJitter,
    EqualJitter,
    Decorrelated,
    Sidekiq,
    Celery,
    ActiveJob,
    Aws,
}

fn form(strategy: RetryStrategy) -> Form {
    match strategy {
        RetryStrategy::Constant => Form::Constant,
        RetryStrategy::Linear => Form::Linear,
        RetryStrategy::Exponential => Form::Exponential,
        // A circuit breaker waits with full jitter between the calls it lets
        // through; none of these libraries has a breaker, which goes around
        // the call.
        RetryStrategy::FullJitter | RetryStrategy::Breaker => Form::FullJitter,
        RetryStrategy::EqualJitter => Form::EqualJitter,
        RetryStrategy::Decorrelated => Form::Decorrelated,
        RetryStrategy::Sidekiq => Form::Sidekiq,
        RetryStrategy::Celery => Form::Celery,
        RetryStrategy::ActiveJob => Form::ActiveJob,
        // The retry quota is botocore standard mode's own, on by default;
        // the other libraries have none.
        RetryStrategy::Aws | RetryStrategy::AwsQuota => Form::Aws,
    }
}

/// The two languages the libraries are written in.
#[derive(Clone, Copy)]
enum Language {
    Python,
    Ruby,
}

impl Language {
    fn min(self, a: &str, b: &str) -> String {
        match self {
            Language::Python => format!("min({a}, {b})"),
            Language::Ruby => format!("[{a}, {b}].min"),
        }
    }

    /// A uniform draw in [0, 1).
    fn random(self) -> &'static str {
        match self {
            Language::Python => "random.random()",
            Language::Ruby => "rand",
        }
    }

    /// A whole number uniform in [0, `limit`).
    fn below(self, limit: &str) -> String {
        match self {
            Language::Python => format!("random.randrange({limit})"),
            Language::Ruby => format!("rand({limit})"),
        }
    }
}

/// The wait before retry `n` (from 1) as statements that end by setting
/// `seconds`, and what they leave out of the panel's strategy.
struct Formula {
    lines: Vec<String>,
    /// Whether the lines read `n`; a wait drawn from the previous one does not.
    reads_n: bool,
    differs: Option<String>,
}

/// A number as the panel holds it: Rust prints the shortest decimal that
/// reads back as the same f64, as Python and Ruby read it.
fn number(x: f64) -> String {
    format!("{x}")
}

/// e(n) = min(c, b·f^(n−1)) in `language`.
fn exponential(params: &BackoffParams, language: Language) -> String {
    let (b, f, c) = (params.base, params.factor, params.cap);
    language.min(
        &number(c),
        &format!("{} * {} ** (n - 1)", number(b), number(f)),
    )
}

/// The panel's wait before retry `n` in `language`. `previous` is an
/// expression for the wait before the previous retry (b before the first),
/// where the library keeps it; only decorrelated jitter reads it.
fn formula(params: &BackoffParams, language: Language, previous: Option<&str>) -> Formula {
    let (b, c) = (number(params.base), number(params.cap));
    let u = language.random();
    let exact = |lines: Vec<String>| Formula {
        lines,
        reads_n: true,
        differs: None,
    };
    match form(params.strategy) {
        Form::Constant => exact(vec![format!("seconds = {b}")]),
        Form::Linear => exact(vec![format!(
            "seconds = {}",
            language.min(&c, &format!("{b} * n"))
        )]),
        Form::Exponential => exact(vec![format!("seconds = {}", exponential(params, language))]),
        Form::FullJitter => exact(vec![format!(
            "seconds = {u} * {}",
            exponential(params, language)
        )]),
        Form::EqualJitter => exact(vec![
            format!("half = {} / 2.0", exponential(params, language)),
            format!("seconds = half + {u} * half"),
        ]),
        Form::Decorrelated => {
            let spread = number(DECORRELATED_SPREAD);
            match previous {
                Some(previous) => Formula {
                    lines: vec![
                        format!("previous = {previous}"),
                        format!(
                            "seconds = {}",
                            language.min(&c, &format!("{b} + {u} * ({spread} * previous - {b})"))
                        ),
                    ],
                    reads_n: false,
                    differs: None,
                },
                // Without the previous wait, draw from the whole range
                // decorrelated jitter can reach by retry n.
                None => Formula {
                    reads_n: true,
                    lines: vec![format!(
                        "seconds = {b} + {u} * ({} - {b})",
                        language.min(&c, &format!("{b} * {spread} ** n"))
                    )],
                    differs: Some(format!(
                        "It cannot see the previous wait, so it draws each wait afresh between b \
                         and min(c, b·{spread}ⁿ), the range decorrelated jitter reaches by retry n, \
                         so below the cap it waits longer on average."
                    )),
                },
            }
        }
        Form::Sidekiq => exact(vec![format!(
            "seconds = (n - 1) ** 4 + 15 + {}",
            language.below("10 * n")
        )]),
        Form::Celery => exact(vec![format!(
            "seconds = {}",
            language.below(&format!(
                "{} + 1",
                language.min(&CELERY_MAX_COUNTDOWN.to_string(), "2 ** (n - 1)")
            ))
        )]),
        Form::ActiveJob => exact(vec![format!(
            "seconds = n ** 4 + {u} * n ** 4 * {} + 2",
            number(ACTIVE_JOB_JITTER)
        )]),
        Form::Aws => exact(vec![format!(
            "seconds = {u} * {}",
            language.min(
                &number(AWS_MAX_BACKOFF),
                &format!("{} * 2 ** (n - 1)", number(AWS_TRANSIENT_SCALE))
            )
        )]),
    }
}

/// `lines` indented by `indent` spaces, one a line.
fn indented(lines: &[String], indent: usize) -> String {
    let pad = " ".repeat(indent);
    lines.iter().map(|line| format!("{pad}{line}\n")).collect()
}

/// "What it does." followed by what differs, if anything.
fn note(does: String, differs: Option<String>) -> String {
    match differs {
        Some(differs) => format!("{does} {differs}"),
        None => does,
    }
}

/// Python tenacity 9.2.1: a built-in wait where one has the strategy's
/// form, else a wait function of its retry state.
fn tenacity(params: &BackoffParams) -> Snippet {
    let attempts = u64::from(params.retries) + 1;
    let (b, f, c) = (
        number(params.base),
        number(params.factor),
        number(params.cap),
    );
    let exponential =
        |multiplier: &str, max: &str| format!("multiplier={multiplier}, exp_base={f}, max={max}");
    let built_in = match form(params.strategy) {
        Form::Constant => Some(("wait_fixed", format!("wait_fixed({b})"))),
        Form::Linear => Some((
            "wait_incrementing",
            format!("wait_incrementing(start={b}, increment={b}, max={c})"),
        )),
        Form::Exponential => Some((
            "wait_exponential",
            format!("wait_exponential({})", exponential(&b, &c)),
        )),
        Form::FullJitter => Some((
            "wait_random_exponential",
            format!("wait_random_exponential({})", exponential(&b, &c)),
        )),
        // e(n)/2 + u·e(n)/2 is a fixed half plus a random half.
        Form::EqualJitter => {
            let half = exponential(&number(params.base / 2.0), &number(params.cap / 2.0));
            Some((
                "wait_exponential, wait_random_exponential",
                format!("wait_exponential({half}) + wait_random_exponential({half})"),
            ))
        }
        Form::Aws => Some((
            "wait_random_exponential",
            format!(
                "wait_random_exponential(multiplier={}, max={})",
                number(AWS_TRANSIENT_SCALE),
                number(AWS_MAX_BACKOFF)
            ),
        )),
        Form::Decorrelated | Form::Sidekiq | Form::Celery | Form::ActiveJob => None,
    };
    let (code, differs) = match built_in {
        Some((imports, wait)) => (
            format!(
                "from tenacity import retry, stop_after_attempt, {imports}\n\n\
                 @retry(stop=stop_after_attempt({attempts}), wait={wait})\n\
                 def call():\n    ...\n"
            ),
            None,
        ),
        None => {
            // upcoming_sleep holds the last wait, 0 before the first.
            let previous = format!("retry_state.upcoming_sleep or {b}");
            let formula = formula(params, Language::Python, Some(&previous));
            let mut lines = Vec::new();
            if formula.reads_n {
                lines.push("# Retry n follows the n-th failed attempt.".to_string());
                lines.push("n = retry_state.attempt_number".to_string());
            }
            lines.extend(formula.lines);
            lines.push("return seconds".to_string());
            (
                format!(
                    "import random\n\nfrom tenacity import retry, stop_after_attempt\n\n\
                     def wait_before_retry(retry_state):\n\
                     {}\n\
                     @retry(stop=stop_after_attempt({attempts}), wait=wait_before_retry)\n\
                     def call():\n    ...\n",
                    indented(&lines, 4)
                ),
                formula.differs,
            )
        }
    };
    let mut does = format!(
        "Calls up to {attempts} times (stop_after_attempt counts the first call), waiting \
         the panel's wait before each retry."
    );
    if form(params.strategy) == Form::Aws {
        does.push_str(&format!(
            " The scale is botocore's for errors other than throttling; its throttling scale \
             is {} s.",
            number(AWS_THROTTLING_SCALE)
        ));
    }
    Snippet::new(
        "tenacity",
        "Python tenacity",
        "python",
        code,
        note(does, differs),
    )
}

/// botocore's standard retry mode: only the number of attempts is set.
fn botocore(params: &BackoffParams) -> Snippet {
    let attempts = u64::from(params.retries) + 1;
    let code = format!(
        "import boto3\nfrom botocore.config import Config\n\n\
         config = Config(retries={{\"mode\": \"standard\", \"total_max_attempts\": {attempts}}})\n\
         client = boto3.client(\"s3\", config=config)\n"
    );
    let does = format!(
        "Makes up to {attempts} attempts, the first included (the older \"max_attempts\" key \
         counts retries only)."
    );
    let waits = format!(
        "u·min(s·2^(n−1), {}) s after attempt n, where s is {} for throttling errors and, \
         from botocore 1.44, {} for the others",
        number(AWS_MAX_BACKOFF),
        number(AWS_THROTTLING_SCALE),
        number(AWS_TRANSIENT_SCALE)
    );
    let differs = match form(params.strategy) {
        Form::Aws => format!("Its waits are the panel's: {waits}."),
        _ => format!(
            "botocore takes no custom wait formula: whatever the strategy, it waits {waits}."
        ),
    };
    Snippet::new(
        "botocore",
        "AWS SDK for Python (botocore)",
        "python",
        code,
        format!("{does} {differs}"),
    )
}

/// Sidekiq 8.1: `retry:` counts retries, and `sidekiq_retry_in` gets the
/// retry count from 0.
fn sidekiq(params: &BackoffParams) -> Snippet {
    let retries = params.retries;
    let header =
        format!("class HardJob\n  include Sidekiq::Job\n  sidekiq_options retry: {retries}\n");
    let does = format!("Retries up to {retries} times after the first run.");
    if form(params.strategy) == Form::Sidekiq {
        return Snippet::new(
            "sidekiq",
            "Sidekiq",
            "ruby",
            format!("{header}end\n"),
            format!(
                "{does} With no sidekiq_retry_in block Sidekiq waits count⁴ + 15 + rand(10·(count + 1)) s, the panel's preset."
            ),
        );
    }
    let formula = formula(params, Language::Ruby, None);
    let code = format!(
        "{header}\n  sidekiq_retry_in do |count, _exception|\n    \
         n = count + 1 # the retry about to be scheduled, from 1\n\
         {}    [seconds.round, 1].max\n  end\nend\n",
        indented(&formula.lines, 4)
    );
    let differs = "Sidekiq keeps whole seconds, at least 1 (a 0 would fall back to its own \
                   formula), and adds its own rand(10·(count + 1)) s to every wait.";
    Snippet::new(
        "sidekiq",
        "Sidekiq",
        "ruby",
        code,
        note(format!("{does} {differs}"), formula.differs),
    )
}

/// Active Job 8.1: `attempts:` counts executions, and a `wait:` proc gets
/// the executions so far (1 after the first failure).
fn active_job(params: &BackoffParams) -> Snippet {
    let attempts = u64::from(params.retries) + 1;
    let does = format!("Runs the job up to {attempts} times (attempts counts the first run).");
    if form(params.strategy) == Form::ActiveJob {
        let code = format!(
            "class HardJob < ApplicationJob\n  \
             retry_on Timeout::Error, wait: :polynomially_longer, attempts: {attempts}, jitter: {}\nend\n",
            number(ACTIVE_JOB_JITTER)
        );
        return Snippet::new(
            "activejob",
            "Active Job",
            "ruby",
            code,
            format!(
                "{does} It waits executions⁴ + 2 s plus up to {} of the first term, the \
                 panel's preset; jitter is set because the class default is 0.",
                number(ACTIVE_JOB_JITTER)
            ),
        );
    }
    let formula = formula(params, Language::Ruby, None);
    let code = format!(
        "class HardJob < ApplicationJob\n  \
         WAIT = ->(executions) do\n    \
         n = executions # retry n follows the n-th failed run\n\
         {}    seconds\n  end\n\n  \
         retry_on Timeout::Error, wait: WAIT, attempts: {attempts}\nend\n",
        indented(&formula.lines, 4)
    );
    Snippet::new(
        "activejob",
        "Active Job",
        "ruby",
        code,
        note(
            format!("{does} Active Job adds no jitter of its own to a proc's wait."),
            formula.differs,
        ),
    )
}

/// Celery 5.7: `max_retries` counts retries, and `self.request.retries` is
/// 0 on the first run.
fn celery(params: &BackoffParams) -> Snippet {
    let retries = params.retries;
    let does = format!("Retries up to {retries} times after the first run.");
    let (b, f, c) = (params.base, params.factor, params.cap);
    // Autoretry's countdown is min(max, factor·2^retries) in whole seconds:
    // the panel's e(n) when f is 2 and b and c are whole.
    let whole_doubling = f == 2.0 && b.fract() == 0.0 && c.fract() == 0.0;
    let autoretry = |options: String| {
        format!(
            "@app.task(autoretry_for=(ConnectionError,), {options}max_retries={retries})\n\
             def call():\n    ...\n"
        )
    };
    let backoff = |jitter: &str| {
        format!(
            "retry_backoff={}, retry_backoff_max={}, retry_jitter={jitter}, ",
            b as u64, c as u64
        )
    };
    let (code, detail) = match form(params.strategy) {
        Form::Constant => (
            autoretry(format!("default_retry_delay={}, ", number(b))),
            "It waits default_retry_delay before every retry.".to_string(),
        ),
        Form::Exponential if whole_doubling => (
            autoretry(backoff("False")),
            "Its countdown min(retry_backoff_max, retry_backoff·2^retries) is the panel's e(n)."
                .into(),
        ),
        Form::FullJitter if whole_doubling => (
            autoretry(backoff("True")),
            "It draws a whole number of seconds from 0 to e(n) inclusive \
             (randrange(countdown + 1)), not any time below e(n)."
                .into(),
        ),
        Form::Celery => (
            autoretry(format!(
                "retry_backoff=True, retry_backoff_max={CELERY_MAX_COUNTDOWN}, retry_jitter=True, "
            )),
            "Its countdown is min(600, 2^retries) s, then a whole number from 0 to it, the \
             panel's preset."
                .into(),
        ),
        _ => {
            let formula = formula(params, Language::Python, None);
            let code = format!(
                "import random\n\n\
                 @app.task(bind=True, max_retries={retries})\n\
                 def call(self):\n    try:\n        ...\n    \
                 except ConnectionError as exc:\n        \
                 # request.retries is 0 on the first run.\n        \
                 n = self.request.retries + 1\n\
                 {}        raise self.retry(exc=exc, countdown=seconds)\n",
                indented(&formula.lines, 8)
            );
            let detail = note(
                "Celery's retry_backoff only doubles whole seconds, so the task works the \
                 countdown out itself."
                    .into(),
                formula.differs,
            );
            (code, detail)
        }
    };
    Snippet::new(
        "celery",
        "Celery",
        "python",
        code,
        format!("{does} {detail}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// b, f, c and k that no library default shares.
    fn params(strategy: RetryStrategy) -> BackoffParams {
        BackoffParams {
            strategy,
            base: 0.25,
            factor: 3.0,
            cap: 45.0,
            retries: 7,
            ..Default::default()
        }
    }

    fn code(snippets: &[Snippet], key: &str) -> String {
        let snippet = snippets.iter().find(|snippet| snippet.key == key);
        snippet.unwrap_or_else(|| panic!("no {key}")).code.clone()
    }

    /// What each snippet's code must contain for `strategy` under
    /// [`params`], beside the counts.
    /// Text a snippet must contain, by the snippet's system.
    type Expected = &'static [(&'static str, &'static str)];

    const EXPECTED: &[(&[RetryStrategy], Expected)] = &[
        (
            &[RetryStrategy::Constant],
            &[
                ("tenacity", "wait_fixed(0.25)"),
                ("sidekiq", "seconds = 0.25"),
                ("activejob", "seconds = 0.25"),
                ("celery", "default_retry_delay=0.25, "),
            ],
        ),
        (
            &[RetryStrategy::Linear],
            &[
                (
                    "tenacity",
                    "wait_incrementing(start=0.25, increment=0.25, max=45)",
                ),
                ("sidekiq", "seconds = [45, 0.25 * n].min"),
                ("activejob", "seconds = [45, 0.25 * n].min"),
                ("celery", "seconds = min(45, 0.25 * n)"),
            ],
        ),
        (
            &[RetryStrategy::Exponential],
            &[
                (
                    "tenacity",
                    "wait_exponential(multiplier=0.25, exp_base=3, max=45)",
                ),
                ("sidekiq", "seconds = [45, 0.25 * 3 ** (n - 1)].min"),
                ("activejob", "seconds = [45, 0.25 * 3 ** (n - 1)].min"),
                ("celery", "seconds = min(45, 0.25 * 3 ** (n - 1))"),
            ],
        ),
        (
            &[RetryStrategy::FullJitter, RetryStrategy::Breaker],
            &[
                (
                    "tenacity",
                    "wait_random_exponential(multiplier=0.25, exp_base=3, max=45)",
                ),
                ("sidekiq", "seconds = rand * [45, 0.25 * 3 ** (n - 1)].min"),
                (
                    "activejob",
                    "seconds = rand * [45, 0.25 * 3 ** (n - 1)].min",
                ),
                (
                    "celery",
                    "seconds = random.random() * min(45, 0.25 * 3 ** (n - 1))",
                ),
            ],
        ),
        (
            &[RetryStrategy::EqualJitter],
            &[
                (
                    "tenacity",
                    "wait_exponential(multiplier=0.125, exp_base=3, max=22.5) + \
                 wait_random_exponential(multiplier=0.125, exp_base=3, max=22.5)",
                ),
                ("sidekiq", "half = [45, 0.25 * 3 ** (n - 1)].min / 2.0"),
                ("activejob", "seconds = half + rand * half"),
                ("celery", "half = min(45, 0.25 * 3 ** (n - 1)) / 2.0"),
            ],
        ),
        (
            &[RetryStrategy::Decorrelated],
            &[
                ("tenacity", "previous = retry_state.upcoming_sleep or 0.25"),
                (
                    "tenacity",
                    "seconds = min(45, 0.25 + random.random() * (3 * previous - 0.25))",
                ),
                (
                    "sidekiq",
                    "seconds = 0.25 + rand * ([45, 0.25 * 3 ** n].min - 0.25)",
                ),
                (
                    "activejob",
                    "seconds = 0.25 + rand * ([45, 0.25 * 3 ** n].min - 0.25)",
                ),
                (
                    "celery",
                    "seconds = 0.25 + random.random() * (min(45, 0.25 * 3 ** n) - 0.25)",
                ),
            ],
        ),
        (
            &[RetryStrategy::Sidekiq],
            &[
                (
                    "tenacity",
                    "seconds = (n - 1) ** 4 + 15 + random.randrange(10 * n)",
                ),
                ("activejob", "seconds = (n - 1) ** 4 + 15 + rand(10 * n)"),
                (
                    "celery",
                    "seconds = (n - 1) ** 4 + 15 + random.randrange(10 * n)",
                ),
            ],
        ),
        (
            &[RetryStrategy::Celery],
            &[
                (
                    "tenacity",
                    "seconds = random.randrange(min(600, 2 ** (n - 1)) + 1)",
                ),
                ("sidekiq", "seconds = rand([600, 2 ** (n - 1)].min + 1)"),
                ("activejob", "seconds = rand([600, 2 ** (n - 1)].min + 1)"),
                (
                    "celery",
                    "retry_backoff=True, retry_backoff_max=600, retry_jitter=True, ",
                ),
            ],
        ),
        (
            &[RetryStrategy::ActiveJob],
            &[
                (
                    "tenacity",
                    "seconds = n ** 4 + random.random() * n ** 4 * 0.15 + 2",
                ),
                ("sidekiq", "seconds = n ** 4 + rand * n ** 4 * 0.15 + 2"),
                (
                    "activejob",
                    "wait: :polynomially_longer, attempts: 8, jitter: 0.15",
                ),
                (
                    "celery",
                    "seconds = n ** 4 + random.random() * n ** 4 * 0.15 + 2",
                ),
            ],
        ),
        (
            &[RetryStrategy::Aws, RetryStrategy::AwsQuota],
            &[
                (
                    "tenacity",
                    "wait_random_exponential(multiplier=0.05, max=20)",
                ),
                ("sidekiq", "seconds = rand * [20, 0.05 * 2 ** (n - 1)].min"),
                (
                    "activejob",
                    "seconds = rand * [20, 0.05 * 2 ** (n - 1)].min",
                ),
                (
                    "celery",
                    "seconds = random.random() * min(20, 0.05 * 2 ** (n - 1))",
                ),
            ],
        ),
    ];

    fn expected(strategy: RetryStrategy) -> Expected {
        let found = EXPECTED
            .iter()
            .find(|(strategies, _)| strategies.contains(&strategy));
        found.map_or_else(
            || panic!("no expected text for {strategy:?}"),
            |(_, expected)| expected,
        )
    }

    #[test]
    fn every_snippet_counts_the_retries_in_its_librarys_terms() {
        for &strategy in RetryStrategy::ALL {
            let snippets = snippets(&params(strategy));
            let keys: Vec<_> = snippets.iter().map(|snippet| snippet.key).collect();
            assert_eq!(
                keys,
                ["tenacity", "botocore", "sidekiq", "activejob", "celery"]
            );
            for (key, count) in [
                ("tenacity", "stop_after_attempt(8)"),
                ("botocore", "\"total_max_attempts\": 8"),
                ("sidekiq", "sidekiq_options retry: 7\n"),
                ("activejob", "attempts: 8"),
                ("celery", "max_retries=7)"),
            ] {
                let code = code(&snippets, key);
                assert!(code.contains(count), "{strategy:?} {key}: {code}");
            }
        }
    }

    #[test]
    fn every_snippet_carries_the_strategys_numbers() {
        for &strategy in RetryStrategy::ALL {
            let snippets = snippets(&params(strategy));
            for (key, text) in expected(strategy) {
                let code = code(&snippets, key);
                assert!(code.contains(text), "{strategy:?} {key}: {code}");
            }
        }
    }

    #[test]
    fn the_presets_use_the_librarys_own_formula() {
        let sidekiq = snippets(&params(RetryStrategy::Sidekiq));
        assert!(!code(&sidekiq, "sidekiq").contains("sidekiq_retry_in"));
        let active_job = snippets(&params(RetryStrategy::ActiveJob));
        assert!(!code(&active_job, "activejob").contains("WAIT"));
        let celery = snippets(&params(RetryStrategy::Celery));
        assert!(code(&celery, "celery").contains("autoretry_for"));
    }

    #[test]
    fn celery_autoretries_whole_doublings_and_computes_anything_else() {
        let doubling = |strategy, base| BackoffParams {
            strategy,
            base,
            factor: 2.0,
            cap: 90.0,
            ..params(strategy)
        };
        let exponential = code(
            &snippets(&doubling(RetryStrategy::Exponential, 3.0)),
            "celery",
        );
        assert!(
            exponential.contains("retry_backoff=3, retry_backoff_max=90, retry_jitter=False, "),
            "{exponential}"
        );
        let full = code(
            &snippets(&doubling(RetryStrategy::FullJitter, 3.0)),
            "celery",
        );
        assert!(full.contains("retry_jitter=True, "), "{full}");
        let fractional = code(
            &snippets(&doubling(RetryStrategy::Exponential, 0.5)),
            "celery",
        );
        assert!(
            fractional.contains("countdown=seconds")
                && fractional.contains("min(90, 0.5 * 2 ** (n - 1))"),
            "{fractional}"
        );
    }

    #[test]
    fn notes_say_where_a_library_differs() {
        let note = |strategy, key| {
            let snippets = snippets(&params(strategy));
            let snippet = snippets.iter().find(|snippet| snippet.key == key);
            snippet.unwrap().note.clone()
        };
        assert!(
            note(RetryStrategy::Decorrelated, "activejob").contains("cannot see the previous wait")
        );
        assert!(!note(RetryStrategy::Decorrelated, "tenacity").contains("cannot see"));
        assert!(note(RetryStrategy::Exponential, "botocore").contains("no custom wait formula"));
        assert!(note(RetryStrategy::Aws, "botocore").contains("Its waits are the panel's"));
        assert!(note(RetryStrategy::Exponential, "sidekiq").contains("rand(10·(count + 1))"));
    }
}
