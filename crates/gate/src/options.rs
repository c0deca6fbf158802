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
    /// The repository as its maker fixed it (git dir, configuration, the files that steer an
    /// open), when the gate judges a repository others have written into: every open goes through
    /// [`Pinned::open`](gatebench_gittree::pinned::Pinned::open), which refuses a repository whose
    /// `.git` says something else and never honours its configuration. gatebench sets it for
    /// every trial. `None` (`gatebench gate` on one's own repository): opened as git opens it,
    /// its own configuration (`core.worktree` included) honoured.
    pub pinned: Option<gatebench_gittree::pinned::Pinned>,
    /// `light` reads (the ledger, the code, the logs); `deep` also runs the tests: each receipt's
    /// command again, and each obligation's tests with its code neutralized (`deep/`).
    pub depth: Depth,
}

/// How far the gate goes (docs/CONCEPTS.md#verify-report-v1: `scope.depth`); a scenario's
/// `depth:` of the built-in pipeline.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Depth {
    /// Reads only: fast, nothing runs but the verification loop's declared commands.
    #[default]
    Light,
    /// Runs the tests too, in a throwaway copy of the work tree, sandboxed.
    Deep,
}

impl Depth {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether it is the default, `light` (a scenario leaves it out).
    pub fn is_light(&self) -> bool {
        *self == Depth::Light
    }
}

impl Default for GateOptions {
    fn default() -> GateOptions {
        GateOptions {
            base_ref: "main".to_owned(),
            sandbox_commands: false,
            pinned: None,
            depth: Depth::Light,
        }
    }
}
