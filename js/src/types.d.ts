
// ---- Parameters -------------------------------------------------------------
// The app URL's short keys; each is optional and keeps its default when
// missing. A value the app would clamp or replace throws an Error naming the
// key. `s` is the seed: a whole number (a string or BigInt above 2^53).

export type Seed = number | string | bigint;

/** Parameters of `poisson()`. */
export interface PoissonParams {
  /** Events a day of the first tenant, 1 to 1,000,000 (300). */
  n?: number;
  /** Local hour the daily window opens, 0 to 24 (0). */
  ws?: number;
  /** Local hour the daily window closes, 0 to 24 (24); before `ws` wraps past midnight. */
  we?: number;
  /** Scale the rate to the window, or defer events to its opening ("scale"). */
  wp?: "scale" | "defer";
  /** Local time = UTC + this many hours, -12 to 14 (0). */
  tz?: number;
  /** Horizon in days, 1 to 30 (1). */
  d?: number;
  /** More tenants, `N@start-end` or `N`, comma-separated: "1000@22-6, 50". */
  t?: string;
  /** Token bucket capacity, 0 to 10,000; 0 means no bucket (0). */
  bc?: number;
  /** Token bucket refill per second, 0.001 to 10,000 (1). */
  br?: number;
  /** What an event finding the bucket empty does ("drop"). */
  bp?: "drop" | "wait";
  s?: Seed;
}

/** Parameters of `jitter()`. */
export interface JitterParams {
  /** Jobs enqueued at the same instant, 1 to 1,000,000 (10,000). */
  n?: number;
  /** How each job's delay is drawn ("uniform"). */
  js?: "none" | "fixed" | "uniform" | "exponential" | "normal" | "twopeak";
  /** Shortest delay in minutes, 0 to 1440 (0). */
  lo?: number;
  /** Longest delay in minutes, above `lo`, up to 1440 (30). */
  hi?: number;
  /** The one delay of the fixed strategy, in minutes, 0 to 1440 (10). */
  fd?: number;
  /** Mean of the exponential and normal shapes, in minutes, 0 to 1440 (10). */
  m?: number;
  /** Standard deviation of the normal shapes in minutes, 0.1 to 720 (5). */
  sd?: number;
  /** Calls a second the downstream accepts, 1 to 100,000 (20). */
  rps?: number;
  /** The share of nights, in percent, the recommended window holds on ("95"). */
  conf?: "50" | "90" | "95" | "99";
  /** The enqueue's time of day, HH:MM on a 24-hour clock, for the snippets ("00:00"). */
  at?: string;
  s?: Seed;
}

/** How a client picks its wait before each retry. */
export type BackoffStrategy =
  | "constant" | "linear" | "exponential" | "full" | "equal" | "decorrelated"
  | "sidekiq" | "celery" | "activejob" | "aws" | "awsquota" | "breaker";

/** Parameters of `backoff()`. */
export interface BackoffParams {
  /** Retry strategy ("exponential"). */
  st?: BackoffStrategy;
  /** Base delay in seconds, 0.01 to 60 (1). */
  b?: number;
  /** Growth factor, 1 to 10 (2). */
  f?: number;
  /** Cap in seconds, 1 to 3600, at least `b` (60). */
  c?: number;
  /** Retries after the first call, 1 to 100 (8). */
  k?: number;
  /** Clients failing together, 1 to 1,000,000 (10,000). */
  m?: number;
  /** Outage in seconds, 1 to 86,400 (60). */
  d?: number;
  /**
   * Strategies drawn beside `st`: up to 4 of its slugs, separated by commas,
   * or "" for none ("full,decorrelated"). `st` itself, if listed, is drawn once.
   */
  vs?: string;
  /** "capacity": the dependency serves at most `cp` calls a second from `d` on; "unlimited": every call. */
  dep?: "capacity" | "unlimited";
  /** Calls a second the dependency serves, 1 to 1,000,000 (1,000). */
  cp?: number;
  /** What the verdict ranks by ("recovery"). */
  obj?: "recovery" | "load" | "p99" | "gaveup";
  /** Success floor in percent, 0 to 100 (99): strategies short of it rank below those that meet it. */
  fl?: number;
  /** "1": all clients share one AWS SDK client's retry quota; "0": each has its own ("0"). */
  qshare?: "0" | "1" | 0 | 1;
  s?: Seed;
}

