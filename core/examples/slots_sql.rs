//! Prints the Slots panel's PostgreSQL snippet for the panel's query
//! string, for `core/tests/data/make_slots_sql_vectors.sh` to run:
//!
//! `cargo run -q -p stampede-core --example slots_sql -- 'cyc=28800&bk=255&lb=1'`
//!
//! A query the panel would adjust is refused with its notices, so the
//! vectors always hold the parameters they name.

use std::process::ExitCode;

use stampede_core::panels::State;
use stampede_core::panels::snippet::slots::snippets;

fn main() -> ExitCode {
    let query = std::env::args().nth(1).unwrap_or_default();
    let (state, notices) = State::from_query(&format!("p=slots&{query}"));
    if !notices.is_empty() {
        for notice in notices {
            eprintln!("{notice}");
        }
        return ExitCode::FAILURE;
    }
    match snippets(&state.slots)
        .into_iter()
        .find(|snippet| snippet.key == "postgres")
    {
        Some(snippet) => {
            println!("{}", snippet.code);
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("no PostgreSQL snippet for {query}");
            ExitCode::FAILURE
        }
    }
}
