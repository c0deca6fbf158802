//! `worktree-isolation`: the pipeline's claim that it worked in a linked worktree must match git's
//! answer, decided by git dir versus common dir (docs/CONCEPTS.md#loom-worktree-detection), never by
//! "inside a work tree".

use crate::check::rules::*;
use crate::context::Context;
use crate::finding::GateFinding;
use crate::load::FeatureLedger;

pub fn worktree_isolation(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(state) = &feature.pipeline_state else {
        return Vec::new();
    };
    let claimed = state.value.worktree.linked;
    let actual = ctx.repo.linked_worktree;
    if claimed == actual {
        return Vec::new();
    }
    let describe = |linked: bool| {
        if linked {
            "a linked worktree"
        } else {
            "the main work tree (not a linked worktree)"
        }
    };
    vec![GateFinding::new(
        worktree_isolation::CONTRADICTED,
        format!("pipeline claims worktree.linked {claimed}, git says {actual}"),
        format!(
            "{} claims the work happened in {}, but the repository is {}: its git dir {} its \
             common dir. Record the truth in `worktree.linked` (and run isolated work in a \
             linked worktree).",
            state.file.path,
            describe(claimed),
            describe(actual),
            if actual { "differs from" } else { "is" }
        ),
    )
    .at(&state.file.path, state.file.line_of("\"linked\""))]
}
