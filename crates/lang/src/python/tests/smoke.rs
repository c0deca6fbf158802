//! A smoke test over two files of goldens, copied as they are: `orders-migration`'s
//! `orders/migrate_v2.py` (code) and `subscription-cancel`'s `tests/test_cancel.py` (tests).

use super::{mutated, muts};
use crate::{tests, Lang, Operator, TestStatus};

/// fixtures/orders-migration/head/orders/migrate_v2.py
const MIGRATE: &str = r#""""Migrate the orders table from schema v1 to v2.

v2 adds `first_name` and `last_name` (split from `name`) and `currency` (default 'USD'). The v1
columns are kept, so v1 readers keep working. The migration is one transaction: it either
completes and stamps `user_version = 2`, or leaves the database exactly as it was.

    python -m orders.migrate_v2 orders.db              # migrate to v2
    python -m orders.migrate_v2 orders.db --rollback   # back to v1
"""

import argparse
import sqlite3
import sys
from typing import Callable, List, Optional, Tuple

FROM_VERSION = 1
TO_VERSION = 2
DEFAULT_CURRENCY = "USD"
BATCH_SIZE = 1000


class MigrationError(Exception):
    """The migration was refused; the database is unchanged."""


def split_name(name: str) -> Tuple[str, str]:
    """The first word is the first name; the rest, single-spaced, the last name ('' if none)."""
    parts = name.split()
    return parts[0], " ".join(parts[1:])


def _malformed_ids(conn: sqlite3.Connection) -> List[int]:
    rows = conn.execute(
        "SELECT id FROM orders WHERE name IS NULL OR trim(name) = '' ORDER BY id"
    )
    return [row[0] for row in rows]


def migrate(
    conn: sqlite3.Connection,
    batch_size: int = BATCH_SIZE,
    on_batch: Optional[Callable[[int], None]] = None,
) -> int:
    """Migrate to v2 and return the number of rows migrated (0 when already at v2)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == TO_VERSION:
        return 0
    if version != FROM_VERSION:
        raise MigrationError(f"expected schema version {FROM_VERSION}, found {version}")
    malformed = _malformed_ids(conn)
    if malformed:
        raise MigrationError(f"orders with an empty name, fix them first: {malformed}")
    migrated = 0
    conn.execute("BEGIN")
    try:
        conn.execute("ALTER TABLE orders ADD COLUMN first_name TEXT")
        conn.execute("ALTER TABLE orders ADD COLUMN last_name TEXT")
        conn.execute(
            "ALTER TABLE orders ADD COLUMN currency TEXT NOT NULL "
            f"DEFAULT '{DEFAULT_CURRENCY}'"
        )
        last_id = None
        while True:
            # Keyset pagination: one batch in memory at a time, whatever the table size.
            batch = conn.execute(
                "SELECT id, name FROM orders WHERE ? IS NULL OR id > ? ORDER BY id LIMIT ?",
                (last_id, last_id, batch_size),
            ).fetchall()
            if not batch:
                break
            conn.executemany(
                "UPDATE orders SET first_name = ?, last_name = ? WHERE id = ?",
                [(*split_name(name), order_id) for order_id, name in batch],
            )
            migrated += len(batch)
            last_id = batch[-1][0]
            if on_batch is not None:
                on_batch(len(batch))
        conn.execute(f"PRAGMA user_version = {TO_VERSION}")
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return migrated


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orders.migrate_v2")
    parser.add_argument("database", help="path of the SQLite orders database")
    parser.add_argument("--rollback", action="store_true", help="return a v2 database to v1")
    args = parser.parse_args(argv)
    conn = sqlite3.connect(args.database)
    try:
        if args.rollback:
            from orders.rollback_v2 import rollback

            changed = rollback(conn)
            print("rolled back to schema v1" if changed else "already at schema v1")
        else:
            print(f"migrated {migrate(conn)} orders to schema v2")
    except MigrationError as exc:
        print(f"migration refused: {exc}", file=sys.stderr)
        return 1
    finally:
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
"#;

/// fixtures/subscription-cancel/head/tests/test_cancel.py
const TEST_CANCEL: &str = r#"import logging
from datetime import datetime, timezone

import pytest

from subscription.cancel import Forbidden, InvalidRequest, InvalidTransition, cancel_subscription
from subscription.gateway import FakeGateway
from subscription.models import Status, Subscription
from subscription.refund import RefundIssuer
from subscription.store import InMemoryStore, StoreError

START = datetime(2026, 3, 1, tzinfo=timezone.utc)
END = datetime(2026, 3, 31, tzinfo=timezone.utc)
MIDWAY = datetime(2026, 3, 16, tzinfo=timezone.utc)


