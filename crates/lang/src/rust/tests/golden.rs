//! A smoke test over a real golden file: fixtures/throttle-token-bucket/head/src/bucket.rs, inline.

use super::{after, sites};
use crate::Operator::{self, *};

const BUCKET: &str = r#"//! A token bucket: bursts of up to `capacity` tokens, refilled at `refill_per_sec` per second.

use std::fmt;

use crate::clock::Clock;
use crate::retry::Denied;

/// Why a bucket cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    ZeroCapacity,
    ZeroRate,
}

/// Why a request was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcquireError {
    /// The cost can never be admitted: zero, or more than the bucket holds when full.
    InvalidCost { cost: u32, capacity: u32 },
    /// Not enough tokens now; the request may be retried after the hint.
    Denied(Denied),
}

#[derive(Debug)]
pub struct TokenBucket<C: Clock> {
    clock: C,
    capacity: u32,
    refill_per_sec: u32,
    // Thousandths of a token: at `refill_per_sec` tokens per second the bucket gains exactly
    // `refill_per_sec` milli-tokens per millisecond, so refilling needs no floating point.
    milli_tokens: u64,
    last_refill: u64,
}

impl<C: Clock> TokenBucket<C> {
    /// A full bucket of `capacity` tokens, refilled at `refill_per_sec` tokens per second.
    pub fn new(capacity: u32, refill_per_sec: u32, clock: C) -> Result<Self, ConfigError> {
        if capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        if refill_per_sec == 0 {
            return Err(ConfigError::ZeroRate);
        }
        let now = clock.now_millis();
        Ok(TokenBucket {
            clock,
            capacity,
            refill_per_sec,
            milli_tokens: u64::from(capacity) * 1000,
            last_refill: now,
        })
    }

    /// Takes `cost` tokens, all of them or none.
    pub fn try_acquire(&mut self, cost: u32) -> Result<(), AcquireError> {
        if cost == 0 || cost > self.capacity {
            return Err(AcquireError::InvalidCost {
                cost,
                capacity: self.capacity,
            });
        }
        self.refill();
        let needed = u64::from(cost) * 1000;
        if self.milli_tokens < needed {
            let missing = needed - self.milli_tokens;
            return Err(AcquireError::Denied(Denied::after(
                missing,
                self.refill_per_sec,
            )));
        }
        self.milli_tokens -= needed;
        Ok(())
    }

    /// Whole tokens available now.
    pub fn available(&mut self) -> u32 {
        self.refill();
        (self.milli_tokens / 1000) as u32
    }

    fn refill(&mut self) {
        let now = self.clock.now_millis();
        // A clock set backwards adds nothing, and the time it skipped back is not counted twice
        // when it moves forward again.
        if now <= self.last_refill {
            return;
        }
        let gained = (now - self.last_refill).saturating_mul(u64::from(self.refill_per_sec));
        let full = u64::from(self.capacity) * 1000;
        self.milli_tokens = self.milli_tokens.saturating_add(gained).min(full);
        self.last_refill = now;
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::ZeroCapacity => write!(f, "capacity must be at least 1 token"),
            ConfigError::ZeroRate => write!(f, "refill rate must be at least 1 token per second"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcquireError::InvalidCost { cost, capacity } => {
                write!(f, "a cost of {cost} can never fit a bucket of {capacity}")
            }
            AcquireError::Denied(denied) => denied.fmt(f),
        }
    }
}

impl std::error::Error for AcquireError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    #[test]
    fn refill_is_capped_at_capacity() {
        let clock = ManualClock::new(0);
        let mut bucket = TokenBucket::new(5, 10, &clock).unwrap();
        assert_eq!(bucket.try_acquire(5), Ok(()));
        clock.advance(3_600_000);
        assert_eq!(bucket.available(), 5);
        assert_eq!(bucket.milli_tokens, 5_000);
    }

    #[test]
    fn a_cost_equal_to_capacity_empties_a_full_bucket() {
        let clock = ManualClock::new(0);
        let mut bucket = TokenBucket::new(4, 1, &clock).unwrap();
        assert_eq!(bucket.try_acquire(4), Ok(()));
        assert_eq!(bucket.available(), 0);
    }

    #[test]
    fn a_clock_going_backwards_adds_no_tokens() {
        let clock = ManualClock::new(10_000);
        let mut bucket = TokenBucket::new(2, 1, &clock).unwrap();
        assert_eq!(bucket.try_acquire(2), Ok(()));
        clock.set(4_000);
        assert_eq!(bucket.available(), 0);
        clock.set(10_500);
        assert_eq!(bucket.available(), 0);
        assert_eq!(bucket.milli_tokens, 500);
    }
}
"#;

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
