//! The verdict: the success floor before the objective, every strategy
//! ranked and named, the reason from the figures, the flip that the model
//! finds, and the AWS SDK's retry quota per client or shared.

use stampede_core::backoff::{
    AWS_NO_RETRY_REFUND, AWS_QUOTA_CAPACITY, AWS_RETRY_COST, AWS_TRANSIENT_SCALE, BackoffParams,
    BackoffRun, QuotaScope, RetryStrategy, aws_standard_delay, run,
};
use stampede_core::field::PanelParams;

use super::backoff_panel::decoded;

/// The run of `query` at seed 1, its flip searched for.
fn searched(query: &str) -> (BackoffParams, BackoffRun) {
    let (params, notices) = decoded(query);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    let mut result = run(&params, 1).unwrap();
    result.search_flip(&params, 1);
    (params, result)
}

fn ranking(result: &BackoffRun) -> Vec<RetryStrategy> {
    let ranking = result.verdict.ranking.iter();
    ranking.map(|ranked| ranked.strategy).collect()
}

/// The fleet: 500 clients, a 2-minute outage, 100 calls a second,
/// one SDK client's quota shared by all, beside Sidekiq.
const GIVING_UP: &str = "m=500&d=120&cp=100&st=awsquota&qshare=1&vs=sidekiq";

#[test]
fn a_fleet_that_gives_up_never_ranks_above_one_that_meets_the_floor() {
    for objective in ["recovery", "load", "p99", "gaveup"] {
        let (_, result) = searched(&format!("{GIVING_UP}&obj={objective}"));
        let quota = &result.fleets[0].fleet;
        assert_eq!(quota.succeeded, 0, "{objective}");
        assert_eq!(
            ranking(&result),
            [RetryStrategy::Sidekiq, RetryStrategy::AwsQuota],
            "{objective}"
        );
        let [first, second] = &result.verdict.ranking[..] else {
            panic!("two ranked");
        };
        assert!(first.meets_floor && !second.meets_floor);
        assert_eq!(second.figure, "0 % succeeded");
    }
    // Without a floor, the fleet that gave up spares the dependency and
    // wins on load: what the floor is there to stop.
    let (_, result) = searched(&format!("{GIVING_UP}&obj=load&fl=0"));
    assert_eq!(ranking(&result)[0], RetryStrategy::AwsQuota);
}

#[test]
fn when_none_meets_the_floor_the_sentence_says_so_first_and_ranks_by_successes() {
    let (params, result) = searched("");
    assert_eq!(params.floor, 99.0);
    assert_eq!(
        ranking(&result),
        [
            RetryStrategy::FullJitter,
            RetryStrategy::Decorrelated,
            RetryStrategy::Exponential
        ]
    );
    let verdict = &result.verdict;
    assert!(verdict.ranking.iter().all(|ranked| !ranked.meets_floor));
    let shares: Vec<f64> = verdict.ranking.iter().map(|r| r.succeeded).collect();
    assert!(
        shares.windows(2).all(|pair| pair[0] >= pair[1]),
        "{shares:?}"
    );
    assert_eq!(
        verdict.sentence,
        "None of the 3 strategies gets 99 % of its clients through, so they rank by how many \
         succeed, then by recovery time: Full jitter 87.2 %, Decorrelated jitter 57.7 %, \
         Exponential, no jitter 30 %."
    );
    // No refusals: decorrelated jitter's clients ran out of retries before D.
    assert_eq!(
        verdict.why,
        "Decorrelated jitter's 8 retries end before the 1 min outage does for 42.3 % of its \
         clients (about 1 min 14 s for the median client), against 12.7 % of Full jitter's \
         (about 1 min 32 s for the median client)."
    );
}

#[test]
fn with_the_floor_at_zero_the_objective_ranks_as_before() {
    let (_, result) = searched("fl=0");
    assert_eq!(
        ranking(&result),
        [
            RetryStrategy::FullJitter,
            RetryStrategy::Decorrelated,
            RetryStrategy::Exponential
        ]
    );
    assert_eq!(
        result.verdict.sentence,
        "Of those where at least 0 % of clients succeed, Full jitter ranks first by recovery \
         time: healthy again at 1 min, its busiest second from D on 0.295× capacity; then \
         Decorrelated jitter: level on recovery time but behind on clients that gave up (4,232 \
         of its 10,000 clients gave up, against 1,275 of its 10,000 clients gave up); then \
         Exponential, no jitter: healthy again at 3 min 4 s, its busiest second from D on 10× \
         capacity."
    );
    // By load, decorrelated jitter's 263 calls a second come first.
    let (_, result) = searched("fl=0&obj=load");
    assert_eq!(ranking(&result)[0], RetryStrategy::Decorrelated);
}

