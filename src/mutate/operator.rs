//! A mutation operator: its name, family and kind, what sites it finds in a golden's ledger and
//! files, and the planted change (files written or deleted in one layer, with the locus) per site.

use crate::corpus::model::fixture::{ExpectedRounds, LayerName, LocusEntry};
use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::corpus::{Blob, Files};
use crate::mutate::ledger::Ledger;

/// The families of issue 12, for grouping and per-family metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Family {
    Ledger,
    Tasks,
    Refs,
    Evidence,
    Approvals,
    Ownership,
    Code,
    Reviews,
    Convergence,
    Delivery,
}

impl Family {
    /// The family's name, as mutant categories carry it (`mutant-<family>`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One mutation operator.
pub struct Operator {
    /// Unique kebab-case name; part of every mutant id.
    pub name: &'static str,
    pub family: Family,
    /// The kind of omission every mutant of this operator plants (docs/TAXONOMY.md).
    pub kind: Kind,
    /// Where it finds its sites, in one line.
    pub finds: &'static str,
    /// What it does at a site, in one line.
    pub does: &'static str,
    /// Every site in a golden: its id and the change, or why it cannot be applied cleanly.
    pub sites: fn(&Ledger) -> Vec<Site>,
}

/// One applicable site of an operator in a golden.
pub struct Site {
    /// Stable within (golden, operator): lowercase letters, digits and dashes after sanitizing.
    pub id: String,
    pub planted: Result<Planted, String>,
}

impl Site {
    pub fn ok(id: impl Into<String>, planted: Planted) -> Site {
        Site {
            id: id.into(),
            planted: Ok(planted),
        }
    }

    pub fn unviable(id: impl Into<String>, why: impl Into<String>) -> Site {
        Site {
            id: id.into(),
            planted: Err(why.into()),
        }
    }
}

/// The change planted at a site, and the ground truth it implies.
#[derive(Debug, Clone)]
pub struct Planted {
    pub description: String,
    /// The layer changed (`unstaged` with a file no layer has is an untracked file).
    pub into: LayerName,
    pub write: Files,
    pub delete: Vec<String>,
    pub locus: Vec<LocusEntry>,
    /// Scripted fixes (each a whole work tree); `None`: one fix after round 1 that restores the
    /// golden's files.
    pub fixes: Option<Vec<Files>>,
    /// The round the loop converges in; `None`: round 2.
    pub rounds: Option<ExpectedRounds>,
    /// The mutant's tier: `ledger` (the default) or `semantic` (a semantic generator's).
    pub tier: Tier,
    /// With `tier: semantic`: whether the golden's own test suite fails on the mutant.
    pub signal: Option<Signal>,
}

impl Planted {
    pub fn new(description: impl Into<String>, into: LayerName) -> Planted {
        Planted {
            description: description.into(),
            into,
            write: Files::new(),
            delete: Vec::new(),
            locus: Vec::new(),
            fixes: None,
            rounds: None,
            tier: Tier::Ledger,
            signal: None,
        }
    }

    /// A semantic mutant (`tier: semantic`) with its signal: whether the golden's own test suite
    /// fails on it (`loud`) or stays green (`silent`).
    pub fn semantic(mut self, signal: Signal) -> Planted {
        self.tier = Tier::Semantic;
        self.signal = Some(signal);
        self
    }

    pub fn head(description: impl Into<String>) -> Planted {
        Planted::new(description, LayerName::Head)
    }

    pub fn write(mut self, path: &str, content: impl Into<Vec<u8>>) -> Planted {
        self.write
            .insert(path.to_owned(), Blob::from(content.into()));
        self
    }

    pub fn delete(mut self, path: &str) -> Planted {
        self.delete.push(path.to_owned());
        self
    }

    pub fn at_path(mut self, path: &str) -> Planted {
        self.locus.push(LocusEntry {
            path: Some(path.to_owned()),
            ..LocusEntry::default()
        });
        self
    }

    pub fn at_lines(mut self, path: &str, lines: [u64; 2]) -> Planted {
        self.locus.push(LocusEntry {
            path: Some(path.to_owned()),
            lines: Some(lines),
            ..LocusEntry::default()
        });
        self
    }

    pub fn at_requirement(mut self, id: &str) -> Planted {
        self.locus.push(LocusEntry {
            requirement: Some(id.to_owned()),
            ..LocusEntry::default()
        });
        self
    }

    pub fn at_obligation(mut self, id: &str) -> Planted {
        self.locus.push(LocusEntry {
            obligation: Some(id.to_owned()),
            ..LocusEntry::default()
        });
        self
    }

    pub fn at_task(mut self, id: &str) -> Planted {
        self.locus.push(LocusEntry {
            task: Some(id.to_owned()),
            ..LocusEntry::default()
        });
        self
    }
}

/// A site id made of parts: lowercased, every run of other characters one dash.
pub fn site_id(parts: &[&str]) -> String {
    let mut out = String::new();
    for c in parts.join("-").chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}
