//! Decimal text to `f64`, exactly as `str::parse::<f64>` reads it, without
//! the standard library's 10 KB table of powers of five.
//!
//! The standard parser's fast algorithm (Eisel–Lemire) looks up a 128-bit
//! power of five for every decimal exponent; that table does not compress
//! and alone weighs about 9 KB of the docs module's gzipped wasm, while the
//! codec parses a few numbers per URL, so speed does not matter here.
//!
//! This parser gives the same, correctly rounded result by two routes. Up
//! to 15 significant digits and a decimal exponent within ±22, the digits
//! and the power of ten are both exact doubles, so one IEEE multiplication
//! or division rounds correctly (Clinger's fast path). Otherwise the value
//! D·10^e is computed exactly with big integers: D·5^e·2^e for e ≥ 0, and
//! for e < 0 the quotient D·2^s / 5^−e to 65 or 66 bits, the remainder kept
//! as a sticky bit; either is then rounded to 53 bits (fewer below the
//! normal range), ties to even.
//!
//! Digits past the 800th are replaced by a single nonzero digit when any
//! of them is nonzero: a point where rounding changes (a double, or a tie
//! between two) has at most 767 significant digits, so it cannot lie
//! between the kept digits and the next 800-digit number, and the rounding
//! is the same as for the full text.

/// Significant digits kept; see the module text.
const KEPT_DIGITS: usize = 800;

