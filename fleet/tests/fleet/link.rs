use std::time::{Duration, Instant};

use proptest::prelude::*;
use stampede_fleet::link::{LinkTooLong, MOST_LINK_CHARS, MOST_TEXT_BYTES, decode, encode};

fn round_trip(text: &str) {
    let fragment = encode(text).unwrap();
    assert!(
        fragment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{fragment}"
    );
    assert_eq!(decode(&fragment).unwrap(), text);
}

#[test]
fn texts_round_trip() {
    round_trip("");
    round_trip("cron\tnächtliche Sicherung 🌙\t30 2 * * *\n");
    round_trip("systemd\t日次/レポート\tMon..Fri 08:00\tDuration=5m\n");
    round_trip("cron\tbackup\t30 2 * * *\tDuration=1h30m\tWeight=2\n\t\t\n");
    round_trip("cron\tone\t0 * * * *\r\ncron\ttwo\t15 * * * *\r\n");
    round_trip(
        "SHELL=/bin/sh\nMAILTO=ops@example.com\n# m h dom mon dow command\n\
         */5 * * * * /usr/local/bin/poll >/dev/null 2>&1\n\
         0 3 * * 0 /usr/sbin/logrotate /etc/logrotate.conf\n",
    );
}

/// A crontab of `lines` lines as a team grows one: varied minutes, hours
/// and days, a few dozen commands, each with its own account or shard.
fn crontab(lines: usize) -> String {
    const COMMANDS: [&str; 12] = [
        "/usr/local/bin/sync --account",
        "/opt/billing/bin/invoice-run --tenant",
        "/usr/bin/php /var/www/app/artisan reports:send --team",
        "/home/deploy/scripts/backup-db.sh --shard",
        "cd /srv/etl && ./bin/load --source crm --batch",
        "/usr/local/bin/cleanup-tmp --older-than 7d --bucket",
        "curl -fsS -m 30 https://hc-ping.com/check/",
        "/usr/bin/python3 /opt/metrics/rollup.py --window 1h --region",
        "/usr/local/bin/certbot-renew --domain-group",
        "/usr/bin/rsync -a /data/exports/ backup@archive:/exports/",
        "/opt/search/bin/reindex --collection",
        "/usr/local/bin/mailqueue-flush --queue",
    ];
    const TAILS: [&str; 4] = [
        " >/dev/null 2>&1",
        " >> /var/log/cron-jobs.log 2>&1",
        "",
        " 2>&1 | logger -t cron",
    ];
    // A fixed linear congruential walk, so every machine builds the same fleet.
    let mut state: u64 = 0x5eed;
    let mut next = |below: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % below
    };
    let mut text = String::from("SHELL=/bin/bash\nMAILTO=ops@example.com\n");
    for _ in 0..lines {
        let minute = next(60);
        let schedule = match next(6) {
            0 => format!("{minute} * * * *"),
            1 => format!("*/{} * * * *", [5, 10, 15, 30][next(4) as usize]),
            2 => format!("{minute} {} * * *", next(24)),
            3 => format!("{minute} {} * * 1-5", next(24)),
            4 => format!("{minute} {},{} * * *", next(12), 12 + next(12)),
            _ => format!("{minute} {} {} * *", next(24), 1 + next(28)),
        };
        let command = COMMANDS[next(COMMANDS.len() as u64) as usize];
        let tail = TAILS[next(TAILS.len() as u64) as usize];
        text.push_str(&format!(
            "{schedule} {command} {}{tail}\n",
            1000 + next(9000)
        ));
    }
    text
}

#[test]
fn a_fleet_of_300_lines_fits_in_a_link() {
    let fleet = crontab(300);
    let fragment = encode(&fleet).unwrap();
    println!(
        "300 lines, {} bytes of text: {} characters of fragment (limit {MOST_LINK_CHARS})",
        fleet.len(),
        fragment.len()
    );
    // A fifth to spare, for fleets a little longer or less repetitive.
    assert!(
        fragment.len() * 5 <= MOST_LINK_CHARS * 4,
        "{}",
        fragment.len()
    );
    assert_eq!(decode(&fragment).unwrap(), fleet);
}

#[test]
fn a_fleet_of_3000_lines_is_refused_with_both_numbers() {
    let fleet = crontab(3000);
    let refusal = encode(&fleet).unwrap_err();
    let LinkTooLong::Fragment { chars, limit } = refusal else {
        panic!("{refusal:?}");
    };
    assert_eq!(limit, MOST_LINK_CHARS);
    assert!(chars > limit);
    let message = refusal.to_string();
    for number in [chars, limit] {
        let shown = stampede_core::units::count(number as u64);
        assert!(message.contains(&shown), "{message} lacks {shown}");
    }
}

#[test]
fn text_no_link_could_decode_is_refused_before_compressing() {
    let fleet = "0 * * * * true\n".repeat(MOST_TEXT_BYTES / 15 + 1);
    assert_eq!(
        encode(&fleet),
        Err(LinkTooLong::Text {
            bytes: fleet.len(),
            limit: MOST_TEXT_BYTES
        })
    );
    let most = "x".repeat(MOST_TEXT_BYTES);
    assert_eq!(decode(&encode(&most).unwrap()).unwrap(), most);
}