#[test]
fn every_strategy_of_five_is_ranked_and_named_in_order() {
    let (params, result) = searched("st=exponential&vs=full,equal,decorrelated,sidekiq");
    assert_eq!(params.strategies().len(), 5);
    let ranked = ranking(&result);
    assert_eq!(ranked.len(), 5);
    let sentence = &result.verdict.sentence;
    let places: Vec<usize> = ranked
        .iter()
        .map(|strategy| sentence.find(strategy.label()).unwrap())
        .collect();
    assert!(
        places.windows(2).all(|pair| pair[0] < pair[1]),
        "{sentence}"
    );
}

#[test]
fn the_flip_found_really_turns_the_outcome_around_when_applied() {
    for query in [
        "",
        "st=full&vs=equal,decorrelated",
        "st=breaker&vs=full&cp=100",
        "st=awsquota&vs=aws&d=1&qshare=1",
    ] {
        let (params, result) = searched(query);
        let flip = result.verdict.flip.as_ref().expect(query);
        let mut changed = params.clone();
        let (key, value) = flip.query.split_once('=').unwrap();
        assert_eq!(changed.set(key, value), None, "{query}: {}", flip.query);
        assert!(changed.settle().is_empty());
        let again = run(&changed, 1).unwrap();
        let before = &result.verdict.ranking;
        let after = ranking(&again);
        if before[0].meets_floor {
            // The second now ranks before the first.
            let place = |strategy| after.iter().position(|&s| s == strategy).unwrap();
            assert!(
                place(before[1].strategy) < place(before[0].strategy),
                "{query}: {}",
                flip.sentence
            );
        } else {
            assert!(
                again.verdict.ranking[0].meets_floor,
                "{query}: {}",
                flip.sentence
            );
        }
    }
    let (_, result) = searched("");
    assert_eq!(
        result.verdict.flip.unwrap().sentence,
        "With 12 retries, Full jitter would get 100 % of its clients through, meeting the 99 % \
         floor."
    );
}

#[test]
fn a_quota_per_client_gives_up_less_than_one_the_fleet_shares() {
    // botocore keeps a quota per client object. With 8 retries a client
    // alone spends at most 8 · 14 = 112 of its 500 tokens, so its quota
    // changes nothing; one quota for 10,000 requests runs dry at once.
    let fleet = |query: &str| searched(query).1.fleets[0].fleet.clone();
    let per_client = fleet("st=awsquota&vs=aws&d=2");
    let plain = fleet("st=aws&vs=awsquota&d=2");
    let shared = fleet("st=awsquota&vs=aws&d=2&qshare=1");
    assert_eq!(per_client, plain);
    assert!(shared.gave_up > per_client.gave_up);
    assert_eq!(shared.succeeded, 0);
    // With 60 retries asked against a 5-minute outage, a client's own
    // quota pays for 35, about 4 min 30 s of waits: more give up than
    // without a quota, fewer than with a shared one.
    let (params, _) = decoded("st=awsquota&k=60");
    assert_eq!(params.quota, QuotaScope::PerClient);
    let query = "k=60&d=300&m=1000";
    let per_client = fleet(&format!("st=awsquota&vs=aws&{query}"));
    let plain = fleet(&format!("st=aws&vs=awsquota&{query}"));
    let shared = fleet(&format!("st=awsquota&vs=aws&{query}&qshare=1"));
    assert!(per_client.calls <= 1_000 * 36, "{}", per_client.calls);
    assert!(plain.calls > per_client.calls);
    assert!(
        plain.gave_up < per_client.gave_up && per_client.gave_up < shared.gave_up,
        "{} {} {}",
        plain.gave_up,
        per_client.gave_up,
        shared.gave_up
    );
}

#[test]
fn the_labels_name_the_botocore_whose_defaults_are_simulated() {
    // Written by core/tests/data/make_botocore_vectors.py under botocore
    // 1.43.11 (new retries off and on) and 1.44.8.
    let rows = include_str!("../data/botocore_retries.tsv");
    let row = rows
        .lines()
        .find(|line| line.starts_with("1.44.8\t"))
        .unwrap();
    let fields: Vec<&str> = row.split('\t').collect();
    let waits: Vec<f64> = fields[2].split(',').map(|w| w.parse().unwrap()).collect();
    let ours: Vec<f64> = (1..=10)
        .map(|attempt| aws_standard_delay(attempt, AWS_TRANSIENT_SCALE, 0.5))
        .collect();
    assert_eq!(waits, ours);
    assert_eq!(
        fields[3..],
        [AWS_RETRY_COST, AWS_NO_RETRY_REFUND, AWS_QUOTA_CAPACITY].map(|n| n.to_string())
    );
    for strategy in [RetryStrategy::Aws, RetryStrategy::AwsQuota] {
        assert!(
            strategy.label().contains("botocore 1.44.8"),
            "{}",
            strategy.label()
        );
    }
    // 1.43 by default charged 5 tokens and scaled by 1 s: not what is
    // simulated, so no label names it.
    assert!(rows.contains("1.43.11\tfalse\t0.5,1.0,2.0"));
}