/// `text` as `text.parse::<f64>()` reads it, when that is finite; `None`
/// for text it refuses, and for infinity and NaN.
pub fn parse_finite(text: &str) -> Option<f64> {
    let (negative, body) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    let (digits, exponent) = significand(body)?;
    let magnitude = if digits.is_empty() {
        0.0
    } else {
        magnitude(&digits, exponent)?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The significant digits (no leading zeros) and the decimal exponent of
/// their last one, or `None` when `body` is not a decimal number.
fn significand(body: &[u8]) -> Option<(Vec<u8>, i64)> {
    let mut digits = Vec::new();
    let mut exponent: i64 = 0;
    let mut seen_digit = false;
    let mut dropped_nonzero = false;
    let mut in_fraction = false;
    let mut rest = body;
    while let [first, tail @ ..] = rest {
        match first {
            b'0'..=b'9' => {
                seen_digit = true;
                let digit = first - b'0';
                if digits.is_empty() && digit == 0 {
                    // A leading zero scales only when it follows the point.
                    exponent -= i64::from(in_fraction);
                } else if digits.len() < KEPT_DIGITS {
                    digits.push(digit);
                    exponent -= i64::from(in_fraction);
                } else {
                    dropped_nonzero |= digit != 0;
                    exponent += i64::from(!in_fraction);
                }
            }
            b'.' if !in_fraction => in_fraction = true,
            _ => break,
        }
        rest = tail;
    }
    if !seen_digit {
        return None;
    }
    if let [b'e' | b'E', tail @ ..] = rest {
        let (negative, tail) = match tail {
            [b'-', more @ ..] => (true, more),
            [b'+', more @ ..] => (false, more),
            more => (false, more),
        };
        if tail.is_empty() || !tail.iter().all(u8::is_ascii_digit) {
            return None;
        }
        // Far beyond any double's range either way, and safe to add.
        let written = tail.iter().fold(0i64, |value, &digit| {
            (value * 10 + i64::from(digit - b'0')).min(1 << 40)
        });
        exponent += if negative { -written } else { written };
    } else if !rest.is_empty() {
        return None;
    }
    if dropped_nonzero {
        digits.push(1);
        exponent -= 1;
    }
    Some((digits, exponent))
}

/// D·10^exponent for the digits of D (at least one, the first nonzero), or
/// `None` when it overflows.
fn magnitude(digits: &[u8], exponent: i64) -> Option<f64> {
    // The value lies in [10^(top − 1), 10^top).
    let top = digits.len() as i64 + exponent;
    if top > 310 {
        return None;
    }
    if top < -324 {
        // Below 10^−325, under half the least subnormal.
        return Some(0.0);
    }
    if digits.len() <= 15 && (-22..=22).contains(&exponent) {
        let whole = digits
            .iter()
            .fold(0.0, |d, &digit| d * 10.0 + f64::from(digit));
        // Every power of ten up to 10^22 is an exact double.
        let power = (0..exponent.abs()).fold(1.0, |p, _| p * 10.0);
        return Some(if exponent < 0 {
            whole / power
        } else {
            whole * power
        });
    }
    let mut whole = Big::default();
    for &digit in digits {
        whole.mul_add(10, u32::from(digit));
    }
    // |exponent| < 1,200 from the bounds above.
    let five_power = exponent.unsigned_abs() as u32;
    if exponent >= 0 {
        for _ in 0..five_power {
            whole.mul_add(5, 0);
        }
        let shift = i64::from(whole.bits()) - 66;
        let sticky = whole.low_bits_nonzero(shift.max(0) as u32);
        round(whole.top(shift), shift + exponent, sticky)
    } else {
        let mut divisor = Big::from(1);
        for _ in 0..five_power {
            divisor.mul_add(5, 0);
        }
        // The quotient gets 65 or 66 bits.
        let shift = i64::from(whole.bits()) - i64::from(divisor.bits()) - 65;
        if shift < 0 {
            whole.shl(shift.unsigned_abs() as u32);
        } else {
            divisor.shl(shift as u32);
        }
        let (quotient, remainder_nonzero) = whole.div_small_quotient(divisor);
        round(quotient, shift + exponent, remainder_nonzero)
    }
}

/// quotient·2^exponent, plus less than one unit of the quotient's last bit
/// when `sticky`, rounded to the nearest double, ties to even; `None` on
/// overflow.
fn round(quotient: u128, exponent: i64, sticky: bool) -> Option<f64> {
    let bits = i64::from(u128::BITS - quotient.leading_zeros());
    let lead = exponent + bits - 1;
    // Drop bits down to 53 significant ones, or to 2^−1074 below 2^−1022.
    let drop = if lead >= -1022 {
        bits - 53
    } else {
        -1074 - exponent
    };
    let (mut mantissa, last) = if drop <= 0 {
        (quotient << drop.unsigned_abs(), exponent + drop)
    } else if drop >= 127 {
        (0, exponent + drop)
    } else {
        let kept = quotient >> drop;
        let rest = quotient & ((1 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        (kept + u128::from(up), exponent + drop)
    };
    if mantissa == 0 {
        return Some(0.0);
    }
    // A carry to 2^53 is still exact; halve it to keep the power in range.
    let mut last = last;
    if mantissa == 1 << 53 {
        mantissa >>= 1;
        last += 1;
    }
    if last + i64::from(u128::BITS - mantissa.leading_zeros()) - 1 > 1023 {
        return None;
    }
    Some(mantissa as f64 * power_of_two(last))
}

/// 2^exponent for exponent in [−1074, 1023].
fn power_of_two(exponent: i64) -> f64 {
    if exponent >= -1022 {
        f64::from_bits(((exponent + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (exponent + 1074))
    }
}

/// A nonnegative big integer, 32-bit limbs, least significant first.
#[derive(Default)]
struct Big(Vec<u32>);

impl From<u32> for Big {
    fn from(value: u32) -> Self {
        Self(vec![value])
    }
}

impl Big {
    fn mul_add(&mut self, factor: u32, addend: u32) {
        let mut carry = u64::from(addend);
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn bits(&self) -> u32 {
        let top = self.0.iter().rposition(|&limb| limb != 0);
        top.map_or(0, |i| i as u32 * 32 + 32 - self.0[i].leading_zeros())
    }

    fn bit(&self, index: u32) -> bool {
        let limb = self.0.get((index / 32) as usize).copied().unwrap_or(0);
        limb >> (index % 32) & 1 == 1
    }

    /// The bits from `shift` up (from 0 and shifted up when `shift` < 0),
    /// at most 128 of them.
    fn top(&self, shift: i64) -> u128 {
        let from = shift.max(0) as u32;
        let value = (from..self.bits()).rev().fold(0u128, |value, index| {
            value << 1 | u128::from(self.bit(index))
        });
        value << shift.min(0).unsigned_abs()
    }

    fn low_bits_nonzero(&self, count: u32) -> bool {
        (0..count).any(|index| self.bit(index))
    }

    fn shl(&mut self, count: u32) {
        let (limbs, bits) = ((count / 32) as usize, count % 32);
        if bits > 0 {
            self.mul_add(1 << bits, 0);
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    /// self − other·2^shift when that is not negative.
    fn sub_shifted_if_fits(&mut self, other: &Big, shift: u32) -> bool {
        let span = self.bits().max(other.bits() + shift);
        let fits = (0..span)
            .rev()
            .map(|i| (self.bit(i), i >= shift && other.bit(i - shift)))
            .find(|(a, b)| a != b)
            .is_none_or(|(a, _)| a);
        if !fits {
            return false;
        }
        let mut borrow = false;
        for i in 0..span {
            let (a, b) = (self.bit(i), i >= shift && other.bit(i - shift));
            let difference = u8::from(a) + 2 - u8::from(b) - u8::from(borrow);
            borrow = difference < 2;
            let limb = &mut self.0[(i / 32) as usize];
            *limb = *limb & !(1 << (i % 32)) | u32::from(difference & 1) << (i % 32);
        }
        true
    }

    /// ⌊self / divisor⌋, known to be below 2^127, and whether a remainder
    /// is left; `self` becomes the remainder.
    fn div_small_quotient(&mut self, divisor: Big) -> (u128, bool) {
        let mut quotient = 0u128;
        for shift in (0..=(self.bits().saturating_sub(divisor.bits()))).rev() {
            quotient <<= 1;
            quotient |= u128::from(self.sub_shifted_if_fits(&divisor, shift));
        }
        (quotient, self.bits() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn standard(text: &str) -> Option<f64> {
        text.parse::<f64>().ok().filter(|x| x.is_finite())
    }

    fn same(text: &str) {
        let (ours, theirs) = (parse_finite(text), standard(text));
        assert_eq!(
            ours.map(f64::to_bits),
            theirs.map(f64::to_bits),
            "{text}: {ours:?} against {theirs:?}"
        );
    }

    #[test]
    fn edge_cases_read_as_the_standard_parser_reads_them() {
        for text in [
            "0",
            "-0",
            "+0",
            "0.0",
            ".5",
            "5.",
            ".",
            "",
            "+",
            "-",
            "e5",
            "1e",
            "1e+",
            "1e-",
            "1.5e3",
            "1E3",
            "1e-3",
            "01",
            "00.0100",
            "1..2",
            "1.2.3",
            "1e3.5",
            " 1",
            "1 ",
            "inf",
            "-inf",
            "infinity",
            "NaN",
            "nan",
            "1_000",
            "0x10",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "2e-323",
            "4.9e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "9007199254740993",
            "9007199254740992.5",
            "0.1",
            "0.07",
            "3600",
            "1000000",
            "123456789012345678901234567890",
            "1e-400",
            "0e999999999999",
            "1e-99999999999999",
            "1e99999999999999",
            "0.000000000000000000000000000000000000000000001e40",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999",
        ] {
            same(text);
        }
    }

    #[test]
    fn a_tie_past_many_digits_is_broken_by_a_later_digit() {
        // 2^53 + 1 lies halfway between two doubles; a trailing 1 far out
        // rounds it up, zeros alone leave it to the even one below.
        let tie = "9007199254740993";
        same(&format!("{tie}.{}", "0".repeat(900)));
        same(&format!("{tie}.{}1", "0".repeat(900)));
        same(&format!("{tie}{}e-1000", "0".repeat(1000)));
        same(&format!("{tie}{}1e-1001", "0".repeat(1000)));
    }

    proptest! {
        #[test]
        fn every_double_written_any_way_reads_back(bits in any::<u64>(), digits in 0usize..40) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            for text in [format!("{x}"), format!("{x:e}"), format!("{x:.digits$e}"), format!("{x:.digits$}")] {
                same(&text);
            }
        }

        #[test]
        fn ties_and_their_neighbours_round_as_the_standard_parser_does(
            mantissa in (1u128 << 52)..(1u128 << 53),
            shift in -30i32..=70,
            nudge in prop::sample::select(vec!["", "0000", "0001", "9999"]),
        ) {
            // (2m + 1)·2^(shift − 1) lies halfway between two neighbouring
            // doubles; written out exactly, then nudged past more digits.
            let odd = 2 * mantissa + 1;
            let text = if shift >= 1 {
                format!("{}{nudge}e-{}", odd << (shift - 1), nudge.len())
            } else {
                let k = 1 - shift;
                format!("{}{nudge}e-{}", odd * 5u128.pow(k as u32), k as usize + nudge.len())
            };
            same(&text);
        }

        #[test]
        fn any_short_decimal_text_reads_the_same(text in "[+-]?[0-9]{0,25}(\\.[0-9]{0,25})?([eE][+-]?[0-9]{1,4})?") {
            same(&text);
        }

        #[test]
        fn long_digit_strings_read_the_same(head in "[1-9][0-9]{0,20}", zeros in 0usize..900, tail in "[0-9]{0,5}", exponent in -1400i32..400) {
            same(&format!("{head}{}{tail}e{exponent}", "0".repeat(zeros)));
            same(&format!("0.{}{head}{tail}e{exponent}", "0".repeat(zeros)));
        }
    }
}
