//! The code operators: one case where each applies (the exact mutant) and cases where it must not
//! (test code, or code that is not a site).

use super::{mutated, only, sites};
use crate::Operator;

/// Code with a site of every code operator.
const BODY: &str = r#"  function helper(a, b) {
    if (!a) throw new Error('a');
    try { log(a); } catch (e) { cleanup(); throw e; }
    notify(a, b);
    return [a < b, a];
  }
  const check = (x) => x === 1;
  helper(1, 2);
"#;

#[test]
fn no_code_operator_applies_inside_tests() {
    let wrapped = [
        format!("test('inside', () => {{\n{BODY}}});\n"),
        format!("describe('suite', () => {{\n{BODY}}});\n"),
        format!("beforeEach(() => {{\n{BODY}}});\n"),
    ];
    let plain = format!("function outside() {{\n{BODY}}}\n");
    for op in Operator::all().filter(|o| o.family() == crate::OperatorFamily::Code) {
        assert!(
            !sites(&plain, op).is_empty(),
            "{op:?} has sites outside tests"
        );
        for src in &wrapped {
            assert_eq!(sites(src, op), [], "{op:?} in {src}");
        }
    }
}

#[test]
fn a_test_files_top_level_helpers_are_test_code() {
    let helper = "function makeEnv(keys) {\n  const env = {};\n  for (const k of keys) env[k] = '1';\n  return env;\n}\n";
    assert_eq!(sites(helper, Operator::ReturnEarly).len(), 1);
    for file in [
        format!("import {{ test }} from 'node:test';\n{helper}"),
        format!("const {{ it }} = require('node:test');\n{helper}"),
        format!("{helper}test('uses it', () => {{}});\n"),
    ] {
        for op in Operator::all().filter(|o| o.family() == crate::OperatorFamily::Code) {
            assert_eq!(sites(&file, op), [], "{op:?} in {file}");
        }
    }
}

#[test]
fn stub_raise_varies_its_form_by_site_and_keeps_a_leading_comment() {
    let src = "function total(items) {\n  // Sums the prices.\n  let sum = 0;\n  for (const i of items) sum += i.price;\n  return sum;\n}\nfunction clear(cart) {\n  cart.items = [];\n}\nconst greet = (name) => `hi ${name}`;\nfunction stubbed() {\n  throw new Error('nope');\n}\nfunction empty() {}\n";
    let ms = sites(src, Operator::StubRaise);
    let fns: Vec<&str> = ms.iter().map(|m| m.function.as_str()).collect();
    assert_eq!(fns, ["total", "clear", "greet"]);
    assert_eq!(
        crate::apply(src, &ms[0].edits),
        src.replace(
            "let sum = 0;\n  for (const i of items) sum += i.price;\n  return sum;",
            "throw new TypeError(\"unimplemented\");"
        )
    );
    assert_eq!(ms[0].lines, [3, 5]);
    assert_eq!(
        ms[0].description,
        "`total`: body replaced by `throw new TypeError(\"unimplemented\");`"
    );
    assert_eq!(
        crate::apply(src, &ms[1].edits),
        src.replace("cart.items = [];", "throw new Error(\"not implemented\");")
    );
    assert_eq!(
        crate::apply(src, &ms[2].edits),
        src.replace("`hi ${name}`;", "{ throw new Error('TODO'); };")
    );
}

#[test]
fn stub_default_returns_what_the_function_returns_in_kind() {
    let src = "function list(xs) {\n  const out = xs.filter(Boolean);\n  return out;\n}\nfunction make() {\n  const o = Object.create(null);\n  return o;\n}\nfunction lookup(k) {\n  return table[k];\n}\nfunction find(k) {\n  return table.get(k);\n}\nfunction nothing() {\n  return;\n}\nclass A extends B {\n  constructor() {\n    super();\n  }\n}\n";
    let got = mutated(src, Operator::StubDefault);
    assert_eq!(
        got,
        [
            src.replace(
                "const out = xs.filter(Boolean);\n  return out;",
                "return [];"
            ),
            src.replace("const o = Object.create(null);\n  return o;", "return {};"),
            src.replace("return table[k];", "return undefined;"),
            src.replace("return table.get(k);", "return null;"),
        ]
    );
}

#[test]
fn drop_guard_deletes_an_if_that_only_exits() {
    let src = "function take(n) {\n  if (n < 0) throw new RangeError('negative');\n  if (n === 0) {\n    return null;\n  }\n  if (n > 9) log(n);\n  if (n > 5) return 1;\n  else return 2;\n}\n";
    let got = mutated(src, Operator::DropGuard);
    assert_eq!(
        got,
        [
            src.replace("  if (n < 0) throw new RangeError('negative');\n", ""),
            src.replace("  if (n === 0) {\n    return null;\n  }\n", ""),
        ]
    );
    let ms = sites(src, Operator::DropGuard);
    assert_eq!(ms[1].lines, [3, 5]);
    // A bare return as the function's last statement exits where it would anyway.
    let tail = "function f(x) {\n  work(x);\n  if (x) return;\n  // done\n}\n";
    assert_eq!(sites(tail, Operator::DropGuard), []);
    assert_eq!(
        sites(&tail.replace("// done", "more(x);"), Operator::DropGuard).len(),
        1
    );
    assert_eq!(
        ms[0].description,
        "`take`: the guard `if (n < 0) throw new RangeError('negative');` deleted"
    );
}

