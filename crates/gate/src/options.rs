//! How to run the gate.

/// How to run the gate: what the caller may choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOptions {
    /// The ref the feature branch is compared with (its merge base with HEAD).
    pub base_ref: String,
}

impl Default for GateOptions {
    fn default() -> GateOptions {
        GateOptions {
            base_ref: "main".to_owned(),
        }
    }
}
