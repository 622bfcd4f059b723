//! `stampede-check`: `stampede check` under the name pre-commit runs.
//!
//! pre-commit's Rust hooks install a repository with `cargo install
//! --bins --path .`, which takes the root package's binaries, and this is
//! the root package; `.pre-commit-hooks.yaml` names this binary. The
//! command itself is the CLI crate's.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    let args = std::env::args_os().skip(1);
    stampede_cli::run(["stampede".into(), "check".into()].into_iter().chain(args))
}

// The app's binaries are built for wasm32, and so is this file with them.
#[cfg(target_arch = "wasm32")]
fn main() {}
