//! The code operators: each one's exact edit on a snippet, and the code it must leave alone
//! (tests, a `#[cfg(test)]` module, code already in the mutated form).

use super::{after, sites};
use crate::Operator::{self, *};

const CODE: &str = r#"impl Bucket {
    /// Builds one.
    pub fn new(capacity: u32) -> Result<Self, ConfigError> {
        if capacity == 0 {
            return Err(ConfigError::Zero);
        }
        let now = clock();
        Ok(Bucket { capacity, now })
    }

    pub fn take(&mut self, cost: u32) -> bool {
        self.refill();
        if self.tokens < cost {
            return false;
        }
        self.tokens -= cost;
        true
    }

    fn refill(&mut self) {
        let now = clock();
        self.events.push(now);
        self.last = now;
    }

    fn pair(&self) -> (u32, u32) {
        (self.low, self.high)
    }
}

#[cfg(test)]
mod tests {
    fn helper(a: u32, b: u32) -> bool {
        if a > b { return false; }
        record(a, b);
        a == b
    }

    #[test]
    fn t() {
        let v = f(1, 2);
        v.push(3);
        assert!(v < 3);
    }
}
"#;

/// The functions `op` has sites in, and the sites' descriptions.
fn described(op: Operator) -> Vec<(String, String)> {
    sites(CODE, op)
        .into_iter()
        .map(|m| (m.function, m.description))
        .collect()
}

#[test]
fn stub_raise_varies_its_form_by_function_and_skips_tests() {
    let ms = sites(CODE, StubRaise);
    let fns: Vec<&str> = ms.iter().map(|m| m.function.as_str()).collect();
    assert_eq!(
        fns,
        [
            "Bucket::new",
            "Bucket::take",
            "Bucket::refill",
            "Bucket::pair"
        ]
    );
    assert_eq!(ms[1].site, "bucket-take");
    assert_eq!(ms[1].lines, [12, 17]);
    let stubbed = after(CODE, &ms[1]);
    let body = "self.refill();\n        if self.tokens < cost {\n            return false;\n        }\n        self.tokens -= cost;\n        true";
    let form = [
        "todo!()",
        "unimplemented!()",
        "unimplemented!(\"not yet\")",
        "panic!(\"not implemented\")",
    ][("Bucket::take".bytes().map(usize::from).sum::<usize>()) % 4];
    assert_eq!(stubbed, CODE.replacen(body, form, 1));
    // The doc comment and the signature stay.
    let new = after(CODE, &ms[0]);
    assert!(new.contains("    /// Builds one.\n    pub fn new(capacity: u32) -> Result<Self, ConfigError> {\n        "));
    let forms: std::collections::BTreeSet<String> =
        ms.iter().map(|m| m.edits[0].text.clone()).collect();
    assert!(forms.len() >= 2, "one marker for every site: {forms:?}");
}

#[test]
fn stub_raise_skips_a_body_that_is_already_a_stub() {
    let src = "fn a() -> u32 { todo!() }\nfn b() { unimplemented!(\"later\") }\nfn c() {}\n";
    assert_eq!(sites(src, StubRaise), []);
}

#[test]
fn stub_default_writes_the_return_types_quiet_value() {
    let ms = sites(CODE, StubDefault);
    let got: Vec<(&str, &str)> = ms
        .iter()
        .map(|m| (m.function.as_str(), m.edits[0].text.as_str()))
        .collect();
    // `Result<Self, _>`: `Self` is not defined here, so `Default::default()` may do.
    assert_eq!(
        got,
        [
            ("Bucket::new", "Ok(Default::default())"),
            ("Bucket::take", "false"),
            ("Bucket::refill", ""),
            ("Bucket::pair", "(0, 0)"),
        ]
    );
    assert_eq!(
        after(CODE, &ms[2]),
        CODE.replacen(
            "fn refill(&mut self) {\n        let now = clock();\n        self.events.push(now);\n        self.last = now;\n    }",
            "fn refill(&mut self) {}",
            1
        )
    );
    assert_eq!(
        after(CODE, &ms[3]),
        CODE.replacen("(self.low, self.high)", "(0, 0)", 1)
    );
}

