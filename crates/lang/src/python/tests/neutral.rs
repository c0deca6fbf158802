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

/// `quiet`: a body that does nothing and raises nothing, of the same kind.
mod quiet_bodies {
    use crate::{apply, quiet, Lang};

    const STORE: &str = "\
from contextlib import contextmanager


class Store:
    @contextmanager
    def transaction(self):
        \"\"\"All or nothing.\"\"\"
        snapshot = list(self.rows)
        try:
            yield self
        except BaseException:
            self.rows = snapshot
            raise

    def lines(self, text):
        for line in text.splitlines():
            yield line.strip()

    def count(self):
        return len(self.rows)
";

    fn quieted(qualified: &str) -> String {
        let m = quiet(Lang::Python, STORE, qualified)
            .expect("parses")
            .expect("a quiet body");
        apply(STORE, &m.edits)
    }

    #[test]
    fn a_context_manager_enters_and_exits_doing_nothing() {
        let out = quieted("Store.transaction");
        assert!(
            out.contains("    def transaction(self):\n        \"\"\"All or nothing.\"\"\"\n        yield\n\n"),
            "{out}"
        );
        assert!(!out.contains("snapshot"), "{out}");
    }

    #[test]
    fn a_generator_stays_one_and_yields_nothing() {
        let out = quieted("Store.lines");
        assert!(
            out.contains("    def lines(self, text):\n        return\n        yield\n"),
            "{out}"
        );
    }

    #[test]
    fn a_plain_function_gets_the_stub_default_form() {
        let out = quieted("Store.count");
        assert!(!out.contains("len(self.rows)"), "{out}");
        assert!(
            ["pass", "return None", "..."]
                .iter()
                .any(|form| out.contains(&format!("    def count(self):\n        {form}\n"))),
            "{out}"
        );
        assert!(quiet(Lang::Python, STORE, "Store.missing")
            .unwrap()
            .is_none());
    }
}
