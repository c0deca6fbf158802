//! The verification loop (docs/CONCEPTS.md#the-verification-loop) (V1 build .. V5 standards, the
//! state file, escalation, the delivery-documents gate) with skein-check
//! (docs/CONCEPTS.md#skein-check), for repositories that declare it.

pub mod delivery;
pub mod dimensions;
pub mod loop_config;
pub mod loop_report;
pub mod round;
pub mod skein;
pub mod state_file;
pub mod verify_loop;

#[cfg(test)]
mod loop_tests;
