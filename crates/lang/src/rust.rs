//! rust: functions, collected tests, operator sites and neutralization (to be written).

use crate::operator::{Mutation, Operator};
use crate::syntax::{Function, Source, Test};

pub(crate) fn functions(_src: &Source<'_>) -> Vec<Function> {
    Vec::new()
}

pub(crate) fn tests(_src: &Source<'_>) -> Vec<Test> {
    Vec::new()
}

pub(crate) fn mutations(_src: &Source<'_>, _op: Operator) -> Vec<Mutation> {
    Vec::new()
}

pub(crate) fn neutralize(_src: &Source<'_>, _lines: [u32; 2]) -> Option<Mutation> {
    None
}
