//! The task validators: `task-set-complete`, `all-task-states-done`, `task-handoffs-pass`,
//! `requirement-task-closure`, `obligation-task-closure` and `acceptance-items`.

use std::collections::BTreeSet;

use regex::Regex;

use crate::check::rules::*;
use crate::context::{all_obligations, live_obligations};
use crate::finding::GateFinding;
use crate::ledger::{ReviewVerdict, TaskStatus};
use crate::load::FeatureLedger;

/// `task-set-complete`: the set of `tasks/*.md` equals the set of `task-states/*.state.json`.
pub fn task_set_complete(feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for (stem, task) in &feature.tasks {
        if !feature.task_states.contains_key(stem) {
            findings.push(
                GateFinding::new(
                    task_set_complete::NO_STATE,
                    format!("task {stem} has no task state"),
                    format!(
                        "{} defines task {stem}, but {} does not exist, so nothing records \
                         whether the task was done. Write the task state (or remove the task if \
                         it was dropped with approval).",
                        task.file.path,
                        feature.path(&format!("task-states/{stem}.state.json"))
                    ),
                )
                .at(&task.file.path, Some(1)),
            );
        }
    }
    for stem in feature.task_states.keys() {
        if !feature.tasks.contains_key(stem) {
            let path = feature.path(&format!("task-states/{stem}.state.json"));
            findings.push(
                GateFinding::new(
                    task_set_complete::NO_DEFINITION,
                    format!("task state {stem} has no task definition"),
                    format!(
                        "{path} records the state of task {stem}, but {} does not exist. Restore \
                         the task definition or remove the stale state.",
                        feature.path(&format!("tasks/{stem}.md"))
                    ),
                )
                .at(&path, Some(1)),
            );
        }
    }
    findings
}

/// `all-task-states-done`: no task state is pending, executing, reviewing, blocked or failed.
pub fn all_task_states_done(feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for (stem, state) in &feature.task_states {
        let Some(state) = state else { continue };
        if state.value.status != TaskStatus::Done {
            let status = state.value.status.as_str();
            findings.push(
                GateFinding::new(
                    all_task_states_done::NOT_DONE,
                    format!("task {stem} is {status}"),
                    format!(
                        "{} says task {stem} is `{status}`; the gate passes only when every task \
                         is `done`. Finish the task (and its review), then record `done`.",
                        state.file.path
                    ),
                )
                .at(&state.file.path, state.file.line_of("\"status\"")),
            );
        }
    }
    findings
}

/// `task-handoffs-pass`: every task has an implementation receipt and a review receipt with
/// verdict pass, both naming the task.
pub fn task_handoffs_pass(feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for (stem, task) in &feature.tasks {
        let implementation_key = format!("receipts/implementations/{stem}.json");
        match feature.implementations.get(&implementation_key) {
            None => findings.push(
                GateFinding::new(
                    task_handoffs_pass::NO_IMPLEMENTATION_RECEIPT,
                    format!("task {stem} has no implementation receipt"),
                    format!(
                        "{} does not exist: task {stem} was never handed off from \
                         implementation. Record the implementation receipt for the task.",
                        feature.path(&implementation_key)
                    ),
                )
                .at(&task.file.path, Some(1)),
            ),
            Some(None) => {}
            Some(Some(receipt)) if receipt.value.task_id != *stem => findings.push(
                GateFinding::new(
                    task_handoffs_pass::OTHER_TASK,
                    format!(
                        "implementation receipt {stem}.json names task {}",
                        receipt.value.task_id
                    ),
                    format!(
                        "{} is the implementation receipt of task {stem} but says `task_id` {}. \
                         Record the receipt of the right task.",
                        receipt.file.path, receipt.value.task_id
                    ),
                )
                .at(&receipt.file.path, receipt.file.line_of("\"task_id\"")),
            ),
            Some(Some(_)) => {}
        }
        let review_key = format!("receipts/reviews/{stem}.json");
        match feature.reviews.get(&review_key) {
            None => findings.push(
                GateFinding::new(
                    task_handoffs_pass::NO_REVIEW_RECEIPT,
                    format!("task {stem} has no review receipt"),
                    format!(
                        "{} does not exist: task {stem} was never reviewed. Have it reviewed and \
                         record the review receipt.",
                        feature.path(&review_key)
                    ),
                )
                .at(&task.file.path, Some(1)),
            ),
            Some(None) => {}
            Some(Some(review)) => {
                if review.value.task_id != *stem {
                    findings.push(
                        GateFinding::new(
                            task_handoffs_pass::OTHER_TASK,
                            format!(
                                "review receipt {stem}.json names task {}",
                                review.value.task_id
                            ),
                            format!(
                                "{} is the review receipt of task {stem} but says `task_id` {}. \
                                 Record the review of the right task.",
                                review.file.path, review.value.task_id
                            ),
                        )
                        .at(&review.file.path, review.file.line_of("\"task_id\"")),
                    );
                }
                if review.value.verdict != ReviewVerdict::Pass {
                    findings.push(
                        GateFinding::new(
                            task_handoffs_pass::REVIEW_FAILED,
                            format!("the review of task {stem} did not pass"),
                            format!(
                                "{} records verdict `{}` from {}: task {stem} is not accepted. \
                                 Address the review's findings and have the task reviewed again.",
                                review.file.path,
                                review.value.verdict.as_str(),
                                review.value.reviewer
                            ),
                        )
                        .at(&review.file.path, review.file.line_of("\"verdict\"")),
                    );
                }
            }
        }
    }
    findings
}