/// One fixed fleet and its fragment as miniz_oxide 0.9.1 and base64 0.22.1
/// write it. Links already shared must keep opening whatever the crates
/// become, so `decode` of the golden is the hard check; the exact bytes
/// `encode` writes hold for these crate versions and may change with
/// miniz_oxide's compressor, so a failure of that assertion alone means the
/// golden wants rewriting, not that a link broke.
#[test]
fn a_fixed_fleet_has_a_fixed_fragment() {
    const FLEET: &str = "cron\tnightly backup\t30 2 * * *\tDuration=1h30m\n\
                         jenkins\tci/build-🚀\tH H(0-7) * * 1-5\n\
                         systemd\treports/daily\tMon..Fri 08:00\tRandomizedDelaySec=10m\n";
    const GOLDEN: &str = "1Hc0_DoIwFIDx-XGKjmoCFInRmLARw-KiJyhtI0_KK-mfoU6ew8UregSVfPOXn3SWgPA2BJNYL-QYZ6g527LNP2ijEwEtNdVQ8ym7axqRPEgs-4hG5Z_36wkd61Y836-Xp8p3mU8-6EmB07N1wZdKoElwtlQUJ4eMH46cw0WQshM-tGq1EemqZVP9iC8";
    assert_eq!(decode(GOLDEN).unwrap(), FLEET);
    assert_eq!(encode(FLEET).unwrap(), GOLDEN);
}

fn refusal(fragment: &str) -> String {
    let error = decode(fragment).unwrap_err();
    assert_eq!(error.field, "fleet");
    error.reason
}

#[test]
fn malformed_fragments_are_refused_by_name() {
    let good = encode("cron\tbackup\t30 2 * * *\n").unwrap();
    assert!(refusal("").contains("empty"));
    assert!(refusal(&format!("2{}", &good[1..])).contains("format '2'"));
    assert!(refusal(&format!("{good}!")).contains("'!' at position"));
    assert!(refusal(&format!("{good}é")).contains("byte 0xc3"));
    assert!(refusal(&format!("{good}=")).contains("padding"));
    assert!(refusal(&good[..good.len() - 2]).contains("ends early"));
    assert!(refusal(&good[..good.len() - 1]).contains("cut short"));
    assert!(refusal(&format!("{good}AAAA")).contains("goes on after"));
    // A block type DEFLATE does not have (0b11).
    assert!(refusal(&format!("1{}", b64(&[0b0000_0111]))).contains("corrupt"));
    // A stored block of two bytes, 0xff 0xfe, which no UTF-8 text holds.
    let stored = [0b0000_0001, 2, 0, !2, !0, 0xff, 0xfe];
    assert!(refusal(&format!("1{}", b64(&stored))).contains("not UTF-8"));
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Bits packed as DEFLATE packs them, from the low bit of each byte.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    pending: u64,
    filled: u32,
}

impl Bits {
    fn put(&mut self, value: u64, bits: u32) {
        self.pending |= value << self.filled;
        self.filled += bits;
        while self.filled >= 8 {
            self.bytes.push(self.pending as u8);
            self.pending >>= 8;
            self.filled -= 8;
        }
    }

    /// A Huffman code, which DEFLATE writes most significant bit first.
    fn put_code(&mut self, code: u64, bits: u32) {
        self.put(code.reverse_bits() >> (64 - bits), bits);
    }

    fn finish(mut self) -> Vec<u8> {
        self.put(0, 7);
        self.bytes
    }
}

/// Raw DEFLATE of `bytes` zeros (one more than a multiple of 258) in one
/// fixed-Huffman block: a literal zero, then matches of 258 at distance
/// 1, 13 bits each, so 100 MB takes 630 KB.
fn zero_bomb(bytes: usize) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(1, 1); // the final block
    bits.put(0b01, 2); // fixed Huffman codes
    bits.put_code(0b0011_0000, 8); // literal 0
    for _ in 0..(bytes - 1) / 258 {
        bits.put_code(0b1100_0101, 8); // length 258
        bits.put_code(0, 5); // distance 1
    }
    bits.put_code(0, 7); // end of block
    bits.finish()
}

#[test]
fn a_bomb_is_refused_quickly_at_the_size_limit() {
    let bomb = format!("1{}", b64(&zero_bomb(100_000_000)));
    let began = Instant::now();
    let reason = refusal(&bomb);
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    let limit = stampede_core::units::count(MOST_TEXT_BYTES as u64);
    assert!(reason.contains(&limit), "{reason}");
    // The same stream, small enough, inflates to its zeros.
    let small = format!("1{}", b64(&zero_bomb(1 + 258 * 100)));
    assert_eq!(decode(&small).unwrap(), "\0".repeat(1 + 258 * 100));
}

proptest! {
    #[test]
    fn any_string_decodes_or_is_refused(text in ".*") {
        let _ = decode(&text);
        let _ = decode(&format!("1{text}"));
    }

    #[test]
    fn any_bytes_after_the_version_decode_or_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Err(error) = decode(&format!("1{}", b64(&bytes))) {
            prop_assert_eq!(error.field, "fleet");
        }
    }

    #[test]
    fn any_text_round_trips(text in "\\PC{0,400}") {
        prop_assert_eq!(decode(&encode(&text).unwrap()).unwrap(), text);
    }
}
