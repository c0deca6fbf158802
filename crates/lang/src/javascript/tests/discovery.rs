//! `functions` and `tests`: qualified names, lines, bodies, statuses.

use crate::{Lang, TestStatus};

const DEFS: &str = r#"export function top(a) { return a; }
const arrow = (x) => x * 2;
let fexpr = function named() {
  return 1;
};
class Store {
  @logged
  save(item) {
    function inner() {}
    return item;
  }
  static get size() { return 0; }
  handler = () => {};
}
const api = {
  load() { return 1; },
  fetch: async (u) => u,
  'quoted-key': function () {},
};
module.exports.run = function () {};
Store.prototype.extra = function () {};
register({ anonymous() {} });
test('x', () => {});
[1].map((v) => v);
"#;

#[test]
fn functions_are_named_as_a_reader_names_them() {
    let fns = crate::functions(Lang::JavaScript, DEFS).expect("parses");
    let names: Vec<(&str, &str)> = fns
        .iter()
        .map(|f| (f.name.as_str(), f.qualified.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("top", "top"),
            ("arrow", "arrow"),
            ("fexpr", "fexpr"),
            ("save", "Store.save"),
            ("inner", "inner"),
            ("size", "Store.size"),
            ("handler", "Store.handler"),
            ("load", "api.load"),
            ("fetch", "api.fetch"),
            ("quoted-key", "api.quoted-key"),
            ("run", "run"),
            ("extra", "Store.extra"),
        ]
    );
    let by = |q: &str| fns.iter().find(|f| f.qualified == q).expect("defined");
    assert_eq!(by("top").lines, [1, 1]);
    assert_eq!(&DEFS[by("top").body.clone()], "return a;");
    assert_eq!(by("fexpr").lines, [3, 5]);
    assert_eq!(&DEFS[by("fexpr").body.clone()], "return 1;");
    // The decorator's line is part of the method.
    assert_eq!(by("Store.save").lines, [7, 11]);
    assert_eq!(
        &DEFS[by("Store.save").body.clone()],
        "function inner() {}\n    return item;"
    );
    assert_eq!(&DEFS[by("arrow").body.clone()], "x * 2");
    // An empty body: the empty range just inside its braces.
    let inner = by("inner");
    assert!(inner.body.is_empty());
    assert_eq!(&DEFS[inner.body.start - 1..inner.body.start + 1], "{}");
}

const TESTS: &str = r#"import { test, describe, it } from 'node:test';
test('live', () => {});
test.skip('skipped by modifier', () => {});
test('skipped by option', { skip: true }, () => {});
test('skipped with a reason', { skip: 'slow' }, () => {});
test('not skipped', { skip: false }, () => {});
test('skipped by context', (t) => {
  t.skip('later');
  assert.ok(1);
});
test.todo('todo by modifier', () => {});
test('todo by option', { todo: 'wip' }, () => {});
test('todo by context', async (ctx) => {
  ctx.todo();
});
describe('outer', () => {
  it('inner', () => {});
  describe.skip('hidden', () => {
    it('deep', () => {});
  });
  suite('sub', { todo: true }, () => {
    it(`templated`, () => {});
  });
});
// test('commented out', () => {});
const s = "test('in a string', () => {})";
test(`with ${sub}`, () => {});
test(name, () => {});
it.only('focused', () => {});
await test('awaited', async () => {});
test('escaped \'quote\'', () => {});
test('no callback');
"#;

#[test]
fn tests_are_collected_with_their_status() {
    let tests = crate::tests(Lang::JavaScript, TESTS).expect("parses");
    let got: Vec<(&str, TestStatus)> = tests
        .iter()
        .map(|t| (t.name.as_str(), t.status.clone()))
        .collect();
    let skipped = |m: &str| TestStatus::Skipped(m.to_string());
    let todo = |m: &str| TestStatus::ExpectedFailure(m.to_string());
    assert_eq!(
        got,
        [
            ("live", TestStatus::Live),
            ("skipped by modifier", skipped("test.skip")),
            ("skipped by option", skipped("skip: true")),
            ("skipped with a reason", skipped("skip: 'slow'")),
            ("not skipped", TestStatus::Live),
            ("skipped by context", skipped("t.skip('later')")),
            ("todo by modifier", todo("test.todo")),
            ("todo by option", todo("todo: 'wip'")),
            ("todo by context", todo("ctx.todo()")),
            ("outer > inner", TestStatus::Live),
            ("outer > hidden > deep", skipped("describe.skip")),
            ("outer > sub > templated", todo("todo: true")),
            ("focused", TestStatus::Live),
            ("awaited", TestStatus::Live),
            ("escaped 'quote'", TestStatus::Live),
            ("no callback", TestStatus::Live),
        ]
    );
    let by = |n: &str| tests.iter().find(|t| t.name == n).expect("collected");
    assert_eq!(by("skipped by context").lines, [7, 10]);
    assert_eq!(
        &TESTS[by("skipped by context").body.clone()],
        "t.skip('later');\n  assert.ok(1);"
    );
    assert_eq!(by("outer > hidden > deep").lines, [19, 19]);
    assert_eq!(by("no callback").body.clone().count(), 0);
}

