//! `neutralize`: a whole function or body stubbed, statements inside the lines deleted, nothing
//! when no whole statement lies inside.

use crate::{apply, neutralize, Lang, Mutation, Operator};

const SOURCE: &str = "\
\"\"\"Orders.\"\"\"
LIMIT = 3
import os


def migrate(conn, rows):
    \"\"\"Migrate.\"\"\"
    if conn.version == 2:
        return 0
    for row in rows:
        conn.execute(
            \"UPDATE\", row
        )
    conn.commit()
    return len(rows)


def other():
    return 1
";

fn run(lines: [u32; 2]) -> Option<Mutation> {
    neutralize(Lang::Python, SOURCE, lines).expect("parses")
}

fn text(m: &Mutation) -> String {
    apply(SOURCE, &m.edits)
}

#[test]
fn a_whole_function_is_stubbed() {
    let stubbed = SOURCE.replace(
        "    if conn.version == 2:\n        return 0\n    for row in rows:\n        conn.execute(\n            \"UPDATE\", row\n        )\n    conn.commit()\n    return len(rows)\n",
        "    raise NotImplementedError\n",
    );
    for lines in [[6, 15], [5, 17], [8, 15]] {
        let m = run(lines).expect("a mutation");
        assert_eq!(text(&m), stubbed, "{lines:?}");
        assert_eq!(m.operator, Operator::StubRaise);
        assert_eq!(
            (m.site.as_str(), m.function.as_str()),
            ("migrate", "migrate")
        );
        assert_eq!(m.lines, [8, 15]);
    }
}

#[test]
fn a_guard_s_lines_delete_the_guard() {
    let m = run([8, 9]).expect("a mutation");
    assert_eq!(
        text(&m),
        SOURCE.replace("    if conn.version == 2:\n        return 0\n", "")
    );
    assert_eq!(m.operator, Operator::DropSideEffect);
    assert_eq!(m.site, "migrate");
    assert_eq!(m.lines, [8, 9]);
    assert_eq!(
        m.description,
        "`migrate`: 1 statement(s) of lines 8-9 deleted (`if conn.version == 2: return 0`)"
    );
}

#[test]
fn inner_statements_go_and_an_emptied_block_keeps_pass() {
    let m = run([9, 14]).expect("a mutation");
    assert_eq!(
        text(&m),
        SOURCE.replace(
            "        return 0\n    for row in rows:\n        conn.execute(\n            \"UPDATE\", row\n        )\n    conn.commit()\n",
            "        pass\n"
        )
    );
    // The loop's header is outside the lines: its body goes, the loop stays.
    let m = run([11, 13]).expect("a mutation");
    assert_eq!(
        text(&m),
        SOURCE.replace(
            "        conn.execute(\n            \"UPDATE\", row\n        )\n",
            "        pass\n"
        )
    );
}

#[test]
fn module_level_statements_belong_to_the_module() {
    let m = run([2, 2]).expect("a mutation");
    assert_eq!(text(&m), SOURCE.replace("LIMIT = 3\n", ""));
    assert_eq!(m.site, "<module>");
}

#[test]
fn no_whole_statement_no_mutation() {
    assert_eq!(run([6, 6]), None); // the signature only
    assert_eq!(run([11, 12]), None); // part of a call spanning lines
    assert_eq!(run([7, 7]), None); // a docstring has no behaviour
    assert_eq!(run([3, 3]), None); // nor has an import
    assert_eq!(run([16, 17]), None); // blank lines
    assert_eq!(run([10, 4]), None); // reversed
}