/** Parameters of `slots()`. */
export interface SlotsParams {
  /** The cycle in seconds, 60 to 604,800 (28,800). */
  cyc?: number;
  /** Buckets the ids fall into, 1 to 65,536; at most 256 with `lb: "1"` (65,535). */
  bk?: number;
  /** Accounts to place, 1 to 1,000,000; at most 250,000 with `dl: "ruby"` (10,000). */
  a?: number;
  /** Bucket from the id's last byte ("1") or last two bytes ("2"). */
  lb?: "1" | "2" | 1 | 2;
  /** Reciprocal job kinds kept apart on the ring of slots, 1 to 16 (3). */
  kj?: number;
  /** σ of the lognormal account costs, 0 to 3 (1.5). */
  ct?: number;
  /** Offsets from Ruby's `Random.new(id).rand` or a PCG32 seeded by the id ("ruby"). */
  dl?: "ruby" | "pcg";
  s?: Seed;
}

/** What `spread()` takes. */
export interface SpreadOptions {
  /** How a key becomes an offset: a 32-bit hash, Ruby's `Random.new(key).rand(window)`, or the key's first 4 bytes ("head"). */
  fn: "farm" | "murmur" | "xxh" | "fnv" | "ruby" | "head";
  /** The window in whole seconds, 1 to 4,294,967,295. */
  window: number;
  /** At most 1,000,000 keys. */
  keys: string[];
  /** hash mod window, or (hash × window) >> 32 ("mod"); not used by "ruby". */
  reduce?: "mod" | "mulshift";
}

/** One key's place, as `spread()` returns it. */
export interface KeyOffset {
  key: string;
  /** The 32-bit hash of the key's UTF-8 bytes; null for "ruby". */
  hash: number | null;
  /** Seconds from the window's start. */
  offset: number;
}

// ---- Results ----------------------------------------------------------------
// Times are in seconds. Each result names its panel under `panel`.

export interface GapQuantile {
  p: number;
  measured: number;
  /** -ln(1 - p) / rate. */
  theory: number;
}

export interface BucketOutcome {
  accepted: number;
  rejected: number;
  delayed: number;
  added_delay: number;
  max_delay: number;
}

export interface PoissonRun {
  panel: "poisson";
  /** Seconds since UTC midnight of the first day, in order. */
  run_times: number[];
  /** Gaps between consecutive run times: one fewer than the run times. */
  gap_count: number;
  /** Their mean in seconds; null with fewer than two run times. */
  mean_gap: number | null;
  /** p50, p95 and p99 of the gaps. */
  gap_quantiles: [GapQuantile, GapQuantile, GapQuantile];
  /** Events a second while every window is open. */
  rate_per_second: number;
  /** Per tenant, events in each local hour of the day. */
  per_hour: number[][];
  /** [start of the minute, events in it]. */
  busiest_minute: [number, number] | null;
  deferred: number;
  deferred_wait: number;
  bucket: BucketOutcome | null;
  /** Events in each minute of the local day, over the first 24 hours. */
  first_day_per_minute: number[];
  gap_histogram: GapHistogram;
}

/** Gaps binned from 0, beside the counts an exponential predicts. */
export interface GapHistogram {
  bin_seconds: number;
  counts: number[];
  /** Gaps longer than the last bin reaches. */
  beyond: number;
  /** [gap, expected gaps per bin] along the curve n · bin · λe^(−λ·gap). */
  expected: [number, number][];
}

export interface JitterRun {
  panel: "jitter";
  /** When each job runs, in enqueue order. */
  run_at: number[];
  per_second: number[];
  /** [start of the busiest second, jobs in it]. */
  peak_second: [number, number];
  /** Seconds with more than `rps` jobs. */
  seconds_over_limit: number;
  /** Jobs over the limit, summed over seconds. */
  over_limit: number;
  last_run: number;
  /** n / (hi - lo) per second, for the uniform strategy. */
  flat_rate_per_second: number | null;
  /** For the uniform strategy, the share of nights (0 to 1) on which this window keeps every second within `rps`. */
  nights_within_limit: number | null;
  window_fit: WindowFit;
}

/** The narrowest uniform window that keeps every second within `rps` on a share of nights. */
export interface WindowFit {
  /** The share of nights asked for, 0 to 1: `conf` / 100. */
  confidence: number;
  /** The smallest max delay in minutes that holds on that share, or null when none up to 1440 does. */
  max_delay: number | null;
  /** That window, max - min, in seconds. */
  window_seconds: number | null;
  /** The share of nights that window holds on, and one 6 s step less. */
  chance: number | null;
  chance_one_step_less: number | null;
  /** The smallest window this seed's own draws (one night) fit in, in seconds. */
  one_night_seconds: number | null;
  /** n / rps: no shorter window can fit. */
  floor_seconds: number;
}

export interface Band {
  retry: number;
  min: number;
  median: number;
  p90: number;
  max: number;
}

export interface Timeline {
  bin_seconds: number;
  /** Calls in each bin. */
  calls: number[];
}

