use proptest::prelude::*;
use stampede_core::keys::{
    KeyKind, MAX_ID_CHARS, MAX_KEYS, MAX_PASTED_IDS, UUID_V7_MAX_STEP_MS, UUID_V7_START_MS,
    generate, read_pasted, uuid_bytes,
};

fn bytes_of(key: &str) -> [u8; 16] {
    uuid_bytes(key).unwrap_or_else(|| panic!("{key} is not a UUID"))
}

/// The 48-bit big-endian millisecond count at the front of a UUIDv7.
fn unix_ms(bytes: &[u8; 16]) -> u64 {
    bytes[..6]
        .iter()
        .fold(0u64, |ms, &byte| ms << 8 | u64::from(byte))
}

#[test]
fn sequential_and_email_keys_count_from_one() {
    assert_eq!(
        generate(KeyKind::Sequential, 3, 9).unwrap(),
        ["1", "2", "3"]
    );
    let emails = generate(KeyKind::Email, 1_000, 9).unwrap();
    assert_eq!(emails[0], "user1@example.com");
    assert_eq!(emails[999], "user1000@example.com");
    assert!(generate(KeyKind::Email, 0, 9).unwrap().is_empty());
}

#[test]
fn uuid_keys_draw_the_same_bytes_on_every_machine() {
    // The first keys of seed 1: a change here changes every shared link.
    assert_eq!(
        generate(KeyKind::UuidV4, 2, 1).unwrap(),
        [
            "32f69a31-a678-4bfc-b1d4-b5b2f45a180b",
            "fb01cae9-e713-4f02-9c99-c6d216b19005",
        ]
    );
    assert_eq!(
        generate(KeyKind::UuidV7, 2, 1).unwrap(),
        [
            "019b76da-ab3e-7866-866f-136d380a4712",
            "019b76da-ac7d-7701-a66a-d84ae1176239",
        ]
    );
}

#[test]
fn uuid_v4_keys_carry_version_4_and_the_rfc_variant() {
    let keys = generate(KeyKind::UuidV4, 2_000, 3).unwrap();
    for key in &keys {
        assert_eq!(key.len(), 36);
        assert_eq!(key, &key.to_lowercase());
        let bytes = bytes_of(key);
        assert_eq!(bytes[6] >> 4, 4, "{key}");
        assert_eq!(bytes[8] >> 6, 0b10, "{key}");
    }
    let mut distinct = keys.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), keys.len());
}

#[test]
fn uuid_v4_random_bits_are_balanced() {
    // 122 random bits over 10,000 keys: each bit's count of ones is
    // Binomial(10^4, 1/2) with sd 50, so 5 sd (250) is a bound that a
    // working generator breaks with probability about 1e-4 over all bits,
    // while a stuck or repeated byte breaks it by thousands.
    let keys = generate(KeyKind::UuidV4, 10_000, 4).unwrap();
    let mut ones = [0u32; 128];
    for key in &keys {
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += u32::from(bytes_of(key)[bit / 8] >> (7 - bit % 8) & 1);
        }
    }
    let fixed_bits = [48, 49, 50, 51, 64, 65];
    for (bit, &count) in ones.iter().enumerate() {
        if !fixed_bits.contains(&bit) {
            assert!((4_750..=5_250).contains(&count), "bit {bit}: {count}");
        }
    }
}

#[test]
fn uuid_v7_clocks_rise_from_the_documented_start_in_seeded_steps() {
    let keys = generate(KeyKind::UuidV7, 5_000, 5).unwrap();
    let mut previous = UUID_V7_START_MS;
    let mut steps = Vec::new();
    for key in &keys {
        let bytes = bytes_of(key);
        assert_eq!(bytes[6] >> 4, 7, "{key}");
        assert_eq!(bytes[8] >> 6, 0b10, "{key}");
        let ms = unix_ms(&bytes);
        let step = ms - previous;
        assert!((1..=u64::from(UUID_V7_MAX_STEP_MS)).contains(&step));
        steps.push(step);
        previous = ms;
    }
    // Time-ordered: text order is creation order.
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
    // Steps are uniform on 1..=1000: mean 500.5, sd of the mean of 5,000
    // steps about 4, so ±25 is six standard errors.
    let mean = steps.iter().sum::<u64>() as f64 / steps.len() as f64;
    assert!((mean - 500.5).abs() < 25.0, "{mean}");
}

#[test]
fn a_longer_run_starts_with_the_keys_of_a_shorter_one() {
    for &kind in KeyKind::ALL {
        let short = generate(kind, 100, 11).unwrap();
        let long = generate(kind, 130, 11).unwrap();
        assert_eq!(short[..], long[..100], "{kind:?}");
        assert_eq!(short, generate(kind, 100, 11).unwrap(), "{kind:?}");
    }
    assert_ne!(
        generate(KeyKind::UuidV4, 5, 11).unwrap(),
        generate(KeyKind::UuidV4, 5, 12).unwrap()
    );
}

