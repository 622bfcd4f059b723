//! A fleet carried in a link's fragment, so a shared link opens on the same
//! schedules and the fleet never reaches a server (browsers do not send the
//! fragment).
//!
//! The fragment, without its `#`, is one character naming the format,
//! then the fleet text as raw DEFLATE (RFC 1951) at the best level, without
//! a zlib or gzip wrapper (six bytes or more: a cut link already shows as
//! data that ends early, and the text must still be UTF-8), written in
//! base64url without padding (RFC 4648 §5), whose alphabet needs no
//! escaping in a URL. Format `1` is the only one so far; the version
//! character lets a later format read old links.
//!
//! A fleet whose fragment would pass [`MOST_LINK_CHARS`] is refused with
//! [`LinkTooLong`], for the page to keep it and offer a download instead.
//! Decoding stops at [`MOST_TEXT_BYTES`] of text, so a small fragment that
//! inflates to gigabytes costs a megabyte and a refusal.
//!
//! ```
//! use stampede_fleet::link;
//!
//! let fleet = "cron\tnightly backup\t30 2 * * *\tDuration=1h30m\n";
//! let fragment = link::encode(fleet).unwrap();
//! assert!(fragment.starts_with('1'));
//! assert_eq!(link::decode(&fragment).unwrap(), fleet);
//! ```

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use miniz_oxide::deflate::{CompressionLevel, compress_to_vec};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};

use stampede_core::error::InvalidInput;
use stampede_core::units::count;

/// The most characters a fleet's fragment may have: 7,500.
///
/// The fragment is never sent to a server, but the link is: pasted into
/// chat tools, tickets and documents, passed through link checkers and
/// proxies, some of which cut or refuse links beyond a few thousand
/// characters. 8,000 octets is the least URI length RFC 9110 (§4.1) asks
/// every HTTP sender and recipient to support, so it is the longest link
/// that can expect to arrive whole; 7,500 leaves 500 of those for the
/// page's address and the panel's other settings. That holds a realistic
/// fleet of 300 lines with room to spare (the tests measure one).
pub const MOST_LINK_CHARS: usize = 7_500;

/// The most bytes of fleet text a fragment decodes to, or a fleet
/// encodes from: 1 MiB, some 13,000 lines of 80 bytes, far more than a
/// fleet a link carries (DEFLATE inflates at most about 1,000 times, so a
/// hostile fragment of 7,500 characters could claim some 5.8 MB).
pub const MOST_TEXT_BYTES: usize = 1 << 20;

/// The character that starts every fragment [`encode`] writes.
const FORMAT_VERSION: char = '1';

/// Why a fleet does not fit in a link; its message is the notice the page
/// shows beside the fleet it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkTooLong {
    /// The fragment would have `chars` characters, more than `limit`
    /// ([`MOST_LINK_CHARS`]).
    Fragment { chars: usize, limit: usize },
    /// The fleet text has `bytes` bytes, more than `limit`
    /// ([`MOST_TEXT_BYTES`]), which no link may decode to however well it
    /// compresses.
    Text { bytes: usize, limit: usize },
}

impl fmt::Display for LinkTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Fragment { chars, limit } => write!(
                f,
                "this fleet needs a link of {} characters, more than the {} a shared link keeps whole; it stays in this page only",
                count(chars as u64),
                count(limit as u64)
            ),
            Self::Text { bytes, limit } => write!(
                f,
                "this fleet is {} bytes, more than the {} a link may hold; it stays in this page only",
                count(bytes as u64),
                count(limit as u64)
            ),
        }
    }
}

impl std::error::Error for LinkTooLong {}

/// The fragment that carries `text`, without its `#`.
pub fn encode(text: &str) -> Result<String, LinkTooLong> {
    if text.len() > MOST_TEXT_BYTES {
        return Err(LinkTooLong::Text {
            bytes: text.len(),
            limit: MOST_TEXT_BYTES,
        });
    }
    let deflated = compress_to_vec(text.as_bytes(), CompressionLevel::UberCompression as u8);
    let mut fragment = String::with_capacity(1 + deflated.len().div_ceil(3) * 4);
    fragment.push(FORMAT_VERSION);
    URL_SAFE_NO_PAD.encode_string(&deflated, &mut fragment);
    if fragment.len() > MOST_LINK_CHARS {
        return Err(LinkTooLong::Fragment {
            chars: fragment.len(),
            limit: MOST_LINK_CHARS,
        });
    }
    Ok(fragment)
}