export interface Burst {
  per_second: number;
  at: number;
}

export interface Fleet {
  /** Calls that reached the dependency, per bin. */
  timeline: Timeline;
  peak_after_outage: Burst;
  /** Every call, first calls included. */
  calls: number;
  /** Calls during the outage, all failed. */
  failed_in_outage: number;
  /** Calls from `d` on refused for capacity. */
  refused: number;
  /** Calls an open circuit breaker turned away. */
  rejected: number;
  /** When the dependency is healthy again, in seconds. */
  healthy_at: number;
  /** The busiest second from `d` on over the capacity; null when unlimited. */
  peak_load: number | null;
  succeeded: number;
  gave_up: number;
  last_success: number | null;
  success_99: number | null;
  completion_p50: number;
  completion_p99: number;
  /** Time to success of the median and 99th-percentile client that succeeded. */
  success_p50: number | null;
  success_p99: number | null;
}

export interface StrategyFleet {
  /** The strategy's slug, as `st` takes it. */
  strategy: BackoffStrategy;
  /** Its name, with the library version for the library strategies. */
  label: string;
  /** The spread of each retry's wait. */
  bands: Band[];
  fleet: Fleet;
}

/** One strategy's place in the verdict. */
export interface Ranked {
  strategy: BackoffStrategy;
  /** Whether at least `fl` percent of its clients succeeded. */
  meets_floor: boolean;
  /** Share of its clients that succeeded, 0 to 1. */
  succeeded: number;
  /** What it is ranked by, in words. */
  figure: string;
}

/** A change of the parameters that turns the verdict around, found by running the fleets again. */
export interface Flip {
  /** The change as URL parameters, such as "k=12". */
  query: string;
  change: string;
  sentence: string;
}

/** Every strategy ranked: those meeting the floor by `obj`, then the others by successes. */
export interface Verdict {
  ranking: Ranked[];
  /** Names every strategy in order. */
  sentence: string;
  /** Why the first comes before the second, from the figures. */
  why: string;
  /** Always null from this module: the search runs the model again for each change it
   * tries, so the command line (`stampede run`) and the app search, and this module does not. */
  flip: Flip | null;
}

export interface BackoffRun {
  panel: "backoff";
  /** The main strategy's fleet first, then each compared one's; all share their timeline bins. */
  fleets: StrategyFleet[];
  verdict: Verdict;
}

export interface Uniformity {
  chi_square: number;
  degrees_of_freedom: number;
  p_value: number;
}

export interface Gap {
  start: number;
  length: number;
  /** window × H_N / N, the average largest gap of N uniform points. */
  expected: number;
}

export interface Collisions {
  distinct_offsets: number;
  keys_sharing: number;
  most_on_one_offset: number;
  expected_keys_sharing: number;
}

/** Shares of the keys that moved. */
export interface Movement {
  moved: number;
  moved_beyond_bucket: number;
}

export interface Stability {
  added_keys: number;
  on_growth: Movement;
  rank_on_growth: Movement;
  second_window: number;
  on_window_change: Movement;
  rank_on_window_change: Movement;
}

/** The Hash spread panel's run (from `run()` with `p=hash`). */
export interface HashSpreadRun {
  panel: "hash";
  keys: string[];
  offsets: number[];
  times_of_day: number[];
  window: number;
  bucket_width: number;
  bucket_counts: number[];
  uniformity: Uniformity;
  /** Fullest over emptiest bucket, in keys a second; null when one is empty. */
  max_min_ratio: number | null;
  largest_gap: Gap;
  collisions: Collisions;
  stability: Stability;
  /** Keys per strip bin: min(window, 1,200) bins of window / bins seconds. */
  strip_counts: number[];
  /** The second function (`fn2`, `rd2`) on the same keys. */
  second: Spread;
  /** The looked-up id (`q`, else the first key) under the first function. */
  lookup: Lookup;
}

/** One function's spread of the keys, as the second function's is given. */
export interface Spread {
  mode: "farm" | "murmur" | "xxh" | "fnv" | "ruby" | "head";
  reduction: "mod" | "mulshift";
  offsets: number[];
  strip_counts: number[];
  bucket_counts: number[];
  uniformity: Uniformity;
  max_min_ratio: number | null;
  largest_gap: Gap;
  collisions: Collisions;
}

/** One id's place under the first function. */
export interface Lookup {
  id: string;
  /** The 32-bit hash; null in Ruby mode. */
  hash: number | null;
  offset: number;
  /** offset mod 86,400: when it runs if the window starts at midnight. */
  time_of_day: number;
  /** Its offset under the second function. */
  second_offset: number;
}

