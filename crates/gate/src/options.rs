//! How to run the gate.

/// How to run the gate: what the caller may choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOptions {
    /// The ref the feature branch is compared with (its merge base with HEAD).
    pub base_ref: String,
    /// Run the commands the repository declares for the verification loop in a Landlock
    /// sandbox: they may read system locations and the toolchains on `PATH`, and write only the
    /// repository and a private temporary folder. On when gatebench judges fixtures (data from
    /// others); off by default for `gatebench gate` on one's own repository, whose toolchains
    /// may live anywhere (`--sandbox` turns it on).
    pub sandbox_commands: bool,
}

impl Default for GateOptions {
    fn default() -> GateOptions {
        GateOptions {
            base_ref: "main".to_owned(),
            sandbox_commands: false,
        }
    }
}