#[test]
fn require_and_default_imports_name_the_same_calls() {
    let src = "const { test } = require('node:test');\ntest('a', () => {});\n";
    let names: Vec<String> = crate::tests(Lang::JavaScript, src)
        .expect("parses")
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["a"]);
    let src = "import test from 'node:test';\ntest('b', async (t) => {\n  await t.test('sub', () => {});\n});\n";
    let names: Vec<String> = crate::tests(Lang::JavaScript, src)
        .expect("parses")
        .into_iter()
        .map(|t| t.name)
        .collect();
    // A test with subtests is reported as its subtests.
    assert_eq!(names, ["b > sub"]);
}

#[test]
fn subtests_replace_their_parent() {
    let src = r#"test('parent', async (t) => {
  await t.test('first', () => {
    assert.ok(1);
  });
  await t.test('second', async (t) => {
    await t.test('deep', () => {});
  });
  await t.test('third', { timeout: 9 }, () => {});
  for (const c of cases) await t.test(c.name, () => {});
});
test.skip('off', async (t) => {
  await t.test('never', () => {});
});
test('plain', (t) => {
  assert.ok(t);
});
"#;
    let tests = crate::tests(Lang::JavaScript, src).expect("parses");
    let got: Vec<(&str, TestStatus)> = tests
        .iter()
        .map(|t| (t.name.as_str(), t.status.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("parent > first", TestStatus::Live),
            ("parent > second > deep", TestStatus::Live),
            ("parent > third", TestStatus::Live),
            ("off > never", TestStatus::Skipped("test.skip".into())),
            ("plain", TestStatus::Live),
        ]
    );
    assert_eq!(tests[0].lines, [2, 4]);
    assert_eq!(&src[tests[0].body.clone()], "assert.ok(1);");
    let skipped = super::mutated(src, crate::Operator::SkipTest);
    assert_eq!(
        skipped[..3],
        [
            src.replace("t.test('first',", "t.test('first', { skip: 'flaky' },"),
            src.replace("t.test('deep',", "t.test('deep', { skip: 'flaky' },"),
            src.replace("{ timeout: 9 }", "{ timeout: 9, skip: 'flaky' }"),
        ]
    );
    let todo = super::mutated(src, crate::Operator::ExpectFailure);
    assert_eq!(
        todo[0],
        src.replace("t.test('first',", "t.test('first', { todo: true },")
    );
    let after = crate::tests(Lang::JavaScript, &todo[0]).expect("parses");
    assert_eq!(
        after[0].status,
        TestStatus::ExpectedFailure("todo: true".into())
    );
}

#[test]
fn calls_of_other_functions_named_test_are_not_tests() {
    let src = "function check(v) {\n  test('inside a function', () => {});\n  return KEY.test(v) && test(v);\n}\n";
    assert_eq!(crate::tests(Lang::JavaScript, src).expect("parses"), []);
}

#[test]
fn odd_input_gives_empty_answers_not_panics() {
    let odd = [
        "",
        "}{",
        "test(",
        "test('unterminated', () => {",
        "function (",
        "const x = `${",
        "if (a) throw",
        "\u{feff}const é = (ü) => ü <",
        "describe('d', () => { it(",
    ];
    for src in odd {
        assert_eq!(
            crate::tests(Lang::JavaScript, src).expect("parses"),
            [],
            "{src:?}"
        );
        for op in crate::Operator::all() {
            let ms = crate::mutations(Lang::JavaScript, src, op).expect("parses");
            assert_eq!(ms, [], "{op:?} on {src:?}");
        }
        for lines in [[0, 0], [1, 1], [1, 9], [3, 1]] {
            let m = crate::neutralize(Lang::JavaScript, src, lines).expect("parses");
            assert_eq!(m, None, "{lines:?} of {src:?}");
        }
    }
}
