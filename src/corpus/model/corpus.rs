//! The fixture and the corpus as a run holds them: a loaded, checked `Fixture` (its layers held
//! in memory, as a recipe, or slim), its `Expectation`, the `Corpus`, and `Entry`, a fixture held
//! whole or slim.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use regex::Regex;

use crate::corpus::loader::compose::Composed;
use crate::corpus::model::fixture::{ExpectedRounds, FindingMatcher, LocusEntry, Suite};
use crate::corpus::model::recipe::Layers;
use crate::corpus::model::slim::{unhex, Interner, Slim};
use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::error::Error;
use gatebench_report::Verdict;

/// A loaded, checked fixture, ready to materialize.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub id: String,
    pub description: String,
    pub category: String,
    pub tags: Vec<String>,
    /// For an omission fixture, the golden it is planted in; `None` for a golden.
    pub golden: Option<String>,
    /// The `fixture.yaml` this came from; empty for a slim fixture whose folder is named by its
    /// id ([`Fixture::yaml_file`] gives it either way).
    pub file: PathBuf,
    pub worktree: bool,
    /// Its layers and fixes: composed (goldens, mutants), or the recipe to compose them (omission
    /// fixtures loaded from disk). Read them through [`Fixture::compose`].
    pub layers: Layers,
    pub expect: Expectation,
    /// The omission's tier (`ledger` for goldens and unless the fixture says otherwise).
    pub tier: Tier,
    /// With `tier: semantic`: whether the golden's own test suite fails on it (`loud`) or not.
    pub signal: Option<Signal>,
    /// Goldens: how their own test suite runs, when they say.
    pub suite: Option<Suite>,
    /// sha256 over everything that determines what is materialized and how it is scored (a
    /// golden's `suite` left out).
    pub content_hash: String,
}

impl Fixture {
    pub fn is_golden(&self) -> bool {
        self.golden.is_none()
    }

    /// Its composed trees (every layer, every scripted fix): those in memory, shared, or composed
    /// now from its files. An error names the file that cannot be read or that changed since the
    /// corpus was loaded.
    pub fn compose(&self) -> Result<Arc<Composed>, Error> {
        match &self.layers {
            Layers::Reload(_) => self.full()?.compose(),
            layers => layers.compose(&self.file),
        }
    }

    /// Its trees when they are held in memory (goldens and mutants); `None` for a fixture composed
    /// from disk on use.
    pub fn in_memory(&self) -> Option<&Arc<Composed>> {
        match &self.layers {
            Layers::Composed(trees) => Some(trees),
            Layers::OnDisk(_) | Layers::Reload(_) => None,
        }
    }

    /// Whether it was loaded slim (`load_slim`): its description, locus and finding matchers are
    /// not held; [`Fixture::full`] loads them.
    pub fn is_slim(&self) -> bool {
        matches!(self.layers, Layers::Reload(_))
    }

    /// Its `fixture.yaml`: `file`, or for a slim fixture that holds none, `<id>/fixture.yaml`
    /// in its golden's fixtures folder.
    pub fn yaml_file(&self) -> std::borrow::Cow<'_, Path> {
        match &self.layers {
            Layers::Reload(g) if self.file.as_os_str().is_empty() => {
                std::borrow::Cow::Owned(g.fixture_file(&self.id))
            }
            _ => std::borrow::Cow::Borrowed(&self.file),
        }
    }

    /// Slim: without what [`Fixture::full`] loads again (see [`Layers::Reload`]), nor its path
    /// when [`Fixture::yaml_file`] finds it from its id (a run of 10,000 held 0.9 MB of paths).
    pub(crate) fn slimmed(self) -> Fixture {
        let file = match &self.layers {
            Layers::Reload(g) if self.file == g.fixture_file(&self.id) => PathBuf::new(),
            _ => self.file,
        };
        Fixture {
            file,
            description: String::new(),
            expect: Expectation {
                locus: Vec::new(),
                findings: Vec::new(),
                ..self.expect
            },
            ..self
        }
    }
}

impl Fixture {
    /// Itself held slim, when it is an omission fixture loaded slim (`Layers::Reload`); itself
    /// otherwise (`Err`).
    pub(crate) fn into_slim(self, interner: &mut Interner) -> Result<Slim, Box<Fixture>> {
        let (Layers::Reload(golden), Some(content_hash)) =
            (&self.layers, unhex(&self.content_hash))
        else {
            return Err(Box::new(self));
        };
        Ok(Slim {
            golden: golden.clone(),
            labels: interner.labels(self.category, self.tags),
            id: self.id.into_boxed_str(),
            verdict: self.expect.verdict,
            kind: self.expect.kind,
            rounds: self.expect.rounds,
            tier: self.tier,
            signal: self.signal,
            worktree: self.worktree,
            content_hash,
            file: (!self.file.as_os_str().is_empty()).then(|| self.file.into_boxed_path()),
        })
    }

