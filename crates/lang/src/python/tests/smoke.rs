//! A smoke test over two files of goldens, read at compile time (`include_str!`): `orders-migration`'s
//! `orders/migrate_v2.py` (code) and `subscription-cancel`'s `tests/test_cancel.py` (tests).

use super::{mutated, muts};
use crate::{tests, Lang, Operator, TestStatus};

/// fixtures/orders-migration/head/orders/migrate_v2.py
const MIGRATE: &str =
    include_str!("../../../../../fixtures/orders-migration/head/orders/migrate_v2.py");

/// fixtures/subscription-cancel/head/tests/test_cancel.py
const TEST_CANCEL: &str =
    include_str!("../../../../../fixtures/subscription-cancel/head/tests/test_cancel.py");

fn counts(source: &str) -> Vec<(&'static str, usize)> {
    Operator::all()
        .map(|op| (op.as_str(), muts(source, op).len()))
        .filter(|(_, n)| *n > 0)
        .collect()
}

#[test]
fn sites_per_operator_in_code() {
    assert_eq!(
        counts(MIGRATE),
        [
            ("stub-raise", 4),
            ("stub-default", 4),
            ("drop-guard", 3),
            ("drop-error-branch", 2),
            ("flip-comparison", 3),
            ("swap-return-values", 1),
            ("swap-call-args", 2),
            ("drop-side-effect", 15),
            ("return-early", 4),
        ]
    );
}

#[test]
fn sites_per_operator_in_tests() {
    assert_eq!(
        counts(TEST_CANCEL),
        [
            ("drop-assertion", 41),
            ("trivial-assertion", 35),
            ("skip-test", 9),
            ("expect-failure", 9),
            ("comment-out-test", 9),
            ("drop-negative-assertions", 3),
            ("empty-test-body", 9),
        ]
    );
    let t = tests(Lang::Python, TEST_CANCEL).expect("parses");
    assert_eq!(t.len(), 9);
    assert!(t.iter().all(|t| t.status == TestStatus::Live));
    assert_eq!(t[4].name, "test_live_subscriptions_can_be_cancelled");
    assert_eq!(t[4].lines, [93, 99]);
}

#[test]
fn the_rollback_is_dropped_from_the_migration() {
    let m = &muts(MIGRATE, Operator::DropErrorBranch)[0];
    assert_eq!((m.site.as_str(), m.lines), ("migrate", [82, 82]));
    assert_eq!(
        mutated(MIGRATE, Operator::DropErrorBranch)[0],
        MIGRATE.replace(
            "    except BaseException:\n        conn.rollback()\n        raise\n",
            "    except BaseException:\n        raise\n"
        )
    );
    let m = &muts(MIGRATE, Operator::SwapReturnValues)[0];
    assert_eq!(m.function, "split_name");
    assert_eq!(
        mutated(MIGRATE, Operator::SwapReturnValues)[0],
        MIGRATE.replace(
            "return parts[0], \" \".join(parts[1:])",
            "return \" \".join(parts[1:]), parts[0]"
        )
    );
}

#[test]
fn the_side_effect_checks_are_dropped_from_a_test() {
    let all = muts(TEST_CANCEL, Operator::DropNegativeAssertions);
    let sites: Vec<&str> = all.iter().map(|m| m.site.as_str()).collect();
    assert_eq!(
        sites,
        [
            "test-non-owner-is-rejected-without-side-effects",
            "test-failed-write-leaves-subscription-active",
            "test-expired-subscription-cannot-be-cancelled",
        ]
    );
    assert_eq!(
        mutated(TEST_CANCEL, Operator::DropNegativeAssertions)[1],
        TEST_CANCEL
            .replace(
                "    assert store.get(\"sub_1\").cancelled_at is None\n    assert store.cancellation_for(\"key-1\") is None\n    assert gateway.calls == []\n\n    def broken_remember",
                "\n    def broken_remember"
            )
            .replace(
                "    assert store.outbox == []\n    assert gateway.calls == []\n\n    # nothing",
                "\n    # nothing"
            )
            .replace(
                "    assert not cancel_subscription(store, refunds, \"sub_1\", \"alice\", \"key-1\", now=MIDWAY).replayed\n",
                ""
            )
    );
}
