//! Line-level edits of pretty-printed JSON (two-space indent, one member per line), so that a
//! mutant changes only the lines it means to and keeps the golden's formatting; callers re-parse the
//! result with serde_json to check that the edit applied cleanly.

/// The lines of `text`, without their newline.
pub fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

/// `lines` joined back, with a final newline.
pub fn join(lines: &[String]) -> String {
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The first line (0-based) in `from..to` whose trimmed text starts with `prefix`.
pub fn find(lines: &[String], from: usize, to: usize, prefix: &str) -> Option<usize> {
    (from..to.min(lines.len())).find(|&i| lines[i].trim_start().starts_with(prefix))
}

/// The line of the member `"key": "value"` (a string value), anywhere.
pub fn find_member(lines: &[String], key: &str, value: &str) -> Option<usize> {
    let needle = format!("\"{key}\": {}", serde_json::Value::from(value));
    find(lines, 0, lines.len(), &needle)
}

/// The object holding the member on line `at`: the lines of its `{` and its `}`.
pub fn enclosing_object(lines: &[String], at: usize) -> Option<(usize, usize)> {
    let member = indent(lines.get(at)?);
    let outer = member.checked_sub(2)?;
    let start = (0..at)
        .rev()
        .find(|&i| indent(&lines[i]) == outer && lines[i].trim_end().ends_with('{'))?;
    let end = (at + 1..lines.len())
        .find(|&i| indent(&lines[i]) == outer && lines[i].trim_start().starts_with('}'))?;
    Some((start, end))
}

/// The lines of member `key` of the object spanning `object`: its first line and, when its value
/// opens a list or an object at the end of that line, the line that closes it.
pub fn member(lines: &[String], object: (usize, usize), key: &str) -> Option<(usize, usize)> {
    let inner = indent(&lines[object.0]) + 2;
    let at = (object.0 + 1..object.1).find(|&i| {
        indent(&lines[i]) == inner && lines[i].trim_start().starts_with(&format!("\"{key}\":"))
    })?;
    let line = lines[at].trim_end().trim_end_matches(',');
    if line.ends_with('[') || line.ends_with('{') {
        let end = (at + 1..object.1).find(|&i| {
            indent(&lines[i]) == inner
                && (lines[i].trim_start().starts_with(']')
                    || lines[i].trim_start().starts_with('}'))
        })?;
        Some((at, end))
    } else {
        Some((at, at))
    }
}

/// Removes lines `span` (an element of a list or a member of an object), keeping the commas valid.
pub fn remove(lines: &[String], span: (usize, usize)) -> Vec<String> {
    let last = !lines[span.1].trim_end().ends_with(',');
    let mut out: Vec<String> = lines[..span.0].to_vec();
    if last {
        if let Some(prev) = out.last_mut() {
            if prev.trim_end().ends_with(',') {
                let trimmed = prev.trim_end().trim_end_matches(',').to_owned();
                *prev = trimmed;
            }
        }
    }
    out.extend_from_slice(&lines[span.1 + 1..]);
    out
}

/// Replaces lines `span` with `with` (written at the span's indent), keeping the span's trailing
/// comma.
pub fn replace(lines: &[String], span: (usize, usize), with: &[String]) -> Vec<String> {
    let comma = lines[span.1].trim_end().ends_with(',');
    let pad = " ".repeat(indent(&lines[span.0]));
    let mut new: Vec<String> = with.iter().map(|l| format!("{pad}{l}")).collect();
    if let Some(last) = new.last_mut() {
        let bare = last.trim_end().trim_end_matches(',').to_owned();
        *last = if comma { format!("{bare},") } else { bare };
    }
    let mut out: Vec<String> = lines[..span.0].to_vec();
    out.extend(new);
    out.extend_from_slice(&lines[span.1 + 1..]);
    out
}

/// Inserts `with` before line `at`, at that line's indent (each inserted line as given).
pub fn insert(lines: &[String], at: usize, with: &[String]) -> Vec<String> {
    let pad = " ".repeat(indent(&lines[at]));
    let mut out: Vec<String> = lines[..at].to_vec();
    out.extend(with.iter().map(|l| format!("{pad}{l}")));
    out.extend_from_slice(&lines[at..]);
    out
}

/// Whether `text` parses as JSON.
pub fn parses(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok()
}

/// 1-based inclusive line range of a 0-based span.
pub fn one_based(span: (usize, usize)) -> [u64; 2] {
    [span.0 as u64 + 1, span.1 as u64 + 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\n  \"a\": [\n    {\n      \"id\": \"X\",\n      \"ids\": [\n        \"T1\"\n      ]\n    },\n    {\n      \"id\": \"Y\"\n    }\n  ]\n}\n";

    #[test]
    fn removing_the_last_element_drops_the_comma_before_it() {
        let l = lines(DOC);
        let y = find_member(&l, "id", "Y").unwrap();
        let obj = enclosing_object(&l, y).unwrap();
        assert_eq!(obj, (8, 10));
        let out = join(&remove(&l, obj));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["a"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_member_spans_its_list_and_replacing_keeps_the_comma() {
        let l = lines(DOC);
        let x = find_member(&l, "id", "X").unwrap();
        let obj = enclosing_object(&l, x).unwrap();
        let ids = member(&l, obj, "ids").unwrap();
        assert_eq!(ids, (4, 6));
        let out = join(&replace(&l, ids, &["\"ids\": []".into()]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["a"][0]["ids"], serde_json::json!([]));
        let first = join(&replace(&l, (x, x), &["\"id\": \"Z\"".into()]));
        assert!(parses(&first), "{first}");
    }
}
