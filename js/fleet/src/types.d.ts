// The types of `stampede_fleet.js`. wasm-bindgen puts them into the
// generated `stampede_fleet.d.ts` beside `fleet()`'s signature.

/** Options of `fleet(text, options)`. */
export interface FleetOptions {
  /**
   * Where the horizon starts: RFC 3339 ("2026-01-01T00:00:00Z", any offset)
   * or Unix seconds, a whole second in the years 1 to 9999 (the start of the
   * current UTC day).
   */
  from?: string | number;
  /** How long the horizon is, in whole hours, 1 to 744 (24). */
  hours?: number;
  /**
   * What `text` holds ("auto"): a fleet file, or a format the CLI's
   * `--format` takes; "auto" detects it.
   */
  format?: "auto" | "fleet" | "crontab" | "jenkins" | "jenkins-xml" | "quartz-xml" | "spring" | "apscheduler" | "systemd" | "prometheus" | "k8s" | "gha" | "temporal" | "eventbridge" | "anacrontab" | "sidekiq";
  /** The seed of the delays a scheduler draws at random (the app's default seed). */
  seed?: number;
}

// ---- Fleet --------------------------------------------------------------------
// What `fleet(text, options)` returns. Minutes are bins of the horizon:
// minute `i` is [from + 60 i, from + 60 (i + 1)) in Unix seconds; a start is
// placed to the microsecond.

/** One start of one line of the fleet file. */
export interface FleetStart {
  /** The line of the fleet file, from 1. */
  line: number;
  id: string;
  /** Unix microseconds (exact below 2^53, past the year 2255). */
  at_micros: number;
}

/** A minute of the horizon and the jobs that start in it. */
export interface BusyMinute {
  /** Minutes since `from`. */
  minute: number;
  /** Where the minute begins, in Unix seconds. */
  at: number;
  starts: number;
  /** The starts in the minute, by time then line. */
  jobs: FleetStart[];
}

/** The minute with the most jobs running. */
export interface RunningPeak {
  minute: number;
  at: number;
  /** The sum of the weights of the jobs running in that minute. */
  running: number;
}

/** How many starts land in a minute another start lands in too. */
export interface SharedStarts {
  /** Minutes with more than one start. */
  minutes: number;
  /** Starts in those minutes. */
  starts: number;
  /** The most starts in any one minute. */
  most_in_a_minute: number;
}

/** A line the expansion did not count in full, and why. */
export interface FleetNotice {
  line: number;
  message: string;
}

/** A line of the fleet file that was not read, the field that stopped it, and why. */
export interface SkippedLine {
  line: number;
  /** "system", "id", "spec", or an option's key as written. */
  field: string;
  reason: string;
}

/** Where every line of the text went: read + ignored + skipped = lines. */
export interface FleetInput {
  lines: number;
  /** Lines that gave at least one job. */
  read: number;
  /** Jobs read; a line may give several (a unit on several machines). */
  jobs: number;
  /** Blank lines, comments, and the format's other text. */
  ignored: number;
  /** Lines skipped, each in `skipped` with its reason. */
  skipped: number;
  /** The text's parts, each in one format, in order. */
  parts: FleetInputPart[];
}

/** A run of the text's lines in one format. */
export interface FleetInputPart {
  /** A format's slug, such as "crontab". */
  format: string;
  first_line: number;
  last_line: number;
  jobs: number;
}

/** A line whose starts are drawn at run time, and how. */
export interface DrawnLine {
  line: number;
  /** The delay's law in words. */
  law: string;
}

/** Per minute of the horizon, the 10th, 50th and 90th percentiles across the draws. */
export interface PercentileBand {
  p10: number[];
  p50: number[];
  p90: number[];
}

/** The load across draws of the delays schedulers draw at run time. */
export interface DrawnRange {
  draws: number;
  lines: DrawnLine[];
  /** Starts in each minute. */
  starts: PercentileBand;
  /** Weighted jobs running in each minute; null when no line gives a Duration. */
  running: PercentileBand | null;
  /** The most starts in any one minute, in each draw, fewest first. */
  busiest: number[];
  /** The minutes in which a draw started a line that draws: where the delays reach. */
  reached: number[];
}

/** A fleet's starts over the horizon and the load they make. */
export interface FleetResult {
  from: number;
  horizon_minutes: number;
  /** Every start, by time then line (at most 2,000,000). */
  starts: FleetStart[];
  /** Starts in each minute of the horizon. */
  starts_per_minute: number[];
  /** Weighted jobs running in each minute; null when no expanded line gives a Duration. */
  running_per_minute: number[] | null;
  running_peak: RunningPeak | null;
  /** The minute with the most starts (the earliest of a tie); null without starts. */
  peak: BusyMinute | null;
  shared: SharedStarts;
  /** Up to 10 minutes with the most starts, busiest first, then earliest. */
  crowded: BusyMinute[];
  /** Lines not expanded, or not in full, once each. */
  notices: FleetNotice[];
  /** The line at which 2,000,000 starts were reached, if they were. */
  stopped_at_line: number | null;
  /**
   * Present when a line's scheduler draws a delay at run time (cronie's
   * RANDOM_DELAY, systemd's RandomizedDelaySec, ...): the figures above are
   * one draw under `seed`, and this is the load across 20 more.
   */
  drawn?: DrawnRange;
  /** Where every line of the text went. */
  input: FleetInput;
  /** Lines that could not be read; the others are expanded all the same. */
  skipped: SkippedLine[];
}