#[test]
fn stub_default_knows_the_std_types_and_skips_the_ones_without_a_default() {
    let src = r#"struct NoDefault;
#[derive(Debug, Default)]
struct Counts;
fn a() -> Option<u8> { Some(1) }
fn b() -> Vec<u8> { vec![1] }
fn c() -> String { "x".into() }
fn d() -> f64 { 1.5 }
fn e() -> NoDefault { NoDefault }
fn f() -> Counts { Counts }
fn g<T>() -> T { make() }
fn h() -> impl Iterator<Item = u8> { it() }
fn i() -> &'static str { "x" }
fn j() -> bool { false }
fn k() -> Result<(), E> { go()?; Ok(()) }
impl Default for Counts { fn default() -> Self { Counts } }
"#;
    let got: Vec<(String, String)> = sites(src, StubDefault)
        .into_iter()
        .map(|m| (m.function, m.edits[0].text.clone()))
        .collect();
    let want = [
        ("a", "None"),
        ("b", "Vec::new()"),
        ("c", "String::new()"),
        ("d", "0.0"),
        ("f", "Default::default()"),
        ("i", "\"\""),
        ("k", "Ok(())"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn return_early_inserts_a_bare_return_before_the_last_statement_of_unit_functions() {
    let ms = sites(CODE, ReturnEarly);
    assert_eq!(ms.len(), 1, "only `refill` returns `()`: {ms:?}");
    assert_eq!(ms[0].function, "Bucket::refill");
    assert_eq!(ms[0].lines, [23, 23]);
    assert_eq!(
        after(CODE, &ms[0]),
        CODE.replacen(
            "        self.last = now;\n",
            "        return;\n        self.last = now;\n",
            1
        )
    );
    assert_eq!(sites("fn one() { a(); }\n", ReturnEarly), []);
}

#[test]
fn drop_guard_deletes_ifs_that_only_leave() {
    let ms = sites(CODE, DropGuard);
    assert_eq!(ms.len(), 2);
    assert_eq!(
        ms[0].description,
        "`Bucket::new`: the guard `if capacity == 0 { return Err(ConfigError::Zero); }` deleted"
    );
    assert_eq!(ms[0].lines, [4, 6]);
    assert_eq!(
        after(CODE, &ms[0]),
        CODE.replacen(
            "        if capacity == 0 {\n            return Err(ConfigError::Zero);\n        }\n",
            "",
            1
        )
    );
    assert_eq!(ms[1].function, "Bucket::take");
    // An `if` that does more than leave, one with an `else`, and `let .. else` are no guards.
    let src = "fn f(x: Option<u8>) -> u8 {\n    if a { log(); return 1; }\n    if b { return 2; } else { c(); }\n    let Some(y) = x else { return 0; };\n    if let Some(z) = x { let w = z; panic!(\"{w}\") }\n    y\n}\n";
    let ms = sites(src, DropGuard);
    assert_eq!(ms.len(), 1);
    assert_eq!(
        after(src, &ms[0]),
        src.replacen(
            "    if let Some(z) = x { let w = z; panic!(\"{w}\") }\n",
            "",
            1
        )
    );
}

#[test]
fn drop_error_branch_keeps_the_exit_and_deletes_the_cleanup() {
    let src = r#"fn save(&mut self) -> Result<(), E> {
    match self.write() {
        Ok(n) => self.count += n,
        Err(e) => {
            self.rollback();
            return Err(e);
        }
    }
    if let Err(e) = self.flush() {
        self.dirty = true;
        log(&e);
    }
    self.sync().map_err(|e| {
        self.failed += 1;
        let _ = self.reset();
        let kind = e.kind();
        E::from(kind)
    })?;
    self.check().map_err(|e| {
        let kind = e.kind();
        E::from(kind)
    })?;
    match self.close() {
        Err(e) => return Err(e),
        Ok(()) => {}
    }
    Ok(())
}
"#;
    let ms = sites(src, DropErrorBranch);
    assert_eq!(ms.len(), 3, "{ms:#?}");
    assert_eq!(
        after(src, &ms[0]),
        src.replacen("            self.rollback();\n", "", 1)
    );
    assert_eq!(
        ms[0].description,
        "`save`: the error branch `Err(e) =>` reduced to `return Err(e);`"
    );
    assert_eq!(
        after(src, &ms[1]),
        src.replacen(
            "{\n        self.dirty = true;\n        log(&e);\n    }",
            "{}",
            1
        )
    );
    // `let _ = ..` is cleanup; `let kind` is kept for the value that uses it.
    assert_eq!(
        after(src, &ms[2]),
        src.replacen(
            "        self.failed += 1;\n        let _ = self.reset();\n",
            "",
            1
        )
    );
    assert_eq!(
        ms[2].description,
        "`save`: the error branch `self.sync().map_err(|e|` reduced to its `let`s and `E::from(kind)`"
    );
}

#[test]
fn drop_error_branch_leaves_pure_propagation_and_tests_alone() {
    let src = r#"fn f() -> Result<(), E> {
    match g() {
        Err(e) => {
            return Err(e);
        }
        Ok(v) => v,
    }
    if let Err(e) = h() {
        return Err(e.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    fn helper() {
        if let Err(e) = h() {
            log(e);
        }
    }
}
"#;
    assert_eq!(sites(src, DropErrorBranch), []);
}

#[test]
fn comparisons_flip_and_shift_outside_tests_only() {
    assert_eq!(
        described(FlipComparison),
        [
            (
                "Bucket::new".to_string(),
                "`Bucket::new`: `capacity == 0` became `capacity != 0`".to_string()
            ),
            (
                "Bucket::take".to_string(),
                "`Bucket::take`: `self.tokens < cost` became `self.tokens >= cost`".to_string()
            ),
        ]
    );
    let ms = sites(CODE, ShiftBoundary);
    assert_eq!(ms.len(), 1);
    assert_eq!(
        after(CODE, &ms[0]),
        CODE.replacen("self.tokens < cost", "self.tokens <= cost", 1)
    );
    // Generics are not comparisons.
    assert_eq!(
        sites(
            "fn f(v: Vec<u8>) -> Option<u8> { v.get::<u8>(0) }\n",
            FlipComparison
        ),
        []
    );
}

#[test]
fn swap_return_values_swaps_the_first_two_returned_elements() {
    let ms = sites(CODE, SwapReturnValues);
    assert_eq!(ms.len(), 1);
    assert_eq!(
        after(CODE, &ms[0]),
        CODE.replacen("(self.low, self.high)", "(self.high, self.low)", 1)
    );
    let src = "fn f(a: u8) -> Option<[u8; 2]> {\n    if a > 1 { return Some([a, 1]); }\n    Some([a, a])\n}\n";
    let ms = sites(src, SwapReturnValues);
    assert_eq!(ms.len(), 1);
    assert_eq!(after(src, &ms[0]), src.replacen("[a, 1]", "[1, a]", 1));
}

#[test]
fn swap_call_args_needs_two_different_simple_arguments() {
    let src = "fn f(a: u8, b: u8) {\n    g(a, b);\n    g(a, a);\n    h(a);\n    v.sort_by(a, |x, y| x.cmp(y));\n    Denied::after(a + 1, self.rate);\n}\n";
    let ms = sites(src, SwapCallArgs);
    assert_eq!(ms.len(), 2, "{ms:#?}");
    assert_eq!(after(src, &ms[0]), src.replacen("g(a, b)", "g(b, a)", 1));
    assert_eq!(
        after(src, &ms[1]),
        src.replacen("after(a + 1, self.rate)", "after(self.rate, a + 1)", 1)
    );
    assert_eq!(ms[1].site, "f-2");
    // `f(1, 2)` in the test is not a site.
    assert_eq!(sites(CODE, SwapCallArgs), []);
}

#[test]
fn drop_side_effect_deletes_calls_and_writes_not_assertions_or_tests() {
    let ms = sites(CODE, DropSideEffect);
    let deleted: Vec<String> = ms.iter().map(|m| m.description.clone()).collect();
    assert_eq!(
        deleted,
        [
            "`Bucket::take`: the statement `self.refill();` deleted",
            "`Bucket::take`: the statement `self.tokens -= cost;` deleted",
            "`Bucket::refill`: the statement `self.events.push(now);` deleted",
            "`Bucket::refill`: the statement `self.last = now;` deleted",
        ]
    );
    assert_eq!(
        after(CODE, &ms[2]),
        CODE.replacen("        self.events.push(now);\n", "", 1)
    );
    let src = "fn f(x: &mut u8) {\n    assert!(*x > 0);\n    let y = g();\n    *x = 1;\n    log!(\"y {y}\"); h()?;\n    y\n}\n";
    let ms = sites(src, DropSideEffect);
    assert_eq!(ms.len(), 3, "{ms:#?}");
    assert_eq!(after(src, &ms[1]), src.replacen("log!(\"y {y}\"); ", "", 1));
    assert_eq!(after(src, &ms[2]), src.replacen("h()?;", "", 1));
}

#[test]
fn code_operators_leave_never_compiled_code_alone() {
    let src = "#[cfg(any())]\nfn off(a: u8) -> bool { a == 1 }\n";
    assert_eq!(sites(src, FlipComparison), []);
    assert_eq!(sites(src, StubRaise), []);
}
