//! A smoke test over a real golden file: fixtures/throttle-token-bucket/head/src/bucket.rs, read at compile time (`include_str!`).

use super::{after, sites};
use crate::Operator::{self, *};

const BUCKET: &str =
    include_str!("../../../../../fixtures/throttle-token-bucket/head/src/bucket.rs");

#[test]
fn every_operator_has_its_sites_in_the_golden_bucket() {
    let counts: Vec<(Operator, usize)> = Operator::all()
        .map(|op| (op, sites(BUCKET, op).len()))
        .collect();
    assert_eq!(
        counts,
        [
            (StubRaise, 6),
            (StubDefault, 5),
            (DropGuard, 5),
            (DropErrorBranch, 0),
            (FlipComparison, 6),
            (ShiftBoundary, 3),
            (SwapReturnValues, 0),
            (SwapCallArgs, 1),
            (DropSideEffect, 5),
            (ReturnEarly, 1),
            (DropAssertion, 9),
            (TrivialAssertion, 9),
            (SkipTest, 3),
            (ExpectFailure, 0),
            (CommentOutTest, 3),
            (DropNegativeAssertions, 2),
            (EmptyTestBody, 3),
        ]
    );
}

#[test]
fn the_golden_buckets_tests_and_a_few_exact_mutations() {
    let names: Vec<String> = crate::tests(crate::Lang::Rust, BUCKET)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        [
            "tests::refill_is_capped_at_capacity",
            "tests::a_cost_equal_to_capacity_empties_a_full_bucket",
            "tests::a_clock_going_backwards_adds_no_tokens",
        ]
    );

    let guards = sites(BUCKET, DropGuard);
    assert_eq!(guards[3].site, "tokenbucket-try-acquire-2");
    assert_eq!(guards[3].lines, [64, 70]);
    let denial = "        if self.milli_tokens < needed {
            let missing = needed - self.milli_tokens;
            return Err(AcquireError::Denied(Denied::after(
                missing,
                self.refill_per_sec,
            )));
        }
";
    assert_eq!(after(BUCKET, &guards[3]), BUCKET.replacen(denial, "", 1));

    let swap = &sites(BUCKET, SwapCallArgs)[0];
    assert_eq!(
        after(BUCKET, swap),
        BUCKET.replacen(
            "                missing,\n                self.refill_per_sec,",
            "                self.refill_per_sec,\n                missing,",
            1
        )
    );

    let defaults = sites(BUCKET, StubDefault);
    assert_eq!(defaults[0].function, "TokenBucket::try_acquire");
    assert_eq!(defaults[0].edits[0].text, "Ok(())");
    assert_eq!(defaults[3].function, "ConfigError::fmt");
    assert_eq!(defaults[3].edits[0].text, "Ok(())");

    let negatives = sites(BUCKET, DropNegativeAssertions);
    assert_eq!(
        negatives[1].function,
        "tests::a_clock_going_backwards_adds_no_tokens"
    );
    // Both zero checks of that test go; the one in the test before it stays.
    let (head, tail) = BUCKET.split_at(BUCKET.find("fn a_clock_going_backwards").unwrap());
    let zero = "        assert_eq!(bucket.available(), 0);\n";
    let want = format!("{head}{}", tail.replacen(zero, "", 2));
    assert_eq!(after(BUCKET, &negatives[1]), want);

    let stub = crate::neutralize(crate::Lang::Rust, BUCKET, [55, 73])
        .unwrap()
        .expect("try_acquire");
    assert_eq!(stub.function, "TokenBucket::try_acquire");
    assert_eq!(stub.operator, StubRaise);
    assert_eq!(stub.edits[0].text, "todo!()");
}
