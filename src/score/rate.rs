//! Proportions with their Wilson 95% score intervals, and Newcombe's interval of the difference of
//! two: the statistics every rate gatebench reports is given with.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A proportion with its Wilson score interval at 95%.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rate {
    pub numerator: u64,
    pub denominator: u64,
    /// `None` when the denominator is 0: nothing was measured.
    pub value: Option<f64>,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    pub fn new(numerator: u64, denominator: u64) -> Rate {
        let (low, high) = wilson(numerator, denominator);
        Rate {
            numerator,
            denominator,
            value: (denominator > 0).then(|| numerator as f64 / denominator as f64),
            low,
            high,
        }
    }
}

/// The Wilson score interval for `k` successes in `n` trials at 95% (z = 1.96). With no trials it
/// is the whole of [0, 1]: nothing is known.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let z2 = z * z;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f) + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    // At k = 0 and k = n the bounds are exactly 0 and 1; floating point would leave 1e-16 off.
    let low = if k == 0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let high = if k == n {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (low, high)
}

/// The 95% interval of the difference `new - base` of two independent proportions: Newcombe's
/// hybrid score interval (method 10 of Newcombe 1998), built from each rate's Wilson interval.
pub fn difference_interval(base: &Rate, new: &Rate) -> Option<(f64, f64, f64)> {
    let (p1, p2) = (base.value?, new.value?);
    let d = p2 - p1;
    let low = d - ((p2 - new.low).powi(2) + (base.high - p1).powi(2)).sqrt();
    let high = d + ((new.high - p2).powi(2) + (p1 - base.low).powi(2)).sqrt();
    Some((d, low.max(-1.0), high.min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // 0/10: [0, 0.2775]; 10/10: [0.7225, 1]; 5/10: [0.2366, 0.7634] (Wilson 1927, z = 1.96).
        let (l, h) = wilson(0, 10);
        assert!(l == 0.0 && (h - 0.2775).abs() < 1e-4, "{l} {h}");
        let (l, h) = wilson(10, 10);
        assert!((l - 0.7225).abs() < 1e-4 && h == 1.0, "{l} {h}");
        let (l, h) = wilson(5, 10);
        assert!(
            (l - 0.2366).abs() < 1e-4 && (h - 0.7634).abs() < 1e-4,
            "{l} {h}"
        );
    }

    #[test]
    fn nothing_measured_is_the_whole_interval() {
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        assert_eq!(Rate::new(0, 0).value, None);
    }

    fn rate(k: u64, n: u64) -> Rate {
        Rate::new(k, n)
    }

    #[test]
    fn the_difference_interval_matches_newcombe_1998() {
        // Newcombe (1998), Statistics in Medicine 17, table II, example (a): 56/70 vs 48/80,
        // difference 0.2000, method 10 interval [0.0524, 0.3339].
        let (d, low, high) = difference_interval(&rate(48, 80), &rate(56, 70)).unwrap();
        assert!((d - 0.2).abs() < 1e-9, "{d}");
        assert!((low - 0.0524).abs() < 1e-4, "{low}");
        assert!((high - 0.3339).abs() < 1e-4, "{high}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        assert!(difference_interval(&rate(0, 0), &rate(1, 2)).is_none());
    }
}