    /// The slim fixture `s` was made from: no description, locus or finding matchers
    /// ([`Fixture::is_slim`]); [`Fixture::full`] loads it in full.
    pub fn from_slim(s: &Slim) -> Fixture {
        Fixture {
            id: s.id.to_string(),
            description: String::new(),
            category: s.labels.category.clone(),
            tags: s.labels.tags.clone(),
            golden: Some(s.golden.id.clone()),
            file: s.file.as_deref().map(Path::to_path_buf).unwrap_or_default(),
            worktree: s.worktree,
            layers: Layers::Reload(s.golden.clone()),
            expect: Expectation {
                verdict: s.verdict,
                kind: s.kind,
                locus: Vec::new(),
                findings: Vec::new(),
                rounds: s.rounds,
            },
            tier: s.tier,
            signal: s.signal,
            suite: None,
            content_hash: gatebench_gittree::hex(&s.content_hash),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Expectation {
    pub verdict: Verdict,
    /// Omission fixtures: the planted kind (goldens have none).
    pub kind: Option<Kind>,
    /// Omission fixtures: where the omission is (goldens have none).
    pub locus: Vec<LocusEntry>,
    /// Reference-gate matchers: an extra check for the built-in gate only.
    pub findings: Vec<Matcher>,
    pub rounds: Option<ExpectedRounds>,
}

/// A finding matcher with its pattern compiled.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub spec: FindingMatcher,
    /// Shared by every fixture with the same pattern (a clone of a `Regex` is a new cache pool).
    pub pattern: Option<Arc<Regex>>,
}

#[derive(Debug, Default)]
pub struct Corpus {
    /// Sorted by id. Loaded slim (`load_slim`), the goldens (and any mutants) only.
    pub fixtures: Vec<Fixture>,
    /// Loaded slim, the omission fixtures, sorted by id; empty otherwise.
    pub slim: Vec<Slim>,
    /// Generated mutants that could not be made (docs/MUTATION.md), sorted by id: not fixtures,
    /// but a run that generated them records how many its selection holds.
    pub unviable_mutants: Vec<UnviableMutant>,
    /// The fixtures folder it was loaded from (where the semantic tier's validation record is).
    pub dir: std::path::PathBuf,
}

/// A generated mutant that is not a fixture: what a scenario's selection reads of it, and why.
#[derive(Debug, Clone)]
pub struct UnviableMutant {
    pub id: String,
    pub category: String,
    pub tags: Vec<String>,
    pub reason: String,
}

impl Corpus {
    /// The fixture `id` when it is held whole; `None` for a slim one ([`Corpus::entry`] finds
    /// those too).
    pub fn get(&self, id: &str) -> Option<&Fixture> {
        self.fixtures
            .binary_search_by(|f| f.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.fixtures[i])
    }

    /// The fixture `id`, held whole or slim.
    pub fn entry(&self, id: &str) -> Option<Entry<'_>> {
        self.get(id).map(Entry::Held).or_else(|| {
            self.slim
                .binary_search_by(|s| (*s.id).cmp(id))
                .ok()
                .map(|i| Entry::Slim(&self.slim[i]))
        })
    }

    /// Every fixture, held whole or slim, sorted by id.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        let mut held = self.fixtures.iter().peekable();
        let mut slim = self.slim.iter().peekable();
        std::iter::from_fn(move || match (held.peek(), slim.peek()) {
            (Some(f), Some(s)) if f.id.as_str() > &*s.id => slim.next().map(Entry::Slim),
            (Some(_), _) => held.next().map(Entry::Held),
            (None, _) => slim.next().map(Entry::Slim),
        })
    }
}

/// A fixture of a corpus as selection, sharding and the runner see it: held whole, or slim.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'c> {
    Held(&'c Fixture),
    Slim(&'c Slim),
}

impl<'c> Entry<'c> {
    pub fn id(&self) -> &'c str {
        match self {
            Entry::Held(f) => &f.id,
            Entry::Slim(s) => &s.id,
        }
    }

    pub fn category(&self) -> &'c str {
        match self {
            Entry::Held(f) => &f.category,
            Entry::Slim(s) => &s.labels.category,
        }
    }

    pub fn tags(&self) -> &'c [String] {
        match self {
            Entry::Held(f) => &f.tags,
            Entry::Slim(s) => &s.labels.tags,
        }
    }

    /// The golden it is planted in; `None` for a golden.
    pub fn golden(&self) -> Option<&'c str> {
        match self {
            Entry::Held(f) => f.golden.as_deref(),
            Entry::Slim(s) => Some(&s.golden.id),
        }
    }

    /// The round it is expected to converge at, if it says.
    pub fn rounds(&self) -> Option<ExpectedRounds> {
        match self {
            Entry::Held(f) => f.expect.rounds,
            Entry::Slim(s) => s.rounds,
        }
    }

    /// The fixture: the one held, or a slim one made again ([`Fixture::from_slim`]).
    pub fn fixture(&self) -> std::borrow::Cow<'c, Fixture> {
        match self {
            Entry::Held(f) => std::borrow::Cow::Borrowed(*f),
            Entry::Slim(s) => std::borrow::Cow::Owned(Fixture::from_slim(s)),
        }
    }
}
