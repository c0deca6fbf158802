//! Fixture selection: the fixtures a scenario's `fixtures:` picks from the corpus, with the
//! golden of each omission fixture picked.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::corpus::scenario::Selection;
use crate::corpus::{Corpus, Entry};
use crate::error::{Error, Result};

fn globset(globs: &[String]) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        builder.add(
            Glob::new(g)
                .map_err(|e| Error::invalid("--filter", format!("invalid glob `{g}`: {e}")))?,
        );
    }
    builder
        .build()
        .map_err(|e| Error::invalid("--filter", e.to_string()))
}

/// The fixtures a selection (and optional extra id filters, all of which must match) picks from
/// the corpus, plus the golden of each picked omission fixture. Sorted by id.
pub fn select<'c>(
    corpus: &'c Corpus,
    selection: &Selection,
    filters: &[String],
) -> Result<Vec<Entry<'c>>> {
    let picker = picker(selection, filters)?;
    let mut ids: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for f in corpus
        .entries()
        .filter(|f| picker(f.id(), f.tags(), f.category()))
    {
        ids.insert(f.id());
        if let Some(golden) = f.golden() {
            ids.insert(golden);
        }
    }
    Ok(ids.into_iter().filter_map(|id| corpus.entry(id)).collect())
}

/// Whether a fixture (its id, tags and category) is one `selection` and `filters` pick: what
/// `select` uses, and what the unviable mutants of a run are counted by.
pub fn picker<'s>(
    selection: &'s Selection,
    filters: &'s [String],
) -> Result<impl Fn(&str, &[String], &str) -> bool + 's> {
    let include = globset(&selection.include)?;
    let exclude = globset(&selection.exclude)?;
    let filter = globset(filters)?;
    Ok(move |id: &str, tags: &[String], category: &str| {
        include.is_match(id)
            && !exclude.is_match(id)
            && (selection.tags.is_empty() || tags.iter().any(|t| selection.tags.contains(t)))
            && (selection.categories.is_empty()
                || selection.categories.iter().any(|c| c == category))
            && (filters.is_empty() || filter.is_match(id))
    })
}
