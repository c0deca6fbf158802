//! A text edit (a byte range replaced), and edits applied to a source.

use std::ops::Range;

/// `range` (bytes of the original source) replaced by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

impl Edit {
    pub fn new(range: Range<usize>, text: impl Into<String>) -> Edit {
        Edit {
            range,
            text: text.into(),
        }
    }

    /// `text` inserted at byte `at`.
    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit::new(at..at, text)
    }

    /// The bytes of `range` deleted.
    pub fn delete(range: Range<usize>) -> Edit {
        Edit::new(range, "")
    }
}

/// `source` with `edits` applied. Edits must not overlap; their order does not matter.
///
/// # Panics
/// When two edits overlap or one lies outside the source: an operator's defect.
pub fn apply(source: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for e in sorted {
        assert!(
            e.range.start >= at && e.range.end <= source.len(),
            "overlapping or out-of-range edit {:?}",
            e.range
        );
        out.push_str(&source[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&source[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_any_order() {
        let edits = [
            Edit::new(6..11, "there"),
            Edit::insert(0, ">> "),
            Edit::delete(5..6),
        ];
        assert_eq!(apply("hello world", &edits), ">> hellothere");
    }

    #[test]
    #[should_panic(expected = "overlapping")]
    fn overlapping_edits_are_a_defect() {
        apply("hello", &[Edit::new(0..3, "a"), Edit::new(2..4, "b")]);
    }
}
