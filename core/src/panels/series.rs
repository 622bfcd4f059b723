//! A panel's series against time, for a CSV file: each panel picks its
//! own ([`super::PanelSpec::time_series`]): a Poisson run's event times,
//! jitter's jobs per second, each backoff fleet's calls per timeline bin
//! (a column for each strategy, named by its slug), the hash spread's keys
//! per bucket and the slots' queue ingress per bin of the cycle, and each
//! queue lane's depth, busy and ready workers, ingress, finishes, lock
//! conflicts and refused calls per bin (columns named by the lane's slug).

/// Named columns of equal length, one row per step in time. Kept by column
/// because a long run has millions of rows and few columns.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeSeries {
    pub header: Vec<String>,
    pub columns: Vec<Vec<f64>>,
}

impl TimeSeries {
    /// Columns named `header`, in order.
    pub fn new(header: &[&str], columns: Vec<Vec<f64>>) -> Self {
        Self {
            header: header.iter().map(|name| name.to_string()).collect(),
            columns,
        }
    }

    /// Counts of bins `step` wide as two columns, each bin's start and its
    /// count, named `start` and `count`.
    pub fn counted(start: &str, count: &str, counts: &[u32], step: f64) -> Self {
        Self::new(&[start, count], counted(counts, step).into())
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values of row `index`, one per column.
    pub fn row(&self, index: usize) -> impl Iterator<Item = f64> + '_ {
        self.columns.iter().map(move |column| column[index])
    }

    /// The header line, then one line per row, values as Rust prints them
    /// (shortest text that reads back as the same f64).
    pub fn write_csv(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.header.join(","))?;
        for index in 0..self.len() {
            let row: Vec<String> = self.row(index).map(|x| x.to_string()).collect();
            writeln!(out, "{}", row.join(","))?;
        }
        Ok(())
    }
}

/// Counts of bins `step` wide as two columns: each bin's start, its count.
pub fn counted(counts: &[u32], step: f64) -> [Vec<f64>; 2] {
    let starts = (0..counts.len()).map(|i| i as f64 * step).collect();
    let counts = counts.iter().map(|&c| f64::from(c)).collect();
    [starts, counts]
}
