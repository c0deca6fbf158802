//! `neutralize`: a whole function stubbed, a guard's lines deleted, lines with no whole statement.

use crate::{apply, Lang, Operator};

const SRC: &str = r#"impl Bucket {
    /// Takes `cost` tokens.
    pub fn take(&mut self, cost: u32) -> bool {
        self.refill();
        if self.tokens < cost {
            return false;
        }
        self.tokens -= cost;
        true
    }

    fn refill(&mut self) {
        let now = clock(); self.last = now;
    }
}
"#;

fn neutralize(lines: [u32; 2]) -> Option<crate::Mutation> {
    crate::neutralize(Lang::Rust, SRC, lines).unwrap()
}

#[test]
fn a_whole_function_is_stubbed_with_todo() {
    let body = "self.refill();\n        if self.tokens < cost {\n            return false;\n        }\n        self.tokens -= cost;\n        true";
    let want = SRC.replacen(body, "todo!()", 1);
    for lines in [[2, 10], [3, 10], [4, 9], [1, 11]] {
        let m = neutralize(lines).expect("a function");
        assert_eq!(m.operator, Operator::StubRaise, "{lines:?}");
        assert_eq!(m.site, "take");
        assert_eq!(m.function, "Bucket::take");
        if lines != [1, 11] {
            assert_eq!(apply(SRC, &m.edits), want, "{lines:?}");
        }
    }
    // Lines over both methods stub both.
    let both = neutralize([1, 15]).unwrap();
    assert_eq!(both.edits.len(), 2);
    assert_eq!(
        both.description,
        "`Bucket::take`, `Bucket::refill`: lines 1-15 neutralized, the body replaced by `todo!()`"
    );
}

#[test]
fn a_guards_lines_are_deleted() {
    let m = neutralize([5, 7]).unwrap();
    assert_eq!(m.operator, Operator::DropSideEffect);
    assert_eq!(m.site, "take");
    assert_eq!(m.lines, [5, 7]);
    assert_eq!(
        apply(SRC, &m.edits),
        SRC.replacen(
            "        if self.tokens < cost {\n            return false;\n        }\n",
            "",
            1
        )
    );
    // Statements sharing a line are deleted one by one.
    let m = neutralize([13, 13]).unwrap();
    assert_eq!(m.function, "Bucket::refill");
    assert_eq!(m.operator, Operator::StubRaise, "its whole body");
    let m = neutralize([6, 8]).unwrap();
    assert_eq!(
        apply(SRC, &m.edits),
        SRC.replacen("            return false;\n", "", 1).replacen(
            "        self.tokens -= cost;\n",
            "",
            1
        )
    );
}

#[test]
fn a_let_the_remaining_code_uses_is_kept() {
    let src = "fn f(&mut self) {\n    let n = self.count();\n    let unused = n + 1;\n    self.log(unused);\n    self.total += n;\n}\n";
    let m = crate::neutralize(Lang::Rust, src, [2, 4]).unwrap().unwrap();
    assert_eq!(
        apply(src, &m.edits),
        "fn f(&mut self) {\n    let n = self.count();\n    self.total += n;\n}\n"
    );
    assert_eq!(
        m.description,
        "`f`: lines 2-4 neutralized, 2 statement(s) deleted: `let unused = n + 1;`, `self.log(unused);`"
    );
    // Only a used `let` inside the lines: nothing to delete.
    assert_eq!(crate::neutralize(Lang::Rust, src, [2, 2]).unwrap(), None);
}

#[test]
fn lines_with_no_whole_statement_or_a_valued_tail_give_none() {
    // Only the `if` line: no statement lies wholly inside.
    assert_eq!(neutralize([5, 5]), None);
    // A blank line between the methods.
    assert_eq!(neutralize([11, 11]), None);
    // The tail `true` would leave a `bool` function without a value.
    assert_eq!(neutralize([8, 9]), None);
}