export interface EuclidStep {
  dividend: number;
  divisor: number;
  quotient: number;
  remainder: number;
}

/** Raw values and accounts per slot index under one rule. */
export interface Mapping {
  raw_values_per_slot: number[];
  accounts_per_slot: number[];
  fewest_raw_values: number;
  most_raw_values: number;
  fewest_accounts: number;
  most_accounts: number;
  unscheduled_raw_values: number[];
  unscheduled_accounts: number;
  /** The first ids of the accounts no slot runs. */
  unscheduled_ids: string[];
}

/** Queue ingress, jobs due and jobs waiting per bin of the cycle. */
export interface SlotPlan {
  bin_seconds: number;
  accounts_per_slot: number[];
  ingress_slotted: number[];
  due_slotted: number[];
  waiting_slotted: number[];
  peak_waiting_slotted: number;
  ingress_all_at_once: number[];
  due_all_at_once: number[];
  waiting_all_at_once: number[];
  peak_waiting_all_at_once: number;
}

export interface Reciprocals {
  offsets: number[];
  /** The slot each kind works on, step by step. */
  steps: number[][];
  min_ring_distance: number | null;
  ideal_distance: number;
}

export interface SlotLoad {
  per_slot: number[];
  max: number;
  min: number;
  mean: number;
}

export interface CostBalance {
  heaviest_account: number;
  lower_bound: number;
  hashed: SlotLoad;
  balanced: SlotLoad;
}

export interface AccountPlacement {
  id: string;
  raw: number;
  bucket: number;
  slot: number;
  sql_slot: number;
  delay: number;
  all_at_once_delay: number;
  cost: number;
}

export interface SlotRun {
  panel: "slots";
  /** gcd(cycle, buckets). */
  slots: number;
  slot_seconds: number;
  buckets_per_slot: number;
  raw_values: number;
  euclid: EuclidStep[];
  even: Mapping;
  sql: Mapping;
  plan: SlotPlan;
  kinds: Reciprocals;
  costs: CostBalance;
  /** The first accounts, one by one. */
  accounts: AccountPlacement[];
}

/**
 * One lane's totals. Waits are start − due over every job due before the
 * end; one never started counts its wait so far (end − due), so the mean,
 * and a percentile at or above `least_unstarted_wait_s`, is then at least
 * the value given. A percentile is one job's own wait: p95 is the wait 95
 * in 100 jobs did not exceed.
 */
export interface Summary {
  /** First attempts due before the end. */
  jobs_enqueued: number;
  jobs_done: number;
  mean_wait_s: number;
  p50_wait_s: number;
  p95_wait_s: number;
  p99_wait_s: number;
  /** Jobs due before the end, retries included, still waiting at it. */
  never_started: number;
  /** The shortest wait so far of those jobs; null when none. */
  least_unstarted_wait_s: number | null;
  /** The most jobs waiting for a worker at any instant. */
  max_queue_depth: number;
  /** Busy worker time / ready worker time. */
  utilization: number;
  /** Accounts with no finished sync by the end. */
  never_synced: number;
  /** Jobs that found their account locked by its other job kind. */
  lock_conflicts: number;
  /** Time those jobs were parked, in all. */
  lock_wait_s: number;
  /** Calls the downstream refused (rate limit or outage). */
  failed_calls: number;
  retries: number;
  /** Jobs refused once more than the retries allow. */
  gave_up: number;
  /** The longest time between two finished syncs of one account. */
  max_sync_interval_s: number;
  /** The most calls the downstream received in one whole second: syncs
   *  started, retries and refused calls included. */
  peak_calls_per_second: number;
}

/** One lane's simulation: series per bin of `bin_seconds`, and histograms. */
export interface SimRun {
  summary: Summary;
  bin_seconds: number;
  queue_depth: number[];
  executing: number[];
  workers: number[];
  ingress: number[];
  done: number[];
  lock_conflicts: number[];
  failed: number[];
  wait_bin_seconds: number;
  wait_histogram: number[];
  sync_interval_start_seconds: number;
  sync_interval_bin_seconds: number;
  sync_interval_histogram: number[];
}

/** A lane: a strategy, or a retry policy when comparing retries. */
export interface Lane {
  slug: string;
  label: string;
  run: SimRun;
}

/** The Queue panel's run (from `run()` with `p=queue`): the main lane first. */
export interface QueueRun {
  panel: "queue";
  lanes: Lane[];
}

export type PanelRun = PoissonRun | JitterRun | BackoffRun | HashSpreadRun | SlotRun | QueueRun;

/** A parameter `run()` adjusted, and why. */
export interface Notice {
  key: string;
  label: string;
  message: string;
}

export interface RunOutcome {
  result: PanelRun;
  notices: Notice[];
}
