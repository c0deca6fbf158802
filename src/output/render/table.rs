//! The one table type every output shares: built once from cells, shown as aligned text for a
//! terminal or as a GitHub Markdown table (`summary.md`, `compare --markdown`, the matrix).
//!
//! Own code, not comfy-table or tabled: both pad Markdown cells to a common width and neither sets
//! a rule above the last (total) row only, so neither reproduces the committed `summary.md` and
//! terminal layouts byte for byte; what is left to write is column widths and two joins.

use std::fmt::Write;

use crate::output::render::escape;

/// How a column's cells sit in a terminal table (Markdown tables are never padded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One cell: its text, and whether someone else wrote it (a category, a kind, a pipeline's name),
/// so Markdown must escape it (`escape::markdown`). Cells gatebench wrote (figures, its own
/// words, Markdown it built) are written as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    text: String,
    others: bool,
}

impl Cell {
    /// Text someone else wrote: escaped in Markdown.
    pub fn others(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            others: true,
        }
    }

    fn markdown(&self) -> std::borrow::Cow<'_, str> {
        if self.others {
            escape::markdown(&self.text).into()
        } else {
            self.text.as_str().into()
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell {
            text,
            others: false,
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_owned())
    }
}

/// A header, body rows and an optional total row, every row as long as the header.
#[derive(Debug, Clone)]
pub struct Table {
    head: Vec<Cell>,
    rows: Vec<Vec<Cell>>,
    /// The last row, set apart by a rule in a terminal.
    total: Option<Vec<Cell>>,
    align: Vec<Align>,
}

fn cells<C: Into<Cell>>(row: impl IntoIterator<Item = C>) -> Vec<Cell> {
    row.into_iter().map(Into::into).collect()
}

impl Table {
    /// A table with this header, every column left-aligned.
    pub fn new<C: Into<Cell>>(head: impl IntoIterator<Item = C>) -> Table {
        let head = cells(head);
        Table {
            align: vec![Align::Left; head.len()],
            head,
            rows: Vec::new(),
            total: None,
        }
    }

    /// The columns' alignment in a terminal, left to right.
    pub fn aligned(mut self, align: impl IntoIterator<Item = Align>) -> Table {
        self.align = align.into_iter().collect();
        debug_assert_eq!(self.align.len(), self.head.len());
        self
    }

    /// The first column left, the others right: a name, then figures.
    pub fn figures(self) -> Table {
        let n = self.head.len();
        self.aligned((0..n).map(|i| if i == 0 { Align::Left } else { Align::Right }))
    }

    pub fn push<C: Into<Cell>>(&mut self, row: impl IntoIterator<Item = C>) {
        let row = cells(row);
        debug_assert_eq!(row.len(), self.head.len());
        self.rows.push(row);
    }

    /// The total row, shown last (below a rule in a terminal).
    pub fn total<C: Into<Cell>>(&mut self, row: impl IntoIterator<Item = C>) {
        let row = cells(row);
        debug_assert_eq!(row.len(), self.head.len());
        self.total = Some(row);
    }

    fn body(&self) -> impl Iterator<Item = &Vec<Cell>> {
        self.rows.iter().chain(self.total.as_ref())
    }

    /// Aligned text, each line after `indent`, columns two spaces apart, no trailing space; the
    /// total row below a rule of dashes as wide as each column.
    pub fn text(&self, indent: &str) -> String {
        let all: Vec<&Vec<Cell>> = std::iter::once(&self.head).chain(self.body()).collect();
        let widths: Vec<usize> = (0..self.head.len())
            .map(|i| {
                all.iter()
                    .map(|r| r[i].text.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        let mut line = |cells: Vec<String>| {
            let _ = writeln!(out, "{indent}{}", cells.join("  ").trim_end());
        };
        let pad = |row: &Vec<Cell>| -> Vec<String> {
            row.iter()
                .zip(&widths)
                .zip(&self.align)
                .map(|((c, w), a)| match a {
                    Align::Left => format!("{:<w$}", c.text),
                    Align::Right => format!("{:>w$}", c.text),
                })
                .collect()
        };
        line(pad(&self.head));
        for row in &self.rows {
            line(pad(row));
        }
        if let Some(total) = &self.total {
            line(widths.iter().map(|w| "-".repeat(*w)).collect());
            line(pad(total));
        }
        out
    }

    /// A GitHub Markdown table: the header, the `|---|` line, every row (the total last), cells
    /// someone else wrote escaped.
    pub fn markdown(&self) -> String {
        let line = |row: &Vec<Cell>| {
            let cells: Vec<_> = row.iter().map(Cell::markdown).collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut out = line(&self.head);
        let _ = writeln!(out, "|{}", "---|".repeat(self.head.len()));
        for row in self.body() {
            out.push_str(&line(row));
        }
        out
    }

    /// The header and the rows (the total last) as plain text, for a template that escapes them.
    pub fn into_parts(self) -> (Vec<String>, Vec<Vec<String>>) {
        let text = |row: Vec<Cell>| row.into_iter().map(|c| c.text).collect();
        let rows = self.rows.into_iter().chain(self.total).map(text).collect();
        (text(self.head), rows)
    }

    /// The header, then the rows, as plain text.
    pub fn into_rows(self) -> Vec<Vec<String>> {
        let (head, rows) = self.into_parts();
        std::iter::once(head).chain(rows).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::new(["category", "fixtures", "recall"]).figures();
        t.push([Cell::others("a|b_c"), "3".into(), "0.500".into()]);
        t.total([Cell::from("overall"), "12".into(), "1.000".into()]);
        t
    }

    #[test]
    fn text_aligns_names_left_and_figures_right_with_a_rule_above_the_total() {
        assert_eq!(
            table().text("  "),
            "  category  fixtures  recall\n\
             \x20 a|b_c            3   0.500\n\
             \x20 --------  --------  ------\n\
             \x20 overall         12   1.000\n"
        );
    }

    #[test]
    fn markdown_escapes_only_what_others_wrote() {
        assert_eq!(
            table().markdown(),
            "| category | fixtures | recall |\n|---|---|---|\n| a\\|b\\_c | 3 | 0.500 |\n| overall | 12 | 1.000 |\n"
        );
    }

    #[test]
    fn lines_carry_no_trailing_space() {
        let mut t = Table::new(["", "base"]);
        t.push(["long label", ""]);
        assert_eq!(t.text(""), "            base\nlong label\n");
    }
}
