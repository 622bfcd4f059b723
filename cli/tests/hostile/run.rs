//! Running a case as a user runs the binary, within the limits, and
//! what it did.

use std::fs::{self, File};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::cases::{Case, Input};
use crate::{MEMORY_LIMIT_BYTES, TIME_LIMIT};

/// The lines of `bytes` as a reader counts them: LF, CRLF and CR each end
/// one, a last line needs no end, and a BOM is not text. `None` for bytes
fn lines_in(bytes: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).as_bytes();
    let mut lines = 0;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'\n' => lines += 1,
            b'\r' => {
                lines += 1;
                at += usize::from(text.get(at + 1) == Some(&b'\n'));
            }
            _ if at + 1 == text.len() => lines += 1,
            _ => {}
        }
        at += 1;
    }
    Some(lines)
}

pub struct Outcome {
    /// The exit code, or the signal that ended the binary.
    pub ended: Result<i32, i32>,
    pub timed_out: bool,
    pub seconds: f64,
    pub peak_bytes: u64,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub input_bytes: u64,
    /// The input's lines as [`lines_in`] counts them.
    pub input_lines: Option<usize>,
}

/// Runs `case` with its input in a file under `dir`, which stays there.
///
/// A forked child starts with its parent's peak resident size, which its
/// own peak then includes. So the input goes through a file, never
/// through this process' memory while the binary runs, and this process
/// returns its free heap and resets its peak to its current size
/// (`clear_refs`, Linux 4.0) first.
pub fn run(case: &Case, dir: &Path) -> Outcome {
    let path = dir.join(format!("{}.in", case.name));
    let (input_bytes, input_lines) = {
        let bytes = case.bytes();
        fs::write(&path, &bytes).unwrap();
        (bytes.len() as u64, lines_in(&bytes))
    };
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe { libc::malloc_trim(0) };
    fs::write("/proc/self/clear_refs", "5").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_stampede"));
    command.args(&case.args);
    if let Input::ArrivalsFile(_) = case.input {
        command.arg(&path).stdin(Stdio::null());
    } else {
        command.stdin(File::open(&path).unwrap());
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe, all a pre_exec hook may call.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT_BYTES,
                rlim_max: MEMORY_LIMIT_BYTES,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let started = Instant::now();
    #[expect(
        clippy::zombie_processes,
        reason = "wait4 reaps it, for its peak memory"
    )]
    let mut child = command.spawn().expect("the binary starts");
    let pid = child.id() as libc::pid_t;
    let (mut output, mut errors) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    thread::scope(|scope| {
        let stdout = scope.spawn(move || {
            let mut bytes = Vec::new();
            output
                .read_to_end(&mut bytes)
                .map(|_| bytes)
                .unwrap_or_default()
        });
        let stderr = scope.spawn(move || {
            let mut text = String::new();
            errors
                .read_to_string(&mut text)
                .map(|_| text)
                .unwrap_or_default()
        });
        let mut timed_out = false;
        let (status, usage) = loop {
            let mut status = 0;
            // SAFETY: rusage is plain data, and both pointers are to live
            // locals; wait4 reaps only this child.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            let flags = if timed_out { 0 } else { libc::WNOHANG };
            let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
            if reaped == pid {
                break (status, usage);
            }
            if !timed_out && started.elapsed() > TIME_LIMIT {
                timed_out = true;
                child.kill().unwrap();
            } else {
                thread::sleep(Duration::from_millis(2));
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        let ended = if libc::WIFEXITED(status) {
            Ok(libc::WEXITSTATUS(status))
        } else {
            Err(libc::WTERMSIG(status))
        };
        Outcome {
            ended,
            timed_out,
            seconds,
            peak_bytes: usage.ru_maxrss as u64 * 1024,
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
            input_bytes,
            input_lines,
        }
    })
}
