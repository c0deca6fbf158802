//! The live progress line on a terminal while a run goes: trials done of all, false passes so
//! far, elapsed time and an estimate of what is left (indicatif). It draws nothing when disabled
//! (`--quiet`) or when standard error is not a terminal, so CI logs stay clean.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::score::outcome::Outcome;
use crate::score::record::TrialRecord;

pub struct LiveProgress {
    bar: ProgressBar,
    false_passes: AtomicU64,
    other_bad: AtomicU64,
}

impl LiveProgress {
    /// A progress line on standard error when `enabled` and it is a terminal; otherwise hidden.
    pub fn new(enabled: bool) -> LiveProgress {
        let target = if enabled {
            // indicatif's stderr target draws only when stderr is a terminal.
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        if let Ok(style) = ProgressStyle::with_template(
            "{bar:20.green/white} {pos}/{len} trials  {msg}  {elapsed} (~{eta} left)",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message("false passes 0");
        if enabled {
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        LiveProgress {
            bar,
            false_passes: AtomicU64::new(0),
            other_bad: AtomicU64::new(0),
        }
    }

    /// Called as each trial finishes (from worker threads).
    pub fn on_trial(&self, record: &TrialRecord, done: usize, total: usize) {
        if self.bar.length() != Some(total as u64) {
            self.bar.set_length(total as u64);
        }
        match record.outcome {
            Outcome::FalsePass => {
                self.false_passes.fetch_add(1, Ordering::Relaxed);
            }
            o if !o.is_good() => {
                self.other_bad.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
        self.bar.set_message(self.message());
        self.bar.set_position(done as u64);
    }

    /// `false passes 1, other failures 2`: what the line says besides the counts.
    pub fn message(&self) -> String {
        let fp = self.false_passes.load(Ordering::Relaxed);
        let other = self.other_bad.load(Ordering::Relaxed);
        if other == 0 {
            format!("false passes {fp}")
        } else {
            format!("false passes {fp}, other failures {other}")
        }
    }

    /// Removes the line before the summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_false_passes_apart_from_other_failures() {
        let p = LiveProgress::new(false);
        let mut t: TrialRecord = serde_json::from_value(serde_json::json!({
            "fixture": "f", "category": "c", "golden": false, "trial": 0, "outcome": "false-pass",
            "reason": "", "matchers": [], "rounds": [], "convergence": null, "commits": {},
            "materialize_ms": 0, "duration_ms": 0, "work_dir": "", "kept_at": null
        }))
        .unwrap();
        p.on_trial(&t, 1, 3);
        t.outcome = Outcome::WrongReason;
        p.on_trial(&t, 2, 3);
        t.outcome = Outcome::Detected;
        p.on_trial(&t, 3, 3);
        assert_eq!(p.message(), "false passes 1, other failures 1");
        assert!(p.bar.is_hidden());
        assert_eq!(p.bar.position(), 3);
    }
}
