//! `gatebench workflow-schema WORKFLOW`: the pipeline schema a workflow declaration implies.

use std::path::{Path, PathBuf};

use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::schema;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct WorkflowSchemaArgs {
    pub workflow: PathBuf,
}

pub fn run(args: WorkflowSchemaArgs) -> CmdResult {
    let WorkflowSchemaArgs { workflow } = args;
    cmd_workflow_schema(&workflow)
}

fn cmd_workflow_schema(workflow: &Path) -> CmdResult {
    let text = gatebench::corpus::loader::yaml::read_text(workflow).map_err(|e| vec![e])?;
    let value =
        gatebench_gate::workflow_schema(&text).map_err(|m| vec![Error::invalid(workflow, m)])?;
    outln!("{}", schema::render(&value).trim_end());
    Ok(exit_code::SUCCESS)
}
