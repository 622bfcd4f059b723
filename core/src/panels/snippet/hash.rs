//! Hash spread snippets: one id's offset in the window, as another language
//! computes it.
//!
//! Each snippet defines `offset(id)` (a SQL query over a table `tasks`
//! with a column `id`), equal to the panel's offset for the chosen mode,
//! reduction and window W: the same hash of the id's UTF-8 bytes from a
//! well-kept library, or FNV-1a written out, reduced by h mod W or
//! (h·W) >> 32 in 64 bits. Ruby's mode is Ruby's own `Random`, seeded by
//! the rule of [`crate::hash_spread::ruby_seed`]. A language appears only where
//! the chosen function has a library there; the bytewise `head` mode is
//! plain arithmetic, so it is SQL, for ids already in a table, and Python.

use crate::hash_spread::{HashMode, HashSpreadParams, Reduction};

use super::Snippet;

/// The snippets for the Hash spread panel's first function.
pub fn snippets(params: &HashSpreadParams) -> Vec<Snippet> {
    [ruby(params), sql(params), python(params), go(params)]
        .into_iter()
        .flatten()
        .collect()
}

/// The forms of a UUID that the panel reads as one (those of the `uuid`
/// crate's `Uuid::try_parse`: 32 hex digits, hyphenated, braced or
/// `urn:uuid:`), as one regular expression that Ruby, Python and
/// PostgreSQL read alike.
fn uuid_pattern() -> String {
    let hex = |digits: u32| format!("[0-9a-fA-F]{{{digits}}}");
    let hyphenated = [8, 4, 4, 4, 12].map(hex).join("-");
    format!(
        "{}|{hyphenated}|\\{{{hyphenated}\\}}|urn:uuid:{hyphenated}",
        hex(32)
    )
}

/// Ruby's `Random.new(seed).rand(W)`, with the panel's id → seed rule, for
/// Ruby's mode.
fn ruby(params: &HashSpreadParams) -> Option<Snippet> {
    if params.mode != HashMode::Ruby {
        return None;
    }
    let window = params.window;
    let code = format!(
        "UUID = /\\A(?:{})\\z/\n\n\
         # Where id runs in the {window} s window: Random seeded by the id as\n\
         # an integer (a decimal id as such, a UUID's 128 bits, any other id's\n\
         # UTF-8 bytes read big-endian).\n\
         def offset(id)\n  \
         seed =\n    \
         if id.match?(/\\A[0-9]+\\z/) then id.to_i\n    \
         elsif id.match?(UUID) then id.delete_prefix(\"urn:uuid:\").delete(\"{{}}-\").to_i(16)\n    \
         else id.unpack1(\"H*\").to_i(16)\n    \
         end\n  \
         Random.new(seed).rand({window})\n\
         end\n",
        uuid_pattern()
    );
    Some(Snippet::new(
        "ruby",
        "Ruby",
        "ruby",
        code,
        "Seeds a fresh Random per id, as the panel does; the reduction does not apply, \
         rand(W) draws below W itself.",
    ))
}

/// How Python writes h reduced below `window`.
fn python_reduce(reduction: Reduction, window: u32) -> String {
    match reduction {
        Reduction::Mod => format!("h % {window}"),
        Reduction::MulShift => format!("(h * {window}) >> 32"),
    }
}

