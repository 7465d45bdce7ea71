//! Lowering: the only stage that knows providers. Syntax trees in, [`Inventory`] out.

pub mod aws;
pub mod azure;
pub mod gcp;
pub mod kubernetes;
pub mod terraform;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hcl_edit::structure::Body;

use crate::catalog::catalog;
use crate::model::{
    Capacity, GpuSet, Inventory, Machine, Provider, Span, Stop, StopKind, SyntaxProblem,
};
use crate::parse::{Parsed, Syntax};
use crate::source::{FileId, FileKind, SourceDb};
use terraform::{Module, ResourceRef, TfFile};

/// A machine type looked up in the catalog; `gpus: None` when it has no GPU (or gpulint
/// does not know it as a GPU type).
pub fn instance_machine(provider: Provider, name: &str) -> Machine {
    let gpus = catalog().instance(provider, name).map(|i| GpuSet {
        gpu: i.gpu,
        count: i.row.count,
        interconnect: i.row.interconnect,
    });
    Machine {
        name: name.to_string(),
        gpus,
    }
}

/// Attaches a stop mechanism (an alarm, a schedule) to the capacity its `targets`
/// reference. With no traceable target it may stop any of `capacity`, so each gets it as
/// [`StopKind::Unresolved`] and rules stay silent rather than guess.
pub fn attach_stop(
    capacity: &mut [Capacity],
    targets: &[ResourceRef],
    kind: StopKind,
    span: &Span,
) {
    let kind = if targets.is_empty() {
        StopKind::Unresolved
    } else {
        kind
    };
    for c in capacity {
        if targets.is_empty() || targets.iter().any(|t| c.subject == t.subject()) {
            c.stop.push(Stop {
                kind,
                span: span.clone(),
            });
        }
    }
}

/// The Terraform files of one folder.
#[derive(Default)]
struct Folder {
    tf: Vec<FileId>,
    tfvars: Vec<(String, FileId)>,
}

/// Lowers every parsed file. `parsed[i]` belongs to `FileId(i)`; `var_files` are the
/// `--var-file`s, applied after each module's own tfvars.
pub fn lower(db: &SourceDb, parsed: &[Parsed], var_files: &[FileId]) -> Inventory {
    let mut inv = Inventory::default();
    for (id, file) in db.iter() {
        if let Some(e) = &parsed[id.0 as usize].error {
            inv.syntax_errors.push(SyntaxProblem {
                subject: file.name.clone(),
                file: id,
                offset: e.offset,
                message: e.message.clone(),
            });
        }
        if let (FileKind::Yaml, Syntax::Yaml(docs)) = (file.kind, &parsed[id.0 as usize].syntax) {
            kubernetes::lower(id, docs, &mut inv.workloads);
        }
    }

    // Terraform: the `.tf` files of one folder are one module.
    let mut folders: BTreeMap<PathBuf, Folder> = BTreeMap::new();
    for (id, file) in db.iter() {
        if var_files.contains(&id) {
            continue;
        }
        // Keyed by the normalised name, so `./infra/a.tf` and `infra/b.tf` share a module;
        // stdin stands alone.
        let dir = match &file.path {
            Some(_) => Path::new(&file.name)
                .parent()
                .map_or_else(PathBuf::new, Path::to_path_buf),
            None => PathBuf::from("\0stdin").join(&file.name),
        };
        let base = file
            .name
            .rsplit('/')
            .next()
            .unwrap_or(&file.name)
            .to_string();
        match file.kind {
            FileKind::Terraform => folders.entry(dir).or_default().tf.push(id),
            FileKind::TfVars if base == "terraform.tfvars" || base.ends_with(".auto.tfvars") => {
                folders.entry(dir).or_default().tfvars.push((base, id));
            }
            _ => {}
        }
    }
    let body = |id: FileId| match &parsed[id.0 as usize].syntax {
        Syntax::Hcl(b) => Some(b),
        _ => None,
    };
    let globals: Vec<&Body> = var_files.iter().filter_map(|&id| body(id)).collect();
    for folder in folders.values_mut() {
        if folder.tf.is_empty() {
            continue;
        }
        // terraform.tfvars first, then *.auto.tfvars in lexical order, then --var-file.
        folder.tfvars.sort_by(|a, b| {
            (a.0 != "terraform.tfvars", &a.0).cmp(&(b.0 != "terraform.tfvars", &b.0))
        });
        let mut vars: Vec<&Body> = folder
            .tfvars
            .iter()
            .filter_map(|(_, id)| body(*id))
            .collect();
        vars.extend(&globals);
        let files: Vec<TfFile> = folder
            .tf
            .iter()
            .filter_map(|&id| body(id).map(|body| TfFile { id, body }))
            .collect();
        // A file that did not parse adds nothing; it is reported as `parse-error`.
        let module = Module::new(files, &vars);
        aws::lower(&module, &mut inv);
        gcp::lower(&module, &mut inv);
        azure::lower(&module, &mut inv);
    }
    inv
}
