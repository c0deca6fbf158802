//! A finding of the gate (or of the legacy checker) on its way into the report v1 `findings[]`
//! and `issues[]`: the rule it was raised under, what it says and where.

use crate::check::{Class, Rule};

/// The highest severity of a warning: a finding at or below it is reported but does not fail the
/// gate (an unknown key in a ledger file).
pub const WARNING_MAX: u8 = 3;

/// One thing the gate found wrong, with the most precise place a person should open to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateFinding {
    /// The id of the check that raised it, as `findings[].validator` carries it.
    pub validator: &'static str,
    /// The registry rule it was raised under; `None` for the legacy checker, whose checks are
    /// not in the registry and whose findings are not typed.
    pub rule: Option<Rule>,
    pub severity: u8,
    pub class: Class,
    pub title: String,
    pub description: String,
    /// Repository path.
    pub path: Option<String>,
    pub line: Option<u64>,
    pub end_line: Option<u64>,
    pub requirement_id: Option<String>,
    pub obligation_id: Option<String>,
}

impl GateFinding {
    /// A finding raised under `rule`, with its check's severity and class.
    pub fn new(
        rule: Rule,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> GateFinding {
        let spec = rule.check.spec();
        GateFinding {
            validator: rule.check.as_str(),
            rule: Some(rule),
            ..GateFinding::unlocated(spec.severity, spec.class, title, description)
        }
    }

    /// A finding of the legacy checker (no registry rule), at severity 9.
    pub fn legacy(
        validator: &'static str,
        class: Class,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> GateFinding {
        GateFinding {
            validator,
            ..GateFinding::unlocated(9, class, title, description)
        }
    }

    fn unlocated(
        severity: u8,
        class: Class,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> GateFinding {
        GateFinding {
            validator: "",
            rule: None,
            severity,
            class,
            title: title.into(),
            description: description.into(),
            path: None,
            line: None,
            end_line: None,
            requirement_id: None,
            obligation_id: None,
        }
    }

    /// Locates the finding at `path` (a repository path), optionally at a line.
    pub fn at(mut self, path: impl Into<String>, line: Option<u64>) -> GateFinding {
        self.path = Some(path.into());
        self.line = line;
        self
    }

    pub fn requirement(mut self, id: impl Into<String>) -> GateFinding {
        self.requirement_id = Some(id.into());
        self
    }

    pub fn obligation(mut self, id: impl Into<String>) -> GateFinding {
        self.obligation_id = Some(id.into());
        self
    }

    /// Lowers (or raises) the finding's severity, e.g. to a warning (`WARNING_MAX` or less).
    pub fn severity(mut self, severity: u8) -> GateFinding {
        self.severity = severity;
        self
    }

    pub fn class(mut self, class: Class) -> GateFinding {
        self.class = class;
        self
    }
}
