//! The `stampede` command; the library ([`stampede_cli`]) holds it.

fn main() -> std::process::ExitCode {
    stampede_cli::run(std::env::args_os())
}
