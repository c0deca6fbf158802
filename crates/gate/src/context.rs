//! What every validator is given: the repository view and the effective workflow, plus helpers to
//! walk a feature's requirements.

use crate::ledger::{Obligation, Requirement, Requirements, Workflow};
use crate::repo::RepoView;

/// The state shared by all validators of one gate run.
pub struct Context<'a> {
    pub repo: &'a RepoView,
    /// `templates/workflow.yaml`, or the built-in default when it is absent or unreadable.
    pub workflow: &'a Workflow,
}

/// Every obligation with its requirement, in file order.
pub fn all_obligations(
    requirements: &Requirements,
) -> impl Iterator<Item = (&Requirement, &Obligation)> {
    requirements.requirements.iter().flat_map(|requirement| {
        requirement
            .obligations
            .iter()
            .map(move |obligation| (requirement, obligation))
    })
}

/// Every obligation that is still owed (not `superseded`), with its requirement, in file order.
pub fn live_obligations(
    requirements: &Requirements,
) -> impl Iterator<Item = (&Requirement, &Obligation)> {
    all_obligations(requirements).filter(|(_, obligation)| obligation.is_live())
}

/// `sha256:<hex>` of `content`, the form every hash in the ledger takes.
pub fn sha256_ref(content: &[u8]) -> String {
    format!("sha256:{}", gatebench_gittree::sha256_hex(content))
}

/// Whether a recorded `sha256:<hex>` names `content` (hex compared case-insensitively).
pub fn hash_matches(recorded: &str, content: &[u8]) -> bool {
    recorded.trim().to_ascii_lowercase() == sha256_ref(content)
}
