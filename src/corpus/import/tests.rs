//! The import's unit tests: disarmed names, secret-looking files, ids turned into placeholders.

use std::collections::BTreeMap;

use super::redact::{replace_ids, secret_like, template_file, Ids};
use super::source::LayerKind;
use super::write::needs_disarm;
use super::*;

#[test]
fn repository_like_names_are_disarmed() {
    for path in [
        "Cargo.toml",
        "crates/a/Cargo.toml",
        ".gitignore",
        "sub/.gitattributes",
        "package.json",
        "notes.fixture",
    ] {
        assert!(needs_disarm(path), "{path}");
    }
    for path in ["src/main.rs", "Cargo.toml.bak", "git.md", "docs/package.md"] {
        assert!(!needs_disarm(path), "{path}");
    }
}

#[test]
fn secret_looking_files_are_recognised_by_name_and_content() {
    assert!(secret_like(".env", b"A=1").is_some());
    assert!(secret_like("config/.env.production", b"").is_some());
    assert!(secret_like("certs/server.pem", b"").is_some());
    assert!(secret_like("home/id_rsa.pub", b"").is_some());
    assert!(secret_like("aws/credentials", b"").is_some());
    assert!(secret_like(
        "notes.txt",
        b"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n"
    )
    .is_some());
    assert!(secret_like("src/env.py", b"import os\n").is_none());
    assert!(secret_like("docs/keys.md", b"-----BEGIN PUBLIC KEY-----").is_none());
}

#[test]
fn only_whole_hex_runs_of_id_length_are_replaced() {
    let tree = "a".repeat(40);
    let ids = Ids {
        stable: BTreeMap::new(),
        own: [(tree.clone(), "{{gatebench:source-tree}}".to_owned())].into(),
    };
    let text = format!("t={tree}\nlonger={tree}b\nupper={}\n", tree.to_uppercase());
    let (out, used) = replace_ids(&text, &ids, true);
    assert_eq!(
        out,
        format!(
            "t={{{{gatebench:source-tree}}}}\nlonger={tree}b\nupper={}\n",
            tree.to_uppercase()
        )
    );
    assert_eq!(used, vec!["{{gatebench:source-tree}}".to_owned()]);
}

#[test]
fn a_rebound_file_that_would_read_like_the_earlier_one_keeps_its_own_ids() {
    let (head_tree, unstaged_tree) = ("1".repeat(40), "2".repeat(40));
    let ids = Ids {
        stable: [(
            head_tree.clone(),
            "{{gatebench:source-tree:head}}".to_owned(),
        )]
        .into(),
        own: [(
            unstaged_tree.clone(),
            "{{gatebench:source-tree}}".to_owned(),
        )]
        .into(),
    };
    let earlier = b"tree {{gatebench:source-tree}}\n".to_vec();
    let mut imported = Imported::default();
    let text = format!("tree {unstaged_tree}\n");
    let out = template_file(
        LayerKind::Unstaged,
        "specs/f/r.txt",
        text.as_bytes(),
        &ids,
        Some(&earlier),
        &mut imported,
    );
    assert_eq!(out, text.as_bytes(), "kept as recorded, not carried over");
    assert_eq!(imported.literal.len(), 1);
    // Outside the ledger nothing is replaced.
    let outside = template_file(
        LayerKind::Head,
        "src/ids.txt",
        text.as_bytes(),
        &ids,
        None,
        &mut imported,
    );
    assert_eq!(outside, text.as_bytes());
    // Without the clash, the own id becomes a placeholder.
    let fresh = template_file(
        LayerKind::Unstaged,
        "specs/f/r.txt",
        text.as_bytes(),
        &ids,
        None,
        &mut imported,
    );
    assert_eq!(fresh, b"tree {{gatebench:source-tree}}\n");
}
