//! The elements of a string tensor: one UTF-8 text and, per element, the span of it
//! that the element is (start, length). A pad copies spans, 16 bytes an element, with
//! the byte kernel, and the text once with the constant after it: no allocation per
//! element, as numpy pads an object array by its pointers.

use std::fmt;

/// One element: the byte range `start..start + len` of the text.
pub(crate) type Span = [u64; 2];

/// The elements of a string tensor, in row-major order.
///
/// The elements share one text; a padded tensor's text is its input's followed by the
/// constant, so a crop keeps the text of the elements it dropped
/// ([`Strings::compact`] lets it go).
///
/// ```
/// use ndpad::Strings;
/// let mut s: Strings = ["a", "bc"].into_iter().collect();
/// s.push("");
/// assert_eq!(s.len(), 3);
/// assert_eq!(s.get(1), Some("bc"));
/// assert_eq!(s.get(3), None);
/// assert_eq!(s.to_vec(), ["a", "bc", ""]);
/// assert_eq!(s, Strings::from(vec!["a", "bc", ""]));
/// ```
#[derive(Clone, Default)]
pub struct Strings {
    pub(crate) text: String,
    pub(crate) spans: Vec<Span>,
}

impl Strings {
    /// No elements.
    pub fn new() -> Strings {
        Strings::default()
    }

    /// `n` elements, each `text` (one copy of it): an output buffer for
    /// [`crate::TensorViewMut::from_strings`].
    ///
    /// # Errors
    /// [`crate::PadError::OutOfMemory`] when the spans cannot be allocated.
    pub fn filled(n: usize, text: &str) -> Result<Strings, crate::PadError> {
        let mut spans = Vec::new();
        spans
            .try_reserve_exact(n)
            .map_err(|_| crate::PadError::OutOfMemory {
                shape: vec![n],
                bytes: n.saturating_mul(std::mem::size_of::<Span>()),
            })?;
        spans.resize(n, [0, text.len() as u64]);
        Ok(Strings {
            text: text.to_owned(),
            spans,
        })
    }

    /// Appends an element.
    pub fn push(&mut self, s: &str) {
        let span = self.append_text(s);
        self.spans.push(span);
    }

    /// Makes element `i` `s` (its text appended to the shared text); `false`, changing
    /// nothing, when `i` is out of range.
    pub fn set(&mut self, i: usize, s: &str) -> bool {
        if i >= self.spans.len() {
            return false;
        }
        self.spans[i] = self.append_text(s);
        true
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Element `i`, or `None` when out of range.
    pub fn get(&self, i: usize) -> Option<&str> {
        self.text_of(*self.spans.get(i)?)
    }

    /// The elements in order.
    pub fn iter(&self) -> StringsIter<'_> {
        StringsIter {
            strings: self,
            spans: self.spans.iter(),
        }
    }

    /// The elements' texts, an element that shares its text with one shortly before
    /// it (a pad's repeated edges and rows) skipped: every text at least once, for
    /// what holds of every element (all ASCII? the longest?) in the time of their
    /// distinct text rather than of elements x length.
    ///
    /// ```
    /// use ndpad::{pad, AxisPad, Mode, PadSpec, Tensor};
    /// let x = Tensor::from_strings(&[1], vec!["long text"]).unwrap();
    /// let y = pad(x.view(), &PadSpec::new(vec![AxisPad::new(0, 1000)], Mode::Edge)).unwrap();
    /// assert_eq!(y.strings().unwrap().distinct().collect::<Vec<_>>(), ["long text"]);
    /// ```
    pub fn distinct(&self) -> impl Iterator<Item = &str> + '_ {
        // The last span seen in each of a few slots, by where it starts.
        const SLOTS: usize = 256;
        let mut seen = [[u64::MAX; 2]; SLOTS];
        self.spans.iter().filter_map(move |&span| {
            let slot = &mut seen[(span[0] as usize) % SLOTS];
            if *slot == span {
                return None;
            }
            *slot = span;
            Some(self.text_of(span).unwrap_or_default())
        })
    }

    /// The elements as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }

    /// Keeps only the text the elements show, each element's once in order (after a
    /// crop, or many [`Strings::set`] calls, the text holds more); elements that
    /// shared text no longer do.
    pub fn compact(&mut self) {
        let mut text = String::with_capacity(self.iter().map(str::len).sum());
        let spans = self
            .spans
            .iter()
            .map(|&span| {
                let s = self.text_of(span).unwrap_or_default();
                let start = text.len() as u64;
                text.push_str(s);
                [start, s.len() as u64]
            })
            .collect();
        self.spans = spans;
        self.text = text;
    }

    /// The bytes of the shared text (elements may share text, and a crop keeps text
    /// no element refers to): with `16 * len()`, the memory the elements hold.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// The text of one span (`None` only for a span this type never makes).
    fn text_of(&self, [start, len]: Span) -> Option<&str> {
        let start = usize::try_from(start).ok()?;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        self.text.get(start..end)
    }

    /// Appends `s` to the text; its span.
    pub(crate) fn append_text(&mut self, s: &str) -> Span {
        let start = self.text.len() as u64;
        self.text.push_str(s);
        [start, s.len() as u64]
    }

    /// Makes `text` `source`'s text followed by `constant` (reusing its memory), the
    /// spans of `source` then valid in it; the constant's span. `None`, changing
    /// nothing, when the text cannot be allocated.
    pub(crate) fn take_text(text: &mut String, source: &Strings, constant: &str) -> Option<Span> {
        let needed = source.text.len().checked_add(constant.len())?;
        text.try_reserve(needed.saturating_sub(text.len())).ok()?;
        text.clear();
        text.push_str(&source.text);
        text.push_str(constant);
        Some([source.text.len() as u64, constant.len() as u64])
    }
}