/// The fleet text a fragment (without its `#`) carries.
pub fn decode(fragment: &str) -> Result<String, InvalidInput> {
    let refuse = |reason: String| InvalidInput::new("fleet", reason);
    let mut chars = fragment.chars();
    match chars.next() {
        Some(FORMAT_VERSION) => {}
        Some(version) => {
            return Err(refuse(format!(
                "the link's fleet is in format {version:?}, which this version of Stampede does not read (it reads {FORMAT_VERSION:?})"
            )));
        }
        None => return Err(refuse("the link's fleet is empty".into())),
    }
    let deflated = URL_SAFE_NO_PAD
        .decode(chars.as_str())
        .map_err(|error| refuse(base64_reason(error)))?;
    let bytes = inflate(&deflated).map_err(|status| {
        refuse(match status {
            TINFLStatus::HasMoreOutput => format!(
                "the link's fleet inflates to more than {} bytes, the most a link may hold",
                count(MOST_TEXT_BYTES as u64)
            ),
            TINFLStatus::FailedCannotMakeProgress => {
                "the link's fleet ends early; the link may have been cut short".into()
            }
            TINFLStatus::Done => {
                "the link's fleet goes on after its compressed data ends; the link may have been altered".into()
            }
            _ => "the link's fleet is corrupt: it is not valid DEFLATE data".into(),
        })
    })?;
    String::from_utf8(bytes).map_err(|error| {
        refuse(format!(
            "the link's fleet is not UTF-8 text (byte {} is not part of a character)",
            error.utf8_error().valid_up_to() + 1
        ))
    })
}

/// The bytes `deflated` inflates to, or the status that stopped it:
/// `HasMoreOutput` past [`MOST_TEXT_BYTES`], `FailedCannotMakeProgress`
/// when the data ends early, `Done` when bytes follow the end of the data.
///
/// The output buffer doubles up to the limit and no further, so memory
/// stays within [`MOST_TEXT_BYTES`] whatever the data claims.
fn inflate(mut deflated: &[u8]) -> Result<Vec<u8>, TINFLStatus> {
    // Without `TINFL_FLAG_HAS_MORE_INPUT`, running out of input is an error
    // rather than a request for more; the whole buffer is the output
    // window, so matches may reach back to its start.
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut out = vec![0; deflated.len().saturating_mul(4).clamp(64, MOST_TEXT_BYTES)];
    let mut decompressor = Box::<DecompressorOxide>::default();
    let mut filled = 0;
    loop {
        let (status, consumed, written) =
            decompress(&mut decompressor, deflated, &mut out, filled, flags);
        filled += written;
        deflated = deflated.get(consumed..).unwrap_or_default();
        match status {
            TINFLStatus::Done if deflated.is_empty() => {
                out.truncate(filled);
                return Ok(out);
            }
            TINFLStatus::HasMoreOutput if out.len() < MOST_TEXT_BYTES => {
                out.resize(out.len().saturating_mul(2).min(MOST_TEXT_BYTES), 0);
            }
            status => return Err(status),
        }
    }
}

/// What is wrong with a fragment's base64url, by position in the fragment
/// (the version character is position 1).
fn base64_reason(error: base64::DecodeError) -> String {
    use base64::DecodeError;
    let at = |offset: usize| offset + 2;
    match error {
        DecodeError::InvalidByte(offset, byte) if byte.is_ascii_graphic() => format!(
            "the link's fleet holds {:?} at position {}, which base64url does not use",
            byte as char,
            at(offset)
        ),
        DecodeError::InvalidByte(offset, byte) => format!(
            "the link's fleet holds byte 0x{byte:02x} at position {}, which base64url does not use",
            at(offset)
        ),
        DecodeError::InvalidLength(length) => format!(
            "the link's fleet has {length} base64url characters, a count no encoding gives; the link may have been cut short"
        ),
        DecodeError::InvalidLastSymbol(offset, byte) => format!(
            "the link's fleet ends in {:?} at position {}, which no encoding ends in; the link may have been cut short or altered",
            byte as char,
            at(offset)
        ),
        DecodeError::InvalidPadding => {
            "the link's fleet has padding, which base64url here never writes".into()
        }
    }
}