/// The tasks that exist (a `tasks/<T>.md` file), by id.
fn existing_tasks(feature: &FeatureLedger) -> BTreeSet<&str> {
    feature.tasks.keys().map(String::as_str).collect()
}

/// Whether the task file `stem` lists `obligation` in its front matter.
fn task_lists(feature: &FeatureLedger, stem: &str, obligation: &str) -> bool {
    feature
        .tasks
        .get(stem)
        .and_then(|task| task.front.as_ref())
        .is_some_and(|front| front.obligations.iter().any(|id| id == obligation))
}

/// `requirement-task-closure`: every requirement maps to at least one existing task, through an
/// obligation's `task_ids` or a task's `obligations`.
pub fn requirement_task_closure(feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let file = &requirements.file;
    let existing = existing_tasks(feature);
    let mut findings = Vec::new();
    for requirement in &requirements.value.requirements {
        let mapped = requirement
            .obligations
            .iter()
            .filter(|obligation| obligation.is_live())
            .any(|obligation| {
                obligation
                    .task_ids
                    .iter()
                    .any(|task| existing.contains(task.as_str()))
                    || feature
                        .tasks
                        .keys()
                        .any(|stem| task_lists(feature, stem, &obligation.id))
            });
        if !mapped {
            findings.push(
                GateFinding::new(
                    requirement_task_closure::NO_TASK,
                    format!("requirement {} maps to no task", requirement.id),
                    format!(
                        "No existing task in {} implements any obligation of {} ({}). Plan a task \
                         for it: list its obligations in the task's front matter and the task in \
                         the obligations' `task_ids`.",
                        feature.path("tasks/"),
                        requirement.id,
                        requirement.title
                    ),
                )
                .at(&file.path, file.line_of_json(&requirement.id))
                .requirement(&requirement.id),
            );
        }
    }
    findings
}

/// `obligation-task-closure`: every live obligation maps to at least one existing task that lists
/// it, and every obligation a task lists exists.
pub fn obligation_task_closure(feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let file = &requirements.file;
    let existing = existing_tasks(feature);
    let mut findings = Vec::new();
    for (requirement, obligation) in live_obligations(&requirements.value) {
        let closed = obligation
            .task_ids
            .iter()
            .any(|task| task_lists(feature, task, &obligation.id));
        if closed {
            continue;
        }
        let why = if obligation.task_ids.is_empty() {
            "its `task_ids` is empty".to_owned()
        } else {
            let missing: Vec<&str> = obligation
                .task_ids
                .iter()
                .map(String::as_str)
                .filter(|task| !existing.contains(task))
                .collect();
            if missing.is_empty() {
                format!(
                    "none of its tasks ({}) lists it in the front matter `obligations`",
                    obligation.task_ids.join(", ")
                )
            } else {
                format!("its tasks {} do not exist", missing.join(", "))
            }
        };
        findings.push(
            GateFinding::new(
                obligation_task_closure::NO_TASK,
                format!("obligation {} maps to no task", obligation.id),
                format!(
                    "{} of {} is owed, but {why}. Assign it to a task: name the task in \
                     `task_ids` and the obligation in that task's front matter.",
                    obligation.id, requirement.id
                ),
            )
            .at(&file.path, file.line_of_json(&obligation.id))
            .requirement(&requirement.id)
            .obligation(&obligation.id),
        );
    }
    let known: BTreeSet<&str> = all_obligations(&requirements.value)
        .map(|(_, obligation)| obligation.id.as_str())
        .collect();
    for (stem, task) in &feature.tasks {
        let Some(front) = &task.front else { continue };
        for listed in &front.obligations {
            if !known.contains(listed.as_str()) {
                findings.push(
                    GateFinding::new(
                        obligation_task_closure::UNKNOWN_OBLIGATION,
                        format!("task {stem} lists unknown obligation {listed}"),
                        format!(
                            "{} lists obligation {listed}, which {} does not define. Fix the id \
                             or add the obligation to the requirements (with approval).",
                            task.file.path, file.path
                        ),
                    )
                    .at(&task.file.path, task.file.line_of(listed))
                    .obligation(listed),
                );
            }
        }
    }
    findings
}

