//! The Slots panel's snippet: the PostgreSQL query a per-slot job runs to
//! pick its accounts.
//!
//! It reads the raw value from the last byte or two of the account's UUID
//! (`uuid_send` gives its 16 bytes in the order the text form writes them),
//! then takes the even form of [`crate::slots`]: bucket = raw mod B, slot =
//! bucket · n / B rounded down, in bigint so the product cannot overflow.
//! Every account then has one slot from 0 to n − 1, each holding B / n
//! buckets, even where B does not divide 256 or 65,536. The note says what
//! the common `raw / (R / n)` would strand instead.

use crate::panels::snippet::Snippet;
use crate::slots::{IdBytes, Layout, SlotParams};
use crate::units::{count, counted, significant};

/// The query for the panel's buckets, id bytes and slot count; none when
/// those cannot make a layout (more buckets than the bytes hold).
pub fn snippets(params: &SlotParams) -> Vec<Snippet> {
    let Ok(layout) = Layout::new(params.cycle, params.buckets, params.id_bytes) else {
        return Vec::new();
    };
    vec![Snippet::new(
        "postgres",
        "PostgreSQL",
        "sql",
        query(params.buckets, params.id_bytes, layout.slots()),
        note(params.id_bytes, layout.slots()),
    )]
}

/// The raw value of `id` as SQL, ready to take `%`: its last byte, or its
/// last two read big-endian.
fn raw_value(id_bytes: IdBytes) -> &'static str {
    match id_bytes {
        IdBytes::Last => "get_byte(uuid_send(id), 15)",
        IdBytes::LastTwo => "(get_byte(uuid_send(id), 14) * 256 + get_byte(uuid_send(id), 15))",
    }
}

fn query(buckets: u32, id_bytes: IdBytes, slots: u32) -> String {
    let bytes = match id_bytes {
        IdBytes::Last => "last byte",
        IdBytes::LastTwo => "last two bytes",
    };
    let raw = raw_value(id_bytes);
    let (b, n) = (count(u64::from(buckets)), count(u64::from(slots)));
    // Named only where it matters: bucket · n can pass integer's 2³¹ − 1
    // only with two bytes and thousands of slots.
    let largest_product = u64::from(buckets - 1) * u64::from(slots);
    let overflow = if largest_product > i32::MAX as u64 {
        format!(
            "\n-- In integer, {} * {n} would overflow; bigint holds it.",
            count(u64::from(buckets - 1))
        )
    } else {
        String::new()
    };
    format!(
        "-- The accounts of slot $1 (0 to {}). raw is the id's {bytes}, 0 to {};\n\
         -- bucket = raw mod {b} and slot = bucket * {n} / {b} rounded down,\n\
         -- so each of the {n} slots holds {}.{overflow}\n\
         SELECT id\n\
         FROM accounts\n\
         WHERE ({raw} % {buckets})::bigint * {slots} / {buckets} = $1;",
        count(u64::from(slots - 1)),
        count(u64::from(id_bytes.raw_values() - 1)),
        counted(u64::from(buckets / slots), "bucket", "buckets"),
    )
}

fn note(id_bytes: IdBytes, slots: u32) -> String {
    let raw_values = id_bytes.raw_values();
    let each = format!(
        "For a table accounts with a uuid column id. Run it once per slot, $1 from 0 to {}: \
         every account is in exactly one.",
        count(u64::from(slots - 1))
    );
    let stranded = raw_values % slots;
    if stranded == 0 {
        return each;
    }
    let width = raw_values / slots;
    let first = slots * width;
    let which = match stranded {
        1 => format!(
            "raw value {} lands at slot {}",
            count(u64::from(first)),
            first / width
        ),
        _ => format!(
            "the {} raw values from {} on land at slot {slots} or above",
            count(u64::from(stranded)),
            count(u64::from(first))
        ),
    };
    format!(
        "{each} The common raw / ({raw_values} / {slots}) divides by {}, so {which}, which no \
         job asks for: about {} % of accounts are never synced.",
        count(u64::from(width)),
        significant(f64::from(stranded) * 100.0 / f64::from(raw_values), 2),
    )
}
