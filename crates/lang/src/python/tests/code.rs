//! The code operators on snippets: the exact mutant of each, and where each must not apply
//! (test code, stubs, module level).

use super::{mutated, muts, only, sites};
use crate::Operator::*;

const CANCEL: &str = "\
def cancel(sub, caller):
    \"\"\"Cancel it.\"\"\"
    if sub.owner != caller:
        log.warning(\"denied\")
        raise Forbidden(sub.id)
    sub.status = CANCELLED
    store.publish(Event(sub.id))
    return sub
";

/// A test module: code operators find nothing in it, helpers included.
const TEST_MODULE: &str = "\
import pytest

def make(a, b):
    if a is None:
        raise ValueError(a)
    store.save(a, b)
    return a, b

def test_make():
    assert make(1, 2) == (1, 2)
";

#[test]
fn code_operators_skip_test_modules() {
    for op in crate::Operator::all().filter(|o| o.family() == crate::OperatorFamily::Code) {
        assert_eq!(muts(TEST_MODULE, op), [], "{op:?}");
    }
    // The same helper outside a test module is code.
    let code = TEST_MODULE
        .replace("import pytest\n", "")
        .replace("def test_make", "def run");
    assert_eq!(sites(&code, DropGuard), ["make"]);
}

#[test]
fn stub_raise_keeps_the_docstring_and_varies_by_site() {
    assert_eq!(
        only(CANCEL, StubRaise),
        "def cancel(sub, caller):\n    \"\"\"Cancel it.\"\"\"\n    raise RuntimeError(\"not implemented yet\")\n"
    );
    let source = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c(): return 3\n\ndef d():\n    x = 4\n    return x\n";
    let stubs: Vec<String> = muts(source, StubRaise)
        .iter()
        .map(|m| m.edits[0].text.clone())
        .collect();
    assert_eq!(
        stubs,
        [
            "raise NotImplementedError(\"TODO\")",
            "raise RuntimeError(\"not implemented yet\")",
            "raise NotImplementedError(\"implement me\")",
            "raise NotImplementedError",
        ]
    );
    assert_eq!(
        mutated(source, StubRaise)[2],
        source.replace(
            "def c(): return 3",
            "def c(): raise NotImplementedError(\"implement me\")"
        )
    );
    assert_eq!(
        mutated(source, StubRaise)[3],
        source.replace(
            "    x = 4\n    return x\n",
            "    raise NotImplementedError\n"
        )
    );
    let m = &muts(CANCEL, StubRaise)[0];
    assert_eq!(
        (m.site.as_str(), m.function.as_str(), m.lines),
        ("cancel", "cancel", [3, 8])
    );
}

#[test]
fn stubs_skip_functions_already_stubbed() {
    let source = "\
class Port:
    def a(self):
        \"\"\"Only a docstring.\"\"\"

    def b(self):
        ...

    def c(self):
        raise NotImplementedError(\"later\")

    def d(self):
        return None

    def e(self):
        raise RuntimeError(\"Not implemented\")

    def f(self):
        return self.x
";
    assert_eq!(sites(source, StubRaise), ["port-f"]);
    assert_eq!(sites(source, StubDefault), ["port-f"]);
}

#[test]
fn stub_default_forms() {
    let source = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef cc():\n    return 3\n";
    assert_eq!(
        mutated(source, StubDefault),
        [
            source.replace("return 1", "return None"),
            source.replace("return 2", "..."),
            source.replace("return 3", "pass"),
        ]
    );
    // `return <value>` is a syntax error in an async generator: `pass` there.
    let source = "async def a(xs):\n    for x in xs:\n        yield x\n";
    assert_eq!(only(source, StubDefault), "async def a(xs):\n    pass\n");
}

#[test]
fn drop_guard_deletes_the_if_and_its_log_line() {
    assert_eq!(
        only(CANCEL, DropGuard),
        "def cancel(sub, caller):\n    \"\"\"Cancel it.\"\"\"\n    sub.status = CANCELLED\n    store.publish(Event(sub.id))\n    return sub\n"
    );
    let m = &muts(CANCEL, DropGuard)[0];
    assert_eq!(m.lines, [3, 5]);
    assert_eq!(
        m.description,
        "`cancel`: the guard `if sub.owner != caller: log.warning(\"denied\") raise Forbi...` deleted"
    );
}

#[test]
fn drop_guard_leaves_pass_in_an_emptied_block_and_skips_non_guards() {
    let source = "\
def f(xs):
    for x in xs:
        if x < 0:
            return
    if xs:
        total = 1
    if xs:
        raise E
    else:
        pass
    while True:
        if done(): break
";
    assert_eq!(
        only(source, DropGuard),
        source.replace("        if x < 0:\n            return\n", "        pass\n")
    );
}

#[test]
fn drop_error_branch_keeps_the_reraise_or_empties_to_pass() {
    let source = "\
def save(conn):
    try:
        conn.write()
    except OSError:
        conn.rollback()
        log.error(\"failed\")
        raise
    except ValueError as exc:
        report(exc)
        return 1
    except KeyError:
        raise
    except TypeError:
        pass
";
    assert_eq!(
        mutated(source, DropErrorBranch),
        [
            source.replace(
                "        conn.rollback()\n        log.error(\"failed\")\n",
                ""
            ),
            source.replace("report(exc)\n        return 1", "pass"),
        ]
    );
    let m = &muts(source, DropErrorBranch)[0];
    assert_eq!(m.lines, [5, 6]);
    assert_eq!(
        m.description,
        "`save`: the `except OSError` branch reduced to its re-raise (`conn.rollback() log.error(\"failed\")` deleted)"
    );
}

#[test]
fn flip_comparison_every_operator() {
    let source = "\
def f(a, b):
    return [a == b, a != b, a < b, a <= b, a > b, a >= b, a is b, a is not b, a in b, a not in b]
";
    let flipped: Vec<String> = mutated(source, FlipComparison)
        .iter()
        .map(|s| {
            s.trim_start_matches("def f(a, b):\n    return ")
                .to_string()
        })
        .collect();
    assert_eq!(
        flipped,
        [
            "[a != b, a != b, a < b, a <= b, a > b, a >= b, a is b, a is not b, a in b, a not in b]\n",
            "[a == b, a == b, a < b, a <= b, a > b, a >= b, a is b, a is not b, a in b, a not in b]\n",
            "[a == b, a != b, a >= b, a <= b, a > b, a >= b, a is b, a is not b, a in b, a not in b]\n",
            "[a == b, a != b, a < b, a > b, a > b, a >= b, a is b, a is not b, a in b, a not in b]\n",
            "[a == b, a != b, a < b, a <= b, a <= b, a >= b, a is b, a is not b, a in b, a not in b]\n",
            "[a == b, a != b, a < b, a <= b, a > b, a < b, a is b, a is not b, a in b, a not in b]\n",
            "[a == b, a != b, a < b, a <= b, a > b, a >= b, a is not b, a is not b, a in b, a not in b]\n",
            "[a == b, a != b, a < b, a <= b, a > b, a >= b, a is b, a is b, a in b, a not in b]\n",
            "[a == b, a != b, a < b, a <= b, a > b, a >= b, a is b, a is not b, a not in b, a not in b]\n",
            "[a == b, a != b, a < b, a <= b, a > b, a >= b, a is b, a is not b, a in b, a in b]\n",
        ]
    );
    let ids = sites(source, FlipComparison);
    assert_eq!(ids[..3], ["f", "f-2", "f-3"]);
}

#[test]
fn comparisons_in_lambdas_belong_to_the_function_nested_bodies_to_theirs() {
    let source = "\
def outer(xs):
    @retry(xs, 3)
    def inner(x=len(xs) > 1):
        return x == 1
    return filter(lambda x: x > 0, xs)
";
    let found: Vec<(String, String)> = muts(source, FlipComparison)
        .into_iter()
        .map(|m| (m.function, m.edits[0].text.clone()))
        .collect();
    assert_eq!(
        found,
        [
            ("outer".to_string(), "<=".to_string()),
            ("outer.inner".to_string(), "!=".to_string()),
            ("outer".to_string(), "<=".to_string()),
        ]
    );
    assert_eq!(
        muts(source, SwapCallArgs)
            .iter()
            .map(|m| m.description.as_str())
            .collect::<Vec<_>>(),
        // `filter(lambda ..., xs)` is left alone: a lambda is not a simple argument.
        ["`outer`: the arguments `xs` and `3` of `retry(...)` swapped"]
    );
}

#[test]
fn flip_comparison_not_at_module_level_nor_in_tests() {
    let source = "\
LIMIT = 3 if MODE == \"fast\" else 5

if __name__ == \"__main__\":
    main()
";
    assert_eq!(muts(source, FlipComparison), []);
    assert_eq!(muts(TEST_MODULE, FlipComparison), []);
}

#[test]
fn shift_boundary_moves_orderings_only() {
    let source = "def f(a, b):\n    return a < b and a >= b and a == b\n";
    assert_eq!(
        mutated(source, ShiftBoundary),
        [
            "def f(a, b):\n    return a <= b and a >= b and a == b\n",
            "def f(a, b):\n    return a < b and a > b and a == b\n",
        ]
    );
    assert_eq!(muts("def f(a, b):\n    return a == b\n", ShiftBoundary), []);
}

#[test]
fn swap_return_values_of_tuples_and_lists() {
    let source = "\
def f(name):
    if name:
        return (name, 1)
    parts = name.split()
    return [parts[0], parts[1]]

def g(x):
    return x, x
";
    assert_eq!(
        mutated(source, SwapReturnValues),
        [
            source.replace("(name, 1)", "(1, name)"),
            source.replace("[parts[0], parts[1]]", "[parts[1], parts[0]]"),
        ]
    );
    let m = &muts(source, SwapReturnValues)[0];
    assert_eq!(
        m.description,
        "`f`: `name` and `1` swapped in `return (name, 1)`"
    );
}

#[test]
fn swap_call_args_positional_and_different_only() {
    let source = "\
def f(a, b):
    g(a, b, key=1)
    g(a, a)
    g(*a, b)
    g(a, **b)
    g(key=a, other=b)
    g(lambda: a, b)
    g(a)
";
    assert_eq!(
        only(source, SwapCallArgs),
        source.replace("g(a, b, key=1)", "g(b, a, key=1)")
    );
}

#[test]
fn drop_side_effect_deletes_call_statements() {
    assert_eq!(
        mutated(CANCEL, DropSideEffect),
        [
            CANCEL.replace("        log.warning(\"denied\")\n", ""),
            CANCEL.replace("    store.publish(Event(sub.id))\n", ""),
        ]
    );
    let source = "\
async def f(conn):
    await conn.send(1)
    x = conn.read()
    print(x)
    with lock:
        conn.flush()
";
    assert_eq!(
        mutated(source, DropSideEffect),
        [
            source.replace("    await conn.send(1)\n", ""),
            source.replace("    print(x)\n", ""),
            source.replace("conn.flush()", "pass"),
        ]
    );
    assert_eq!(muts(TEST_MODULE, DropSideEffect), []);
}

#[test]
fn return_early_before_the_last_statement() {
    assert_eq!(
        only(CANCEL, ReturnEarly),
        CANCEL.replace("    return sub\n", "    return\n    return sub\n")
    );
    let source = "\
def one():
    \"\"\"Doc.\"\"\"
    return 1

def already_none(x):
    x.save()
    return None

def inline(x):
    x.a(); x.b()
";
    assert_eq!(
        only(source, ReturnEarly),
        source.replace("x.a(); x.b()", "x.a(); return; x.b()")
    );
}