#[test]
fn generating_too_many_keys_is_refused() {
    let error = generate(KeyKind::Sequential, MAX_KEYS + 1, 1).unwrap_err();
    assert_eq!(error.field, "keys");
}

#[test]
fn uuid_bytes_reads_every_usual_form_and_nothing_else() {
    let expected = [
        0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40,
        0x00,
    ];
    for form in [
        "123e4567-e89b-12d3-a456-426614174000",
        "123E4567-E89B-12D3-A456-426614174000",
        "123e4567e89b12d3a456426614174000",
        "{123e4567-e89b-12d3-a456-426614174000}",
        "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
    ] {
        assert_eq!(uuid_bytes(form), Some(expected), "{form}");
    }
    for not_a_uuid in [
        "",
        "42",
        "user1@example.com",
        "123e4567-e89b-12d3-a456-42661417400g",
        " 123e4567-e89b-12d3-a456-426614174000",
    ] {
        assert_eq!(uuid_bytes(not_a_uuid), None, "{not_a_uuid}");
    }
}

#[test]
fn pasted_ids_split_on_newlines_commas_tabs_and_spaces_alike() {
    let text = "  42 \r\n\n1337,9001 ,, 7\tuser@example.com\t\n a\u{a0}b";
    let read = read_pasted(text);
    assert_eq!(
        read.ids,
        ["42", "1337", "9001", "7", "user@example.com", "a", "b"]
    );
    assert_eq!(read.dropped(), 0);
    assert_eq!(read.summary(), "7 ids read");
    assert!(read_pasted("").ids.is_empty());
    assert_eq!(read_pasted(" \n , \r\n\t").summary(), "0 ids read");
    assert_eq!(read_pasted("x").summary(), "1 id read");
}

#[test]
fn a_spreadsheet_column_of_2000_ids_reads_as_2000() {
    let column: String = (1..=2_000).map(|i| format!("{i}\r\n")).collect();
    let read = read_pasted(&column);
    assert_eq!(read.ids.len(), 2_000);
    assert_eq!(read.ids[1_999], "2000");
    assert_eq!(read.summary(), "2,000 ids read");
}

#[test]
fn dropped_ids_are_counted_by_reason_with_the_first_of_each() {
    let long = "y".repeat(MAX_ID_CHARS + 1);
    let read = read_pasted(&format!("42 7 42,{long}\n7\n42\n8"));
    assert_eq!(read.ids, ["42", "7", "8"]);
    assert_eq!(
        (read.repeated.count, read.repeated.first.as_deref()),
        (3, Some("42"))
    );
    assert_eq!(read.too_long.count, 1);
    assert_eq!(read.dropped(), 4);
    assert_eq!(
        read.summary(),
        format!(
            "3 ids read, 4 dropped: 3 repeated (first \"42\"), \
             1 longer than 256 characters (first \"{}…\")",
            "y".repeat(24)
        )
    );
    // Characters, not bytes: 256 emoji make one id.
    assert_eq!(read_pasted(&"😀".repeat(MAX_ID_CHARS)).ids.len(), 1);
    assert_eq!(read_pasted(&"x".repeat(MAX_ID_CHARS)).ids.len(), 1);
}

#[test]
fn ids_past_the_limit_are_dropped_and_counted_not_refused() {
    let many: String = (0..MAX_PASTED_IDS).map(|i| format!("{i}\n")).collect();
    assert_eq!(read_pasted(&many).ids.len(), MAX_PASTED_IDS as usize);
    let read = read_pasted(&format!("{many}one more\n5"));
    assert_eq!(read.ids.len(), MAX_PASTED_IDS as usize);
    assert_eq!(
        read.summary(),
        "100,000 ids read, 3 dropped: 1 repeated (first \"5\"), \
         2 past the limit of 100,000 ids (first \"one\")"
    );
    // Repeats do not count against the limit.
    assert_eq!(read_pasted(&format!("{many}{many}")).past_limit.count, 0);
}

proptest! {
    #[test]
    fn any_pasted_text_reads_without_a_panic(text in "(?s).{0,400}") {
        let read = read_pasted(&text);
        for id in &read.ids {
            prop_assert!(!id.is_empty());
            prop_assert!(!id.contains(|c: char| c == ',' || c.is_whitespace()));
        }
        let pieces = text.split(|c: char| c == ',' || c.is_whitespace()).filter(|p| !p.is_empty()).count();
        prop_assert_eq!(read.ids.len() as u64 + read.dropped(), pieces as u64);
    }
}
