//! The repository a trial judges: materialized deterministically into a work folder, and
//! fingerprinted around each round so that a pipeline that changes it is caught.

pub mod fingerprint;
pub mod hermetic;
pub mod materialize;
pub mod pack;
pub mod remove;
pub mod workdir;
