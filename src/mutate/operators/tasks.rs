//! Task operators: a task state deleted, invented for a task that does not exist, or left not
//! done; an acceptance item unchecked; an obligation no longer listed by its task.

use crate::corpus::taxonomy::Kind;
use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::edit_json;

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "delete-task-state",
            family: Family::Tasks,
            kind: Kind::TaskStateMissing,
            finds: "every task-states/*.state.json",
            does: "deletes it",
            sites: delete_state,
        },
        Operator {
            name: "orphan-task-state",
            family: Family::Tasks,
            kind: Kind::TraceabilityMismatch,
            finds: "the task ids of tasks/*.md",
            does: "adds a done state for the next task id, which no task defines",
            sites: orphan_state,
        },
        Operator {
            name: "task-state-not-done",
            family: Family::Tasks,
            kind: Kind::TaskNotDone,
            finds: "every done task state, for each status that is not done",
            does: "sets the status to pending, executing, reviewing, blocked or failed",
            sites: not_done,
        },
        Operator {
            name: "uncheck-acceptance-item",
            family: Family::Tasks,
            kind: Kind::AcceptanceUnchecked,
            finds: "every checked `- [x]` item of a task or PRD in the feature folder",
            does: "unchecks it",
            sites: uncheck,
        },
        Operator {
            name: "unlist-task-obligation",
            family: Family::Tasks,
            kind: Kind::ObligationWithoutTask,
            finds: "every obligation a task's front matter lists",
            does: "removes it from the task's obligations",
            sites: unlist,
        },
    ]
}

fn task_of_state(l: &Ledger, path: &str) -> Option<String> {
    l.json(path)?["task_id"].as_str().map(str::to_owned)
}

fn delete_state(l: &Ledger) -> Vec<Site> {
    l.files_in("task-states")
        .into_iter()
        .map(|path| {
            let task = task_of_state(l, &path).unwrap_or_default();
            let p = Planted::head(format!("the state of task {task} was deleted"))
                .delete(&path)
                .at_path(&path);
            Site::ok(
                site_id(&[&task]),
                if task.is_empty() { p } else { p.at_task(&task) },
            )
        })
        .collect()
}

fn orphan_state(l: &Ledger) -> Vec<Site> {
    let tasks = l.tasks();
    let next = tasks
        .iter()
        .filter_map(|t| t.id.strip_prefix('T')?.parse::<u32>().ok())
        .max()
        .map_or(1, |n| n + 1);
    let id = format!("T{next}");
    let path = l.path(&format!("task-states/{id}.state.json"));
    let body = format!("{{\n  \"schema_version\": 1,\n  \"task_id\": \"{id}\",\n  \"status\": \"done\",\n  \"updated_at\": \"2026-07-20T12:00:00Z\"\n}}\n");
    vec![Site::ok(
        site_id(&[&id]),
        Planted::head(format!(
            "a done state was recorded for task {id}, which no task defines"
        ))
        .write(&path, body)
        .at_path(&path)
        .at_task(&id),
    )]
}

fn not_done(l: &Ledger) -> Vec<Site> {
    let mut out = Vec::new();
    for path in l.files_in("task-states") {
        let task = task_of_state(l, &path).unwrap_or_default();
        for status in ["pending", "executing", "reviewing", "blocked", "failed"] {
            let site = site_id(&[&task, status]);
            let edited = edit_json(l, &path, |lines| {
                let at = jsontext::find_member(lines, "status", "done")?;
                Some(jsontext::replace(
                    lines,
                    (at, at),
                    &[format!("\"status\": \"{status}\"")],
                ))
            });
            out.push(match edited {
                Ok(text) => Site::ok(
                    site,
                    Planted::head(format!("task {task} is still {status}"))
                        .write(&path, text)
                        .at_path(&path)
                        .at_task(&task),
                ),
                Err(e) => Site::unviable(site, e),
            });
        }
    }
    out
}

fn uncheck(l: &Ledger) -> Vec<Site> {
    let tasks = l.tasks();
    let mut out = Vec::new();
    let docs: Vec<&String> = l
        .files
        .keys()
        .filter(|p| p.starts_with(&format!("{}/", l.feature)) && p.ends_with(".md"))
        .collect();
    for path in docs {
        let Some(text) = l.text(path) else { continue };
        let task = tasks.iter().find(|t| &t.path == path).map(|t| t.id.clone());
        let name = path
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".md");
        for (i, line) in text.lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("- [x]") else {
                continue;
            };
            let lines: Vec<String> = text
                .lines()
                .enumerate()
                .map(|(j, s)| {
                    if j == i {
                        s.replacen("- [x]", "- [ ]", 1)
                    } else {
                        s.to_owned()
                    }
                })
                .collect();
            let mut p = Planted::head(format!("an acceptance item of {path} is unchecked:{rest}"))
                .write(path, jsontext::join(&lines))
                .at_lines(path, [i as u64 + 1, i as u64 + 1]);
            if let Some(t) = &task {
                p = p.at_task(t);
            }
            out.push(Site::ok(site_id(&[name, &format!("line{}", i + 1)]), p));
        }
    }
    out
}

fn unlist(l: &Ledger) -> Vec<Site> {
    let mut out = Vec::new();
    for task in l.tasks() {
        let Some(text) = l.text(&task.path) else {
            continue;
        };
        for obligation in &task.obligations {
            let site = site_id(&[&task.id, obligation]);
            let Some(i) = text.lines().position(|s| s.starts_with("obligations:")) else {
                out.push(Site::unviable(
                    site,
                    "no one-line `obligations:` in the front matter",
                ));
                continue;
            };
            let rest: Vec<&str> = task
                .obligations
                .iter()
                .filter(|o| *o != obligation)
                .map(String::as_str)
                .collect();
            let lines: Vec<String> = text
                .lines()
                .enumerate()
                .map(|(j, s)| {
                    if j == i {
                        format!("obligations: [{}]", rest.join(", "))
                    } else {
                        s.to_owned()
                    }
                })
                .collect();
            out.push(Site::ok(
                site,
                Planted::head(format!(
                    "task {} no longer lists obligation {obligation}",
                    task.id
                ))
                .write(&task.path, jsontext::join(&lines))
                .at_lines(&task.path, [i as u64 + 1, i as u64 + 1])
                .at_obligation(obligation)
                .at_task(&task.id),
            ));
        }
    }
    out
}
