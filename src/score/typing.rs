//! Typing: which taxonomy kind a reported finding is, under a pipeline's mapping of its own
//! categories (a validator id or rule, a finding class, a title pattern) onto the omission taxonomy.

use regex::Regex;

use crate::corpus::scenario::KindRule;
use crate::corpus::taxonomy::Kind;
use gatebench_report::Finding;

/// A pipeline's mapping, compiled: the first rule whose every pattern matches gives the kind.
#[derive(Debug, Clone, Default)]
pub struct KindMap {
    rules: Vec<CompiledRule>,
}

#[derive(Debug, Clone)]
struct CompiledRule {
    kind: Kind,
    class: Option<Regex>,
    validator: Option<Regex>,
    rule: Option<Regex>,
    title: Option<Regex>,
    description: Option<Regex>,
}

impl KindMap {
    /// Compiles `rules` (checked when the scenario was loaded; an invalid pattern here is the
    /// caller's bug, reported as the regex error).
    pub fn new(rules: &[KindRule]) -> Result<KindMap, regex::Error> {
        let compile = |p: &Option<String>| p.as_deref().map(Regex::new).transpose();
        let rules = rules
            .iter()
            .map(|r| {
                Ok(CompiledRule {
                    kind: r.kind,
                    class: compile(&r.class)?,
                    validator: compile(&r.validator)?,
                    rule: compile(&r.rule)?,
                    title: compile(&r.title)?,
                    description: compile(&r.description)?,
                })
            })
            .collect::<Result<_, regex::Error>>()?;
        Ok(KindMap { rules })
    }

    /// Whether the pipeline maps anything at all (without a mapping nothing is typed).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The kind of `finding`, or `None` when no rule maps it.
    pub fn kind_of(&self, finding: &Finding) -> Option<Kind> {
        let hit = |pattern: &Option<Regex>, text: Option<&str>| {
            pattern
                .as_ref()
                .is_none_or(|p| text.is_some_and(|t| p.is_match(t)))
        };
        self.rules
            .iter()
            .find(|r| {
                hit(&r.class, finding.class.as_deref())
                    && hit(&r.validator, finding.validator.as_deref())
                    && hit(&r.rule, finding.rule.as_deref())
                    && hit(&r.title, Some(&finding.title))
                    && hit(&r.description, Some(&finding.description))
            })
            .map(|r| r.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(title: &str, class: Option<&str>, validator: Option<&str>) -> Finding {
        serde_json::from_value(serde_json::json!({
            "title": title, "severity": 9, "description": "", "class": class,
            "validator": validator,
        }))
        .unwrap()
    }

    fn rule(kind: Kind, class: Option<&str>, title: Option<&str>) -> KindRule {
        KindRule {
            kind,
            class: class.map(Into::into),
            validator: None,
            rule: None,
            title: title.map(Into::into),
            description: None,
        }
    }

    #[test]
    fn the_first_rule_whose_every_pattern_matches_gives_the_kind() {
        let map = KindMap::new(&[
            rule(Kind::EvidenceStale, Some("^coverage$"), Some("older tree")),
            rule(Kind::EvidenceMissing, Some("^coverage$"), None),
            rule(Kind::TestFailing, Some("^test-failure$"), None),
        ])
        .unwrap();
        let stale = finding("receipt binds an older tree", Some("coverage"), None);
        assert_eq!(map.kind_of(&stale), Some(Kind::EvidenceStale));
        let missing = finding("no receipt", Some("coverage"), None);
        assert_eq!(map.kind_of(&missing), Some(Kind::EvidenceMissing));
        // A pattern on a field the finding does not have does not match.
        assert_eq!(map.kind_of(&finding("x", None, None)), None);
        assert!(KindMap::default().kind_of(&stale).is_none());
    }
}