#[test]
fn drop_error_branch_keeps_the_rethrow_or_empties_the_clause() {
    let src = "function save(db, row) {\n  try {\n    db.insert(row);\n  } catch (error) {\n    db.rollback();\n    log(error);\n    throw error;\n  }\n  try { db.flush(); } catch (e) { db.reset(); }\n  try { db.close(); } catch (e) { throw e; }\n}\n";
    let got = mutated(src, Operator::DropErrorBranch);
    assert_eq!(
        got,
        [
            src.replace("    db.rollback();\n    log(error);\n", ""),
            src.replace("catch (e) { db.reset(); }", "catch (e) {}"),
        ]
    );
}

#[test]
fn comparisons_flip_and_shift() {
    let src =
        "function between(x, lo, hi) {\n  return lo <= x && x < hi && x !== 0 && x + 1 > lo;\n}\n";
    assert_eq!(
        mutated(src, Operator::FlipComparison),
        [
            src.replace("lo <= x", "lo > x"),
            src.replace("x < hi", "x >= hi"),
            src.replace("x !== 0", "x === 0"),
            src.replace("x + 1 > lo", "x + 1 <= lo"),
        ]
    );
    assert_eq!(
        mutated(src, Operator::ShiftBoundary),
        [
            src.replace("lo <= x", "lo < x"),
            src.replace("x < hi", "x <= hi"),
            src.replace("x + 1 > lo", "x + 1 >= lo"),
        ]
    );
    let (m, _) = only(
        "function eq(a, b) {\n  return a == b;\n}\n",
        Operator::FlipComparison,
    );
    assert_eq!(m.description, "`eq`: `a == b` becomes `a != b`");
    assert_eq!(
        sites(
            "function eq(a, b) {\n  return a == b;\n}\n",
            Operator::ShiftBoundary
        ),
        []
    );
}

#[test]
fn swap_return_values_swaps_the_first_two() {
    let src = "function bounds(xs) {\n  if (!xs.length) return [0, 0];\n  if (xs.length > 9) return [...xs, 1];\n  return [min(xs), max(xs), xs.length];\n}\n";
    let (m, text) = only(src, Operator::SwapReturnValues);
    assert_eq!(
        text,
        src.replace(
            "[min(xs), max(xs), xs.length]",
            "[max(xs), min(xs), xs.length]"
        )
    );
    assert_eq!(m.lines, [4, 4]);
}

#[test]
fn swap_call_args_swaps_two_simple_differing_arguments() {
    let src = "function run(a, b, rest) {\n  send(a, b);\n  send(a, a);\n  send(a, ...rest);\n  send(() => a, b);\n  send(a);\n  return new Pair(a, 'b');\n}\n";
    assert_eq!(
        mutated(src, Operator::SwapCallArgs),
        [
            src.replace("send(a, b);", "send(b, a);"),
            src.replace("new Pair(a, 'b')", "new Pair('b', a)"),
        ]
    );
}

#[test]
fn drop_side_effect_deletes_calls_and_writes_to_other_objects() {
    let src = "class Cache {\n  async put(key, value, target) {\n    this.size = 1;\n    const old = read(key);\n    audit(key);\n    await store.save(key, value);\n    target[key] = value;\n    assert(old);\n    new Entry(key);\n    if (old) notify(old);\n    return old;\n  }\n}\n";
    let got = mutated(src, Operator::DropSideEffect);
    assert_eq!(
        got,
        [
            src.replace("    audit(key);\n", ""),
            src.replace("    await store.save(key, value);\n", ""),
            src.replace("    target[key] = value;\n", ""),
            src.replace("if (old) notify(old);", "if (old) {}"),
        ]
    );
    let ms = sites(src, Operator::DropSideEffect);
    assert_eq!(ms[0].function, "Cache.put");
    assert_eq!(ms[0].site, "cache-put");
    assert_eq!(ms[1].site, "cache-put-2");
    assert_eq!(ms[0].lines, [5, 5]);
    assert_eq!(
        ms[0].description,
        "`Cache.put`: the statement `audit(key);` deleted"
    );
}

#[test]
fn return_early_goes_before_the_last_statement() {
    let src = "function publish(bus, e) {\n  validate(e);\n    bus.emit(e);\n}\nfunction one() {\n  return 1;\n}\nconst inline = () => { a(); b(); };\nfunction bare() {\n  a();\n  return;\n}\nfunction hoisted() {\n  return helper();\n  function helper() {}\n}\n";
    assert_eq!(
        mutated(src, Operator::ReturnEarly),
        [
            src.replace("    bus.emit(e);", "    return;\n    bus.emit(e);"),
            src.replace("a(); b();", "a(); return; b();"),
        ]
    );
}

#[test]
fn crlf_sources_keep_their_line_endings() {
    let src = "function publish(bus, e) {\r\n  validate(e);\r\n  bus.emit(e);\r\n}\r\n";
    assert_eq!(
        mutated(src, Operator::ReturnEarly),
        [src.replace("  bus.emit(e);", "  return;\r\n  bus.emit(e);")]
    );
    assert_eq!(
        mutated(src, Operator::DropSideEffect),
        [
            src.replace("  validate(e);\r\n", ""),
            src.replace("  bus.emit(e);\r\n", ""),
        ]
    );
}
