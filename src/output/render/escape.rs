//! Text others wrote (a report's findings, a fixture's description and category, a scenario's
//! name, a command line, an error that quotes any of them) made safe where it is shown: one
//! function for a terminal, one for Markdown (`summary.md`, the GitHub step summary, `compare
//! --markdown`). JSON is escaped by serde_json, HTML by minijinja's auto-escaping, XML by
//! `junit::xml`.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` would be taken by a terminal as control rather than text: C0 controls (ESC starts
/// the sequences that write the clipboard, set the window title or clear the screen; BEL, BS and CR
/// rewrite what is shown), DEL, and the C1 controls (U+0080..U+009F: CSI and OSC in one
/// character on some terminals). Tab and line feed are text.
fn terminal_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c)
}

/// `text` as a terminal shows it safely: every control character written as a visible escape
/// (`\x1b`, `\u{9b}`), so no sequence in it reaches the terminal. Everything gatebench prints goes
/// through it (`cli/stdout.rs`, and errors on standard error).
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(terminal_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !terminal_control(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

/// The characters that open Markdown inline syntax anywhere in a line: code, emphasis,
/// strikethrough, links and images, HTML tags and autolinks, table cells, and the backslash itself.
/// The rest (`#`, `-`, `+`, `>`, digits and `.`) only mean something at the start of a line, where
/// text from others never stands (it always follows `- `, `| ` or a heading's words).
const MARKDOWN_INLINE: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '!', '|', '~', '&'];

/// `text` as plain Markdown text inside a line (a list item, a table cell, a heading): every
/// character that opens inline syntax backslash-escaped (CommonMark allows it for any ASCII
/// punctuation), so no emphasis, link, image, HTML tag or table cell can start in it; line breaks
/// and other control characters written as a space, so it cannot open a line of its own.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if MARKDOWN_INLINE.contains(&c) {
            out.push('\\');
            out.push(c);
        } else if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as a Markdown code span (backticks included), on one line: a backtick inside becomes
/// `'` (nothing can close the span early), line breaks and control characters a space, and `|`
/// escaped so the span can stand in a table cell.
pub fn markdown_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    out.push('`');
    for c in text.chars() {
        match c {
            '`' => out.push('\''),
            '|' => out.push_str("\\|"),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('`');
    out
}

/// Whether HTML allows `c` in a document's text: controls other than whitespace and the Unicode
/// noncharacters are parse errors ("control-character-in-input-stream",
/// "noncharacter-in-input-stream").
fn html_char(c: char) -> bool {
    let n = c as u32;
    let control = (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{c}')) || c == '\u{7f}';
    let nonchar = (0xFDD0..=0xFDEF).contains(&n) || (n & 0xFFFE) == 0xFFFE;
    !control && !nonchar
}

/// `text` with every character HTML forbids (`html_char`) replaced by U+FFFD, for a page built from
/// others' text (the HTML report; minijinja escapes markup, not these).
pub fn html_text(text: &str) -> Cow<'_, str> {
    if text.chars().all(html_char) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if html_char(c) { c } else { '\u{FFFD}' })
            .collect(),
    )
}

/// A writer of UTF-8 text that passes it through [`html_text`] on the way: the HTML report is
/// streamed through it. A character split between two writes is held until its end arrives.
pub struct HtmlText<'a> {
    out: &'a mut dyn std::io::Write,
    pending: Vec<u8>,
}

impl<'a> HtmlText<'a> {
    pub fn new(out: &'a mut dyn std::io::Write) -> HtmlText<'a> {
        HtmlText {
            out,
            pending: Vec::new(),
        }
    }

    /// Writes what is held; an incomplete character left at the end is an error (the page is
    /// built from Rust strings, so it cannot happen).
    pub fn finish(self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            Ok(())
        } else {
            Err(std::io::Error::other("the page ends inside a character"))
        }
    }
}

impl std::io::Write for HtmlText<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let complete = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // An incomplete character at the end waits for the next write.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        };
        let text = std::str::from_utf8(&self.pending[..complete]).expect("checked above");
        self.out.write_all(html_text(text).as_bytes())?;
        self.pending.drain(..complete);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_sequences_are_shown_not_sent() {
        // OSC 52 (clipboard write), a window title, clear screen, a C1 CSI.
        let hostile = "a\x1b]52;c;ZWNobyBoaQ==\x07b\x1b]0;title\x07\x1b[2J\u{9b}31m\r";
        let shown = terminal(hostile);
        assert!(!shown.chars().any(terminal_control), "{shown}");
        assert_eq!(
            shown,
            "a\\x1b]52;c;ZWNobyBoaQ==\\x07b\\x1b]0;title\\x07\\x1b[2J\\u{9b}31m\\x0d"
        );
        assert!(matches!(terminal("plain\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_from_others_cannot_open_a_line_a_link_or_an_image() {
        let forged = "x\n\n# gatebench: all thresholds met\n![a](https://evil.example/p.png) <img src=x> | **b**";
        let text = markdown(forged);
        assert!(!text.contains('\n'));
        for (bad, escaped) in [
            ("![", "\\!\\["),
            ("<img", "\\<img"),
            ("| ", "\\| "),
            ("**", "\\*\\*"),
        ] {
            assert!(!text.contains(bad) || text.contains(escaped), "{text}");
        }
        assert!(text.starts_with("x  # gatebench"), "{text}");
        let code = markdown_code("a`b\nc|d");
        assert_eq!(code, "`a'b c\\|d`");
    }

    proptest::proptest! {
        /// Whatever others wrote: the terminal gets no control character but tab and line feed;
        /// Markdown text and code spans stay on their line and open nothing; HTML text holds no
        /// character HTML forbids, written whole or in pieces.
        #[test]
        fn escaped_text_is_text_in_every_output(text in "(\\PC|\\p{Cc}|[\u{FFFE}\u{FFFF}\u{9b}`*_\\[\\]<>!|~&#])*", cut in 0usize..64) {
            let t = terminal(&text);
            proptest::prop_assert!(!t.chars().any(terminal_control));
            let m = markdown(&text);
            proptest::prop_assert!(!m.contains('\n') && !m.contains('\r'));
            let mut prev = None;
            for c in m.chars() {
                if MARKDOWN_INLINE.contains(&c) && c != '\\' {
                    proptest::prop_assert_eq!(prev, Some('\\'), "{}", m);
                }
                prev = if prev == Some('\\') && c == '\\' { None } else { Some(c) };
            }
            let code = markdown_code(&text);
            proptest::prop_assert!(!code.contains('\n') && code[1..code.len() - 1].find('`').is_none());
            let h = html_text(&text);
            proptest::prop_assert!(h.chars().all(html_char));
            let mut streamed = Vec::new();
            {
                use std::io::Write;
                let mut w = HtmlText::new(&mut streamed);
                let bytes = text.as_bytes();
                let at = cut.min(bytes.len());
                w.write_all(&bytes[..at]).unwrap();
                w.write_all(&bytes[at..]).unwrap();
                w.finish().unwrap();
            }
            proptest::prop_assert_eq!(String::from_utf8(streamed).unwrap(), h.into_owned());
        }
    }
}