/// The chosen hash in Python, from its PyPI package or written out; none
/// for Ruby's mode.
fn python(params: &HashSpreadParams) -> Option<Snippet> {
    let (prelude, hash, title, library) = match params.mode {
        HashMode::Farm => (
            "import farmhash\n".to_string(),
            "farmhash.fingerprint32(id.encode())".to_string(),
            "Python (pyfarmhash)",
            "pyfarmhash's fingerprint32, FarmHash Fingerprint32",
        ),
        HashMode::Murmur => (
            "import mmh3\n".into(),
            "mmh3.hash(id.encode(), seed=0, signed=False)".into(),
            "Python (mmh3)",
            "mmh3's MurmurHash3_x86_32 with seed 0, unsigned",
        ),
        HashMode::Xxh => (
            "import xxhash\n".into(),
            "xxhash.xxh32_intdigest(id.encode())".into(),
            "Python (xxhash)",
            "the xxhash package's XXH32 with seed 0",
        ),
        HashMode::Fnv => (
            "def fnv1a_32(data: bytes) -> int:\n    \
             h = 2166136261\n    \
             for byte in data:\n        \
             h = ((h ^ byte) * 16777619) % 2**32\n    \
             return h\n"
                .into(),
            "fnv1a_32(id.encode())".into(),
            "Python",
            "FNV-1a 32 written out",
        ),
        HashMode::Head => (
            format!(
                "import re\nimport uuid\n\nUUID = re.compile(r\"{}\")\n\n\
                 def head32(id: str) -> int:\n    \
                 if UUID.fullmatch(id):\n        \
                 head = uuid.UUID(id).bytes[:4]\n    \
                 else:\n        \
                 head = id.encode()[:4].ljust(4, b\"\\0\")\n    \
                 return int.from_bytes(head, \"big\")\n",
                uuid_pattern()
            ),
            "head32(id)".into(),
            "Python",
            "the id's first four bytes (a UUID's own, else its UTF-8 bytes, zero-padded) \
             read big-endian",
        ),
        HashMode::Ruby => return None,
    };
    let window = params.window;
    let code = format!(
        "{prelude}\n\
         def offset(id: str) -> int:\n    \
         \"\"\"Where id runs in the {window} s window.\"\"\"\n    \
         h = {hash}\n    \
         return {}\n",
        python_reduce(params.reduction, window)
    );
    Some(Snippet::new(
        "python",
        title,
        "python",
        code,
        format!("Hashes the id's UTF-8 bytes with {library}, then reduces it as the panel does."),
    ))
}

/// The chosen hash in Go, from the package that computes it; none for the
/// modes without one.
fn go(params: &HashSpreadParams) -> Option<Snippet> {
    let (import, hash, title) = match params.mode {
        HashMode::Farm => (
            "github.com/dgryski/go-farm",
            "h := farm.Fingerprint32([]byte(id))",
            "Go (go-farm)",
        ),
        HashMode::Murmur => (
            "github.com/spaolacci/murmur3",
            "h := murmur3.Sum32([]byte(id))",
            "Go (murmur3)",
        ),
        HashMode::Xxh => (
            "github.com/pierrec/xxHash/xxHash32",
            "h := xxHash32.Checksum([]byte(id), 0)",
            "Go (xxHash32)",
        ),
        HashMode::Fnv => (
            "hash/fnv",
            "fnv32a := fnv.New32a()\n\tfnv32a.Write([]byte(id))\n\th := fnv32a.Sum32()",
            "Go (hash/fnv)",
        ),
        HashMode::Ruby | HashMode::Head => return None,
    };
    let window = params.window;
    let reduced = match params.reduction {
        Reduction::Mod => format!("h % {window}"),
        Reduction::MulShift => format!("uint32((uint64(h) * {window}) >> 32)"),
    };
    let code = format!(
        "import \"{import}\"\n\n\
         // offset is where id runs in the {window} s window.\n\
         func offset(id string) uint32 {{\n\t\
         {hash}\n\t\
         return {reduced}\n\
         }}\n"
    );
    Some(Snippet::new(
        "go",
        title,
        "go",
        code,
        format!("Hashes the id's UTF-8 bytes with {import}, then reduces it as the panel does."),
    ))
}

/// PostgreSQL over a table `tasks` with a text or uuid column `id`, for
/// the `head` mode.
fn sql(params: &HashSpreadParams) -> Option<Snippet> {
    if params.mode != HashMode::Head {
        return None;
    }
    let window = params.window;
    let reduced = match params.reduction {
        Reduction::Mod => format!("head % {window}"),
        Reduction::MulShift => format!("(head * {window}) >> 32"),
    };
    let code = format!(
        "-- Where each id runs in the {window} s window: its first four bytes\n\
         -- (a UUID's own, else its UTF-8 bytes, zero-padded) as an integer.\n\
         SELECT id, {reduced} AS offset_seconds\n\
         FROM (\n  \
         SELECT id, (CASE\n    \
         WHEN id::text ~ '^({})$'\n      \
         THEN 'x' || substring(id::text from '[0-9a-fA-F]{{8}}')\n    \
         ELSE 'x' || rpad(encode(substring(convert_to(id::text, 'UTF8') from 1 for 4), 'hex'), 8, '0')\n  \
         END)::bit(32)::bigint AS head\n  \
         FROM tasks\n\
         ) AS heads;\n",
        uuid_pattern()
    );
    Some(Snippet::new(
        "sql",
        "PostgreSQL",
        "sql",
        code,
        "Reads each id's first four bytes as the panel does, a uuid column's included \
         (it reads as hyphenated text); bigint holds h·W without overflow.",
    ))
}
