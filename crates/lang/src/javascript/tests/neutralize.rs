//! `neutralize`: a whole function stubbed, statements deleted, nothing whole -> `None`.

use crate::{apply, Lang, Mutation, Operator};

const SRC: &str = "// Parses lines.
function parse(text) {
  const out = {};
  if (!text) throw new Error('empty');
  for (const line of text.split('\\n')) {
    if (line)
      out[line] = true;
  }
  return out;
}
const LIMIT = 3;
";

fn neutralized(lines: [u32; 2]) -> Option<(Mutation, String)> {
    let m = crate::neutralize(Lang::JavaScript, SRC, lines).expect("parses")?;
    let text = apply(SRC, &m.edits);
    Some((m, text))
}

const STUBBED: &str = "// Parses lines.
function parse(text) {
  throw new Error(\"not implemented\");
}
const LIMIT = 3;
";

#[test]
fn a_whole_function_or_its_whole_body_is_stubbed() {
    for lines in [[2, 10], [1, 10], [3, 9], [2, 9]] {
        let (m, text) = neutralized(lines).expect("a function is covered");
        assert_eq!(text, STUBBED, "{lines:?}");
        assert_eq!(m.operator, Operator::StubRaise);
        assert_eq!((m.site.as_str(), m.function.as_str()), ("parse", "parse"));
        assert_eq!(m.lines, [3, 9]);
    }
}

#[test]
fn a_guards_lines_delete_the_guard() {
    let (m, text) = neutralized([4, 4]).expect("a statement is covered");
    assert_eq!(
        text,
        SRC.replace("  if (!text) throw new Error('empty');\n", "")
    );
    assert_eq!(m.operator, Operator::DropSideEffect);
    assert_eq!(m.site, "parse");
    assert_eq!(m.lines, [4, 4]);
    assert_eq!(
        m.description,
        "`parse`: the statement `if (!text) throw new Error('empty');` deleted"
    );
}

#[test]
fn statements_inside_the_lines_are_deleted_outermost_first() {
    let (_, text) = neutralized([3, 4]).expect("statements are covered");
    assert_eq!(
        text,
        SRC.replace(
            "  const out = {};\n  if (!text) throw new Error('empty');\n",
            ""
        )
    );
    let (_, text) = neutralized([4, 8]).expect("statements are covered");
    assert_eq!(
        text,
        "// Parses lines.\nfunction parse(text) {\n  const out = {};\n  return out;\n}\nconst LIMIT = 3;\n"
    );
    // The body of an `if` without braces becomes an empty block.
    let (_, text) = neutralized([7, 7]).expect("a statement is covered");
    assert_eq!(text, SRC.replace("      out[line] = true;", "      {}"));
    let (m, text) = neutralized([11, 11]).expect("a statement is covered");
    assert_eq!(text, SRC.replace("const LIMIT = 3;\n", ""));
    assert_eq!(
        (m.site.as_str(), m.function.as_str()),
        ("module", "<module>")
    );
}

#[test]
fn lines_with_no_whole_statement_neutralize_nothing() {
    assert_eq!(neutralized([5, 6]), None);
    assert_eq!(neutralized([1, 1]), None);
    assert_eq!(neutralized([40, 41]), None);
}

#[test]
fn a_methods_site_is_its_qualified_name_slugged() {
    let src = "class Store {\n  save(row) {\n    this.rows.push(row);\n    return row;\n  }\n}\n";
    let m = crate::neutralize(Lang::JavaScript, src, [2, 5])
        .expect("parses")
        .expect("a method is covered");
    assert_eq!(
        (m.site.as_str(), m.function.as_str()),
        ("store-save", "Store.save")
    );
    let m = crate::neutralize(Lang::JavaScript, src, [3, 3])
        .expect("parses")
        .expect("a statement is covered");
    assert_eq!(
        (m.site.as_str(), m.function.as_str()),
        ("store-save", "Store.save")
    );
}
