//! JSON as others write it: what a parser silently forgives and gatebench must not. A key given
//! twice in one object is kept once by `serde_json` (the last value wins), so a file holding two
//! `overall` results would say two things and be read as one; the reference gate refuses it in
//! ledger files (`gatebench_gate::load`) and gatebench in a pipeline's report (`check::parse`),
//! both with this one scanner.

/// The keys given twice in one JSON object, with the 1-based line of each repetition (each key as
/// written, escapes included). Keys are compared as a JSON parser reads them, escapes decoded:
/// `"overall"` and `"\u006fverall"` are one key given twice. A small scanner over the text
/// (strings with escapes, nesting); it does not validate the JSON, which the parser does.
pub fn duplicate_keys(text: &str) -> Vec<(String, u64)> {
    // Over bytes: every byte it looks for is ASCII, which no byte of a multi-byte UTF-8
    // character equals. A string is its raw text between the quotes (escapes as written), borrowed
    // from `text`; only a key with an escape (decoded) and a repeated key are copied.
    enum Frame<'t> {
        Object {
            keys: std::collections::BTreeSet<std::borrow::Cow<'t, str>>,
            expect_key: bool,
        },
        Array,
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut duplicates = Vec::new();
    let mut line = 1u64;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'{' => stack.push(Frame::Object {
                keys: Default::default(),
                expect_key: true,
            }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = true;
                }
            }
            b'"' => {
                let start_line = line;
                let start = i + 1;
                let mut end = bytes.len();
                i = start;
                while i < bytes.len() {
                    match bytes[i] {
                        // The escaped byte is skipped, a newline among them uncounted.
                        b'\\' => i += 1,
                        b'"' => {
                            end = i;
                            break;
                        }
                        b'\n' => line += 1,
                        _ => {}
                    }
                    i += 1;
                }
                // An escape at the very end can step past the text.
                let string = text.get(start..end.min(bytes.len())).unwrap_or_default();
                if let Some(Frame::Object { keys, expect_key }) = stack.last_mut() {
                    if *expect_key {
                        *expect_key = false;
                        if !keys.insert(decoded(string)) {
                            duplicates.push((string.to_owned(), start_line));
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    duplicates
}

/// A key's raw text (between its quotes) as a JSON parser reads it: escapes decoded. Text that
/// does not decode (an unterminated or invalid escape, which the parser refuses anyway) is
/// compared as written.
fn decoded(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains('\\') {
        return std::borrow::Cow::Borrowed(raw);
    }
    serde_json::from_str::<String>(&format!("\"{raw}\""))
        .map_or(std::borrow::Cow::Borrowed(raw), std::borrow::Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::duplicate_keys;

    #[test]
    fn a_key_given_twice_in_one_object_is_found_at_its_line() {
        let text = "{\n  \"a\": 1,\n  \"b\": {\"a\": 2, \"c\": \"a\"},\n  \"a\": 3\n}\n";
        // `a` in the inner object and `a` as a value are other objects' keys or no key at all.
        assert_eq!(duplicate_keys(text), vec![("a".to_owned(), 4)]);
    }

    #[test]
    fn objects_in_arrays_each_have_their_own_keys() {
        let text = "[{\"id\": 1, \"id\": 2}, {\"id\": 3}]";
        assert_eq!(duplicate_keys(text), vec![("id".to_owned(), 1)]);
    }

    #[test]
    fn escapes_and_newlines_inside_strings_are_read_as_written() {
        // An escaped quote does not end the key; `\"` and `"` are different keys as written; a
        // newline inside a value counts for the lines after it; non-ASCII keys compare whole.
        let text = "{\"q\\\"k\": 1, \"v\": \"x\ny\",\n\"q\\\"k\": 2, \"é\": 1, \"é\": 2, \"e\": 3}";
        assert_eq!(
            duplicate_keys(text),
            vec![("q\\\"k".to_owned(), 3), ("é".to_owned(), 3)]
        );
    }

    #[test]
    fn keys_are_compared_with_their_escapes_decoded() {
        // A parser reads both as `overall` and keeps the last: one key given twice.
        let text = "{\"overall\": 1, \"\\u006fverall\": 2, \"a\\/b\": 1, \"a/b\": 2}";
        assert_eq!(
            duplicate_keys(text),
            vec![("\\u006fverall".to_owned(), 1), ("a/b".to_owned(), 1)]
        );
    }

    #[test]
    fn unterminated_text_is_not_a_panic() {
        assert_eq!(duplicate_keys("{\"a\": 1, \"a"), vec![("a".to_owned(), 1)]);
        assert!(duplicate_keys("{\"a\\").is_empty());
        assert!(duplicate_keys("\"").is_empty());
    }
}