impl fmt::Debug for Strings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Equal when the elements are (whatever text each tensor holds beside them).
impl PartialEq for Strings {
    fn eq(&self, other: &Strings) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Strings {}

/// Compares the elements with a list of texts.
macro_rules! eq_texts {
    ($($t:ty => [$($g:tt)*]),*) => {$(
        impl<S: AsRef<str>, $($g)*> PartialEq<$t> for Strings {
            fn eq(&self, other: &$t) -> bool {
                self.len() == other.len() && self.iter().eq(other.iter().map(AsRef::as_ref))
            }
        }
        impl<S: AsRef<str>, $($g)*> PartialEq<$t> for &Strings {
            fn eq(&self, other: &$t) -> bool {
                **self == *other
            }
        }
    )*};
}
eq_texts!([S] => [], Vec<S> => [], [S; N] => [const N: usize]);

impl<S: AsRef<str>> FromIterator<S> for Strings {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Strings {
        let mut s = Strings::new();
        for x in iter {
            s.push(x.as_ref());
        }
        s
    }
}

impl<S: AsRef<str>> From<Vec<S>> for Strings {
    fn from(v: Vec<S>) -> Strings {
        let mut s = Strings {
            text: String::with_capacity(v.iter().map(|x| x.as_ref().len()).sum()),
            spans: Vec::with_capacity(v.len()),
        };
        v.iter().for_each(|x| s.push(x.as_ref()));
        s
    }
}

impl<S: AsRef<str>, const N: usize> From<[S; N]> for Strings {
    fn from(v: [S; N]) -> Strings {
        v.iter().collect()
    }
}

impl<S: AsRef<str>> From<&[S]> for Strings {
    fn from(v: &[S]) -> Strings {
        v.iter().collect()
    }
}

impl<'a> IntoIterator for &'a Strings {
    type Item = &'a str;
    type IntoIter = StringsIter<'a>;
    fn into_iter(self) -> StringsIter<'a> {
        self.iter()
    }
}

/// The elements of [`Strings`], in order.
#[derive(Clone)]
pub struct StringsIter<'a> {
    strings: &'a Strings,
    spans: std::slice::Iter<'a, Span>,
}

impl<'a> Iterator for StringsIter<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let span = *self.spans.next()?;
        Some(self.strings.text_of(span).unwrap_or_default())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for StringsIter<'_> {}

/// The elements not yet taken.
impl fmt::Debug for StringsIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

impl<'a> DoubleEndedIterator for StringsIter<'a> {
    fn next_back(&mut self) -> Option<&'a str> {
        let span = *self.spans.next_back()?;
        Some(self.strings.text_of(span).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_by_elements_not_text() {
        let a: Strings = ["x", "yz"].into_iter().collect();
        let mut b = Strings::filled(0, "unused").unwrap();
        b.push("x");
        b.push("yz");
        assert_eq!(a, b);
        assert_ne!(a, Strings::from(vec!["x"]));
        assert_ne!(a, Strings::from(vec!["x", "y"]));
        assert_eq!(format!("{a:?}"), r#"["x", "yz"]"#);
        let mut it = a.iter();
        it.next();
        assert_eq!(format!("{it:?}"), r#"["yz"]"#);
        assert_eq!(Strings::from(["x", "yz"]), a);
    }

    #[test]
    fn filled_and_taken_text() {
        let f = Strings::filled(3, "ab").unwrap();
        assert_eq!(f.to_vec(), ["ab", "ab", "ab"]);
        assert_eq!(f.text_len(), 2);
        let mut out = Strings::filled(2, "").unwrap();
        let c = Strings::take_text(&mut out.text, &f, "c").unwrap();
        out.spans = vec![f.spans[0], c];
        assert_eq!(out.to_vec(), ["ab", "c"]);
        assert_eq!(out.iter().rev().collect::<Vec<_>>(), ["c", "ab"]);
        assert!(out.set(0, "d") && !out.set(2, "e"));
        assert_eq!(out, ["d", "c"]);
        assert_eq!(out.text_len(), 4);
        out.compact();
        assert_eq!(
            (out.text_len(), out.to_vec()),
            (2, vec!["d".to_string(), "c".into()])
        );
    }
}
