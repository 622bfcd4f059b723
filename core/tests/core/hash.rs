use stampede_core::hash::{farm_fingerprint32, fnv1a_32, fnv1a_32_lanes, murmur3_x86_32, xxh32};

/// Reference hashes of a few hundred keys; the header says how they were made.
const VECTORS: &str = include_str!("../data/hash_vectors.tsv");

struct Row {
    kind: String,
    key: Vec<u8>,
    farm: u32,
    murmur: u32,
    xxh: u32,
    fnv: u32,
}

fn rows() -> Vec<Row> {
    let mut lines = VECTORS.lines().filter(|line| !line.starts_with('#'));
    assert_eq!(lines.next(), Some("kind\tkey_hex\tfarm\tmurmur\txxh\tfnv"));
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            let hex = cells[1];
            let key = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let number = |i: usize| cells[i].parse::<u32>().unwrap();
            Row {
                kind: cells[0].to_string(),
                key,
                farm: number(2),
                murmur: number(3),
                xxh: number(4),
                fnv: number(5),
            }
        })
        .collect()
}

#[test]
fn the_vectors_cover_every_kind_of_key() {
    let rows = rows();
    assert!(rows.len() >= 280, "{} rows", rows.len());
    for kind in [
        "empty",
        "1-byte",
        "ascii-len",
        "non-ascii",
        "long",
        "seq",
        "uuid4",
        "uuid7",
        "email",
    ] {
        assert!(rows.iter().any(|row| row.kind == kind), "no {kind} keys");
    }
    assert!(rows.iter().any(|row| row.key.len() > 1024));
    // Every branch of FarmHash's length cases, on both sides of each boundary.
    for length in [0, 1, 4, 5, 12, 13, 24, 25, 44, 45] {
        assert!(
            rows.iter().any(|row| row.key.len() == length),
            "no key of {length} bytes"
        );
    }
}

#[test]
fn every_hash_equals_its_reference_on_every_key() {
    for row in rows() {
        let shown = String::from_utf8_lossy(&row.key);
        let shown: String = shown.chars().take(40).collect();
        assert_eq!(farm_fingerprint32(&row.key), row.farm, "farm {shown:?}");
        assert_eq!(murmur3_x86_32(&row.key), row.murmur, "murmur {shown:?}");
        assert_eq!(xxh32(&row.key), row.xxh, "xxh {shown:?}");
        assert_eq!(fnv1a_32(&row.key), row.fnv, "fnv {shown:?}");
    }
}

#[test]
fn fnv1a_in_lanes_equals_fnv1a_key_by_key() {
    // Neighbouring rows differ in length, so the lanes part at every point.
    let rows = rows();
    for group in rows.chunks_exact(4) {
        let inputs = std::array::from_fn(|lane| &group[lane].key[..]);
        let expected = std::array::from_fn(|lane| group[lane].fnv);
        assert_eq!(fnv1a_32_lanes::<4>(inputs), expected);
    }
    assert_eq!(fnv1a_32_lanes::<2>([b"", b"a"]), [0x811c_9dc5, 0xe40c_292c]);
    assert_eq!(fnv1a_32_lanes::<0>([]), []);
}

#[test]
fn farmhash_matches_the_golden_values_generated_from_the_cpp_code() {
    // From the golden32 table of dgryski/go-farm's farm_test.go, which its
    // author generated from Google's C++ FarmHash (Hash32 = farmhashmk).
    let golden: [(u32, &str); 12] = [
        (0x3c97_3d4d, "a"),
        (0x4173_30fd, "ab"),
        (0x2f63_5ec7, "abc"),
        (0x98b5_1e95, "abcd"),
        (0xa3f3_66ac, "abcde"),
        (0x0f81_3aa4, "abcdef"),
        (0xf266_9361, "abcdefghij"),
        (0xe273_108f, "Discard medicine more than two years old."),
        (0x3229_84d9, "Nepal premier won't resign."),
        (0x2216_94e4, "C is as portable as Stonehedge!!"),
        (
            0x11c4_93bb,
            "The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole fraction.  Lewis-Randall Rule",
        ),
        (
            0x0819_a4e8,
            "How can you write a big system without C++?  -Paul Glick",
        ),
    ];
    for (expected, text) in golden {
        assert_eq!(farm_fingerprint32(text.as_bytes()), expected, "{text:?}");
    }
    // The empty key, from go-farm's hash32 test data.
    assert_eq!(farm_fingerprint32(b""), 0xdc56_d17a);
}

#[test]
fn farmhash_sign_extends_short_non_ascii_keys_as_the_reference_does() {
    // Bytes from 0x80 enter the 0-4 byte case sign-extended; an unsigned
    // reading gives 1161978408 for "é" instead. Values from pyfarmhash.
    assert_eq!(farm_fingerprint32("é".as_bytes()), 1_973_972_843);
    assert_eq!(farm_fingerprint32("€".as_bytes()), 848_185_013);
    assert_eq!(farm_fingerprint32("😀".as_bytes()), 1_664_697_074);
}

#[test]
fn murmur3_matches_the_published_seed_zero_vectors() {
    // The widely circulated MurmurHash3_x86_32 test vectors with seed 0.
    assert_eq!(murmur3_x86_32(b""), 0);
    assert_eq!(murmur3_x86_32(&[0, 0, 0, 0]), 0x2362_f9de);
    assert_eq!(murmur3_x86_32(b"abc"), 0xb3dd_93fa);
    assert_eq!(
        murmur3_x86_32(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        0xee92_5b90
    );
}

#[test]
fn xxh32_matches_the_published_vectors() {
    // The empty input is xxHash's own sanity value; the sentence is the
    // example of the python-xxhash README.
    assert_eq!(xxh32(b""), 0x02cc_5d05);
    assert_eq!(xxh32(b"a"), 0x550d_7456);
    assert_eq!(xxh32(b"abc"), 0x32d1_53ff);
    assert_eq!(
        xxh32(b"Nobody inspects the spammish repetition"),
        0xe229_3b2f
    );
}

#[test]
fn fnv1a_matches_the_published_vectors() {
    // From the FNV test suite: the offset basis for the empty input.
    assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
    assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
    assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
}
