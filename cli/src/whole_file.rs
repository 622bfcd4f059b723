//! Files written whole or not at all: into a temporary file beside the
//! destination, renamed into place once everything is written, so a
//! failed run never leaves half a file behind.

use std::fmt;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Why a file was not written.
pub enum WriteFailure {
    /// The destination cannot take a file: the message says why.
    Place(String),
    /// Writing the contents failed.
    Write(io::Error),
}

impl fmt::Display for WriteFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Place(why) => f.write_str(why),
            Self::Write(error) => write!(f, "{error}"),
        }
    }
}

/// Writes what `write` writes to `path`.
pub fn write_whole(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), WriteFailure> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match fs::metadata(directory) {
        Ok(found) if found.is_dir() => {}
        Ok(_) => {
            let why = format!("{} is not a directory", directory.display());
            return Err(WriteFailure::Place(why));
        }
        Err(e) => return Err(WriteFailure::Place(format!("{}: {e}", directory.display()))),
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(WriteFailure::Place("is a directory".into()));
    }
    let mut builder = tempfile::Builder::new();
    // An ordinary file: readable as the umask allows, not the owner-only
    // mode a temporary file gets by default.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut file = builder
        .tempfile_in(directory)
        .map_err(|e| WriteFailure::Place(format!("cannot write there: {e}")))?;
    let mut out = BufWriter::new(&mut file);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(WriteFailure::Write)?;
    drop(out);
    file.persist(path)
        .map_err(|e| WriteFailure::Place(e.error.to_string()))?;
    Ok(())
}