/// `acceptance-items`: no task has an unchecked `- [ ]` acceptance item.
pub fn acceptance_items(feature: &FeatureLedger) -> Vec<GateFinding> {
    // Compiled once, not for every ledger judged.
    static UNCHECKED: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let unchecked =
        UNCHECKED.get_or_init(|| Regex::new(r"^\s*[-*+]\s+\[ \]\s*(.*)$").expect("valid regex"));
    let mut findings = Vec::new();
    for (stem, task) in &feature.tasks {
        for (index, line) in task.file.text.lines().enumerate() {
            let line_number = index as u64 + 1;
            if line_number < task.body_line {
                continue;
            }
            if let Some(captures) = unchecked.captures(line) {
                let item = captures.get(1).map_or("", |item| item.as_str()).trim();
                findings.push(
                    GateFinding::new(
                        acceptance_items::UNCHECKED,
                        format!("task {stem} has an unchecked acceptance item"),
                        format!(
                            "{} line {line_number}: `{item}` is not checked. Meet the item and \
                             check it (`- [x]`), or change it through an approved scope change.",
                            task.file.path
                        ),
                    )
                    .at(&task.file.path, Some(line_number)),
                );
            }
        }
    }
    findings
}

/// `task-dependencies`: every `depends_on` entry names a task of the feature, and the
/// dependency graph has no cycle (a task that waits for itself, directly or through others, can
/// never start). Each finding points at the entry in the task file that names the dependency.
pub fn task_dependencies(feature: &FeatureLedger) -> Vec<GateFinding> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut findings = Vec::new();
    let graph: BTreeMap<&str, (&crate::load::TaskFile, &Vec<String>)> = feature
        .tasks
        .iter()
        .filter_map(|(id, task)| {
            task.front
                .as_ref()
                .map(|front| (id.as_str(), (task, &front.depends_on)))
        })
        .collect();
    for (id, (task, depends_on)) in &graph {
        for dependency in depends_on.iter() {
            if !feature.tasks.contains_key(dependency) {
                findings.push(
                    GateFinding::new(
                        task_dependencies::UNKNOWN,
                        format!("{id} depends on unknown task {dependency}"),
                        format!(
                            "{} lists `{dependency}` in `depends_on`, but the feature has no \
                             tasks/{dependency}.md: the task waits for work nobody planned. Fix \
                             the id or plan the task.",
                            task.file.path
                        ),
                    )
                    .at(
                        &task.file.path,
                        task.file.line_after("depends_on", dependency),
                    ),
                );
            }
        }
    }
    // Cycles: depth-first search; each cycle is reported once, at its smallest task id.
    let mut reported: BTreeSet<Vec<&str>> = BTreeSet::new();
    for start in graph.keys() {
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, vec![start])];
        while let Some((node, path)) = stack.pop() {
            let Some((_, depends_on)) = graph.get(node) else {
                continue;
            };
            for next in depends_on.iter().map(String::as_str) {
                if next == *start {
                    let mut cycle = path.clone();
                    let smallest = cycle.iter().min().copied().unwrap_or(start);
                    let turn = cycle.iter().position(|id| *id == smallest).unwrap_or(0);
                    cycle.rotate_left(turn);
                    if smallest == *start && reported.insert(cycle.clone()) {
                        let (task, _) = graph[start];
                        let first = path.get(1).copied().unwrap_or(start);
                        let mut shown = cycle.clone();
                        shown.push(smallest);
                        findings.push(
                            GateFinding::new(
                                task_dependencies::CYCLE,
                                format!(
                                    "tasks depend on each other in a cycle: {}",
                                    shown.join(" -> ")
                                ),
                                format!(
                                    "{} depends on {first}, and the chain {} comes back to it: no \
                                     task of the cycle can start first. Remove one dependency.",
                                    task.file.path,
                                    shown.join(" -> ")
                                ),
                            )
                            .at(&task.file.path, task.file.line_after("depends_on", first)),
                        );
                    }
                } else if !path.contains(&next) && graph.contains_key(next) {
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
    }
    findings
}
