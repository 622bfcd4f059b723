use proptest::prelude::*;
use stampede_core::keys::{
    KeyKind, MAX_ID_CHARS, MAX_KEYS, MAX_PASTED_IDS, UUID_V7_MAX_STEP_MS, UUID_V7_START_MS,
    generate, parse_pasted, uuid_bytes,
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
fn pasted_ids_are_trimmed_split_and_kept_once() {
    let text = "  42 \r\n\n1337,9001 ,, 42\n\tuser@example.com\t\n";
    assert_eq!(
        parse_pasted(text).unwrap(),
        ["42", "1337", "9001", "user@example.com"]
    );
    assert!(parse_pasted("").unwrap().is_empty());
    assert!(parse_pasted(" \n , \r\n").unwrap().is_empty());
}

#[test]
fn pasted_ids_over_the_limits_are_refused_naming_the_field() {
    let longest = "x".repeat(MAX_ID_CHARS);
    assert_eq!(parse_pasted(&longest).unwrap(), [longest.as_str()]);
    let error = parse_pasted(&format!("1\n{longest}y\n2")).unwrap_err();
    assert_eq!(error.field, "ids");
    assert!(error.reason.contains("256 characters"), "{}", error.reason);
    // Characters, not bytes: 256 emoji are allowed.
    assert!(parse_pasted(&"😀".repeat(MAX_ID_CHARS)).is_ok());

    let many: String = (0..MAX_PASTED_IDS).map(|i| format!("{i}\n")).collect();
    assert_eq!(parse_pasted(&many).unwrap().len(), MAX_PASTED_IDS as usize);
    let error = parse_pasted(&format!("{many}one more")).unwrap_err();
    assert_eq!(error.field, "ids");
    assert!(error.reason.contains("100000"), "{}", error.reason);
    // Repeats do not count against the limit.
    assert!(parse_pasted(&format!("{many}{many}")).is_ok());
}

proptest! {
    #[test]
    fn any_pasted_text_gives_ids_or_an_error_never_a_panic(text in "(?s).{0,400}") {
        match parse_pasted(&text) {
            Ok(ids) => {
                for id in &ids {
                    prop_assert!(!id.is_empty());
                    prop_assert_eq!(id.trim(), id.as_str());
                    prop_assert!(!id.contains([',', '\n', '\r']));
                }
            }
            Err(error) => prop_assert_eq!(error.field, "ids"),
        }
    }
}
