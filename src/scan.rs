//! The plain-form readers' scanner: one JSON line's bytes read left to right, each step
//! giving up (`None`) on anything it does not know, so that the caller leaves the line to
//! serde, which reads it with its error messages. Numbers are parsed by `fast-float2`
//! (correctly rounded, as serde's `float_roundtrip` is) and held to JSON's grammar. Used by
//! the planar and general case readers (`io::json`) and the grasp reader
//! (`scene::spatial_parse`).

use serde_json::value::RawValue;

/// A cursor over one line's bytes.
pub(crate) struct Scanner<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Scanner<'a> {
    pub(crate) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    /// The next non-blank byte, consumed.
    pub(crate) fn next(&mut self) -> Option<u8> {
        self.skip_ws();
        let b = *self.text.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.text.get(self.at).copied()
    }

    pub(crate) fn expect(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }

    /// Consumes `word` if the text goes on with it.
    pub(crate) fn eat(&mut self, word: &[u8]) -> bool {
        let found = self.text[self.at..].starts_with(word);
        if found {
            self.at += word.len();
        }
        found
    }

    /// A JSON number, as float64: parsed once by `fast-float2`, whose grammar is wider
    /// than JSON's, then checked to be strict JSON (anything else is serde's to refuse).
    pub(crate) fn number(&mut self) -> Option<f64> {
        self.skip_ws();
        let rest = &self.text[self.at..];
        let (x, len) = fast_float2::parse_partial::<f64, _>(rest).ok()?;
        if !strict_json_number(&rest[..len]) {
            return None;
        }
        self.at += len;
        Some(x)
    }

    /// A string with no escape or control character (an id's usual form), as its JSON
    /// text, quotes included; anything else is left to serde.
    pub(crate) fn plain_string(&mut self) -> Option<&'a str> {
        let start = self.at;
        if self.text.get(start) != Some(&b'"') {
            return None;
        }
        let len = memchr::memchr2(b'"', b'\\', &self.text[start + 1..])?;
        let end = start + 1 + len;
        if self.text[end] != b'"' || self.text[start + 1..end].iter().any(|&b| b < 0x20) {
            return None;
        }
        let raw = std::str::from_utf8(&self.text[start..=end]).ok()?;
        self.at = end + 1;
        Some(raw)
    }

    /// After an object's member: `true` at `,` (another follows), `false` at `}`.
    pub(crate) fn more_members(&mut self) -> Option<bool> {
        match self.next()? {
            b',' => Some(true),
            b'}' => Some(false),
            _ => None,
        }
    }

    /// After an array's element: `true` at `,` (another follows), `false` at `]`.
    pub(crate) fn more_elements(&mut self) -> Option<bool> {
        match self.next()? {
            b',' => Some(true),
            b']' => Some(false),
            _ => None,
        }
    }

    /// Whether only blanks are left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.at == self.text.len()
    }

    /// A key without escapes or control characters, its quotes consumed: its bytes, which
    /// the readers compare with their own ASCII keys (so no UTF-8 check: a key that is not
    /// UTF-8 matches none, and serde refuses its line); `None` for any other. Keys are short:
    /// a plain loop, not [`Scanner::plain_string`]'s search and check (a grasp line has two
    /// dozen of them).
    pub(crate) fn plain_key(&mut self) -> Option<&'a [u8]> {
        self.skip_ws();
        let text = self.text;
        if text.get(self.at) != Some(&b'"') {
            return None;
        }
        let start = self.at + 1;
        let len = text[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if text[start + len] != b'"' {
            return None;
        }
        self.at = start + len + 1;
        Some(&text[start..start + len])
    }

    /// A JSON number: its text and its value as float64 (see [`Scanner::number`]).
    pub(crate) fn number_text(&mut self) -> Option<(&'a [u8], f64)> {
        self.skip_ws();
        let start = self.at;
        let x = self.number()?;
        Some((&self.text[start..self.at], x))
    }

    /// An id's JSON text as given (a plain string scanned, any other value read by
    /// serde); `Some(None)` for `null`.
    pub(crate) fn id(&mut self) -> Option<Option<&'a str>> {
        self.skip_ws();
        let raw = match self.plain_string() {
            Some(raw) => raw,
            None => {
                let mut de = serde_json::Deserializer::from_slice(&self.text[self.at..]);
                let raw: &RawValue = serde::Deserialize::deserialize(&mut de).ok()?;
                let raw = raw.get();
                self.at = raw.as_ptr() as usize - self.text.as_ptr() as usize + raw.len();
                raw
            }
        };
        Some((raw != "null").then_some(raw))
    }

    /// `[a, b, …]`: finite numbers (at least one) appended to `out`; their count.
    pub(crate) fn numbers(&mut self, out: &mut Vec<f64>) -> Option<usize> {
        self.list(|x| {
            out.push(x);
            true
        })
    }

    /// `[a, b, …]`: finite numbers into `out`, at most its length (`None` past it); their
    /// count.
    pub(crate) fn numbers_into(&mut self, out: &mut [f64]) -> Option<usize> {
        let mut n = 0;
        self.list(|x| {
            let slot = out.get_mut(n);
            n += 1;
            slot.map(|s| *s = x).is_some()
        })
    }

    /// `[a, b, …]`: each finite number given to `take` (`false`: give up); their count.
    #[inline(always)]
    fn list(&mut self, mut take: impl FnMut(f64) -> bool) -> Option<usize> {
        self.expect(b'[')?;
        // One pass with the position in a local (an R⁶ line is some 1,500 numbers): what
        // [`Scanner::number`] and [`Scanner::more_elements`] do, in the same order.
        let text = self.text;
        let mut at = self.at;
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        let mut n = 0;
        loop {
            while text.get(at).is_some_and(blank) {
                at += 1;
            }
            let rest = &text[at..];
            let (x, len) = fast_float2::parse_partial::<f64, _>(rest).ok()?;
            // Out of float64's range, or not JSON's grammar: serde's to refuse.
            if !x.is_finite() || !strict_json_number(&rest[..len]) || !take(x) {
                return None;
            }
            n += 1;
            at += len;
            while text.get(at).is_some_and(blank) {
                at += 1;
            }
            match text.get(at) {
                Some(b',') => at += 1,
                Some(b']') => {
                    self.at = at + 1;
                    return Some(n);
                }
                _ => return None,
            }
        }
    }
}

/// Whether `num`, a number as `fast_float2::parse_partial` consumed it, is JSON too. Its
/// grammar is `[+-]? digit* (. digit*)? ([eE] [+-]? digit+)?` with at least one mantissa
/// digit, or `inf`, `infinity`, `nan` in any case and with either sign; JSON refuses a `+`,
/// those words, a mantissa without integer digits (`.5`), leading zeros (`01`) and a point
/// without fraction digits (`1.`, `1.e5`). Its exponent is JSON's.
fn strict_json_number(num: &[u8]) -> bool {
    let int = num.strip_prefix(b"-").unwrap_or(num);
    let digits = match int {
        [b'0', b'0'..=b'9', ..] => return false,
        [b'0', ..] => 1,
        [b'1'..=b'9', ..] => int
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(int.len()),
        _ => return false,
    };
    int.get(digits) != Some(&b'.') || int.get(digits + 1).is_some_and(u8::is_ascii_digit)
}