def setup(*subs):
    store, gateway = InMemoryStore(), FakeGateway()
    for sub in subs or (Subscription("sub_1", "alice", "pro", 3000, START, END, payment_ref="pay_1"),):
        store.add(sub)
    return store, gateway, RefundIssuer(gateway)


def test_owner_can_cancel():
    store, gateway, refunds = setup()
    result = cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    assert result.status is Status.CANCELLED
    assert result.refund_cents == 1500
    assert store.get("sub_1").status is Status.CANCELLED
    assert store.get("sub_1").cancelled_at == MIDWAY
    assert [e.name for e in store.outbox] == ["SubscriptionCancelled"]


def test_non_owner_is_rejected_without_side_effects():
    store, gateway, refunds = setup()
    with pytest.raises(Forbidden):
        cancel_subscription(store, refunds, "sub_1", "mallory", "key-1", now=MIDWAY)
    assert store.get("sub_1").status is Status.ACTIVE
    assert store.outbox == []
    assert gateway.calls == []


def test_repeated_cancel_publishes_one_event_and_one_refund():
    store, gateway, refunds = setup()
    first = cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    second = cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    third = cancel_subscription(store, refunds, "sub_1", "alice", "key-2", now=MIDWAY)
    assert second.replayed and second.refund_id == first.refund_id
    assert third.replayed and third.refund_cents == 0
    assert len(store.outbox) == 1
    assert gateway.calls == ["key-1"]


def test_failed_write_leaves_subscription_active(monkeypatch):
    store, gateway, refunds = setup()

    def broken_publish(event):
        raise StoreError("outbox unavailable")

    monkeypatch.setattr(store, "publish", broken_publish)
    with pytest.raises(StoreError):
        cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    assert store.get("sub_1").status is Status.ACTIVE
    assert store.get("sub_1").cancelled_at is None
    assert store.cancellation_for("key-1") is None
    assert gateway.calls == []


@pytest.mark.parametrize("status", [Status.TRIAL, Status.ACTIVE, Status.PAST_DUE])
def test_live_subscriptions_can_be_cancelled(status):
    sub = Subscription("sub_1", "alice", "pro", 3000, START, END, status=status, payment_ref="p")
    store, gateway, refunds = setup(sub)
    assert cancel_subscription(store, refunds, "sub_1", "alice", "k", now=MIDWAY).status is Status.CANCELLED


def test_expired_subscription_cannot_be_cancelled():
    sub = Subscription("sub_1", "alice", "pro", 3000, START, END, status=Status.EXPIRED)
    store, gateway, refunds = setup(sub)
    with pytest.raises(InvalidTransition):
        cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    assert store.get("sub_1").status is Status.EXPIRED
    assert store.outbox == []


@pytest.mark.parametrize("args", [("", "alice", "k"), ("sub_1", " ", "k"), ("sub_1", "alice", None)])
def test_blank_arguments_are_rejected(args):
    store, gateway, refunds = setup()
    with pytest.raises(InvalidRequest):
        cancel_subscription(store, refunds, *args, now=MIDWAY)
    assert store.get("sub_1").status is Status.ACTIVE


def test_cancel_writes_audit_log(caplog):
    store, gateway, refunds = setup()
    with caplog.at_level(logging.INFO, logger="subscription.cancel"):
        cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    messages = [r.getMessage() for r in caplog.records if r.name == "subscription.cancel"]
    assert any("subscription.cancelled id=sub_1 actor=alice refund_cents=1500" in m for m in messages)


def test_cancel_keeps_record_and_other_subscriptions():
    mine = Subscription("sub_1", "alice", "pro", 3000, START, END, payment_ref="pay_1")
    other = Subscription("sub_2", "alice", "team", 9000, START, END, payment_ref="pay_2")
    store, gateway, refunds = setup(mine, other)
    cancel_subscription(store, refunds, "sub_1", "alice", "key-1", now=MIDWAY)
    assert store.get("sub_1") is not None
    assert store.get("sub_2").status is Status.ACTIVE
    assert len(store.list_for_owner("alice")) == 2
    assert [e.subscription_id for e in store.outbox] == ["sub_1"]
"#;

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
            ("drop-assertion", 29),
            ("trivial-assertion", 25),
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
    assert_eq!(t[4].lines, [69, 73]);
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
        TEST_CANCEL.replace(
            "    assert store.get(\"sub_1\").cancelled_at is None\n    assert store.cancellation_for(\"key-1\") is None\n    assert gateway.calls == []\n\n\n@pytest",
            "\n\n@pytest"
        )
    );
}
