//! Judging root modules a chunk at a time: the Terraform of a chunk of roots, with the
//! modules they call, is parsed, lowered and dropped before the next (see [`CHUNK_BYTES`](super::CHUNK_BYTES)).

use std::collections::{BTreeMap, HashMap, HashSet};

use gpulint_model::Inventory;
use gpulint_source::limits::{Limit, Limits};
use gpulint_source::{FileId, SourceDb};
use gpulint_syntax::{Parsed, Syntax};
use gpulint_terraform::{Module, TfFile};

use super::{Folder, Later, Tree, file_facts, in_folder, lower_module, tf_file, tfvars_rank};

/// What judging has done so far.
pub(crate) struct Judged {
    /// Deferred files parsed at least once: their own facts are lowered.
    pub(crate) parsed_once: Vec<bool>,
    /// Folders whose calls were all seen (see [`Tree::reached`]).
    pub(crate) reached: HashSet<String>,
}

/// Judges root modules a chunk at a time.
pub(crate) struct Judge<'a, 'l> {
    pub(crate) db: &'a SourceDb,
    pub(crate) parsed: &'a [Parsed],
    pub(crate) folders: &'a BTreeMap<String, Folder>,
    pub(crate) calls: &'a BTreeMap<&'a String, Vec<String>>,
    /// The run's var files, each with the folder whose roots read it (all when `None`).
    pub(crate) globals: &'a [(Option<&'a str>, TfFile<'a>)],
    pub(crate) limits: &'a Limits,
    pub(crate) later: &'a mut Later<'l>,
}

impl Judge<'_, '_> {
    /// Adds the folders judging `root` reads to `into`: it and, through their calls, the
    /// folders it calls. Returns the text bytes of the Terraform files of those it added.
    fn needs(&self, root: &str, into: &mut std::collections::BTreeSet<String>) -> usize {
        let mut added = 0;
        let mut todo = vec![root.to_string()];
        while let Some(dir) = todo.pop() {
            if let Some(targets) = self.calls.get(&dir) {
                todo.extend(targets.iter().filter(|t| !into.contains(*t)).cloned());
            }
            if !into.contains(&dir) {
                let f = &self.folders[&dir];
                added += f.files().map(|id| self.db.get(id).len()).sum::<usize>();
                into.insert(dir);
            }
        }
        added
    }

    /// Parses deferred files, and lowers what each holds on its own the first time.
    pub(crate) fn parse(
        &mut self,
        ids: &[FileId],
        judged: &mut Judged,
        inv: &mut Inventory,
    ) -> HashMap<FileId, Parsed> {
        let trees = (self.later.parse)(ids);
        let mut chunk = HashMap::with_capacity(ids.len());
        for (&id, (read, p)) in ids.iter().zip(trees) {
            if !std::mem::replace(&mut judged.parsed_once[id.0 as usize], true) {
                let file = read.as_ref().unwrap_or_else(|| self.db.get(id));
                file_facts(id, file, &p, self.limits, inv);
                (self.later.on_tree)(id, file, &p);
            }
            chunk.insert(id, p);
        }
        chunk
    }

    /// Judges `roots` in order, a chunk of about [`CHUNK_BYTES`] of Terraform at a time.
    pub(crate) fn all(&mut self, roots: &[&String], judged: &mut Judged, inv: &mut Inventory) {
        let mut rest = roots;
        while !rest.is_empty() {
            let mut dirs = std::collections::BTreeSet::new();
            let (mut n, mut bytes) = (0, 0);
            while n < rest.len() && (n == 0 || bytes < self.later.chunk) {
                bytes += self.needs(rest[n], &mut dirs);
                n += 1;
            }
            let (chunk, after) = rest.split_at(n);
            rest = after;
            // The chunk's `.tf` files, and the variable files of its folders.
            let ids: Vec<FileId> = dirs
                .iter()
                .flat_map(|d| self.folders[d].files())
                .filter(|id| matches!(self.parsed[id.0 as usize].syntax, Syntax::Deferred(_)))
                .collect();
            // The chunk is lowered on its own and then added, so the run's lists grow
            // by what each chunk adds.
            let mut local = Inventory::default();
            let trees = self.parse(&ids, judged, &mut local);
            let tree = Tree {
                folders: dirs
                    .iter()
                    .map(|d| {
                        let files = self.folders[d]
                            .tf
                            .iter()
                            .filter_map(|&id| tf_file(self.parsed, Some(&trees), id))
                            .collect();
                        (d.clone(), files)
                    })
                    .collect(),
                budget: std::cell::Cell::new(0),
                reached: std::cell::RefCell::default(),
                shared_storage: std::cell::RefCell::default(),
            };
            for dir in chunk {
                self.judge(dir, &tree, &trees, &mut local);
            }
            inv.append_exact(local);
            judged.reached.extend(tree.reached.into_inner());
        }
    }

    /// Judges one root module: its resources, and the modules it calls with its inputs.
    fn judge(
        &self,
        dir: &str,
        tree: &Tree<'_>,
        trees: &HashMap<FileId, Parsed>,
        inv: &mut Inventory,
    ) {
        let folder = &self.folders[dir];
        let mut tfvars: Vec<&(String, FileId)> = folder.tfvars.iter().collect();
        tfvars.sort_by_key(|(base, _)| tfvars_rank(base));
        let mut vars: Vec<TfFile<'_>> = tfvars
            .iter()
            .filter_map(|(_, id)| tf_file(self.parsed, Some(trees), *id))
            .collect();
        let before = vars.len();
        vars.extend(
            self.globals
                .iter()
                .filter(|(root, _)| root.is_none_or(|r| in_folder(dir, r)))
                .map(|(_, f)| *f),
        );
        // A file that did not parse adds nothing; it is reported as `parse-error`.
        if let Some(first) = tree.folders[dir].first() {
            gpulint_terraform::scripts::set_root(first.id);
        }
        let mut module = Module::new(&tree.folders[dir], &vars);
        // No `--var-file` for it: the files beside it that a user would name are choices.
        if vars.len() == before {
            let mut named: Vec<&(String, FileId)> = folder.named.iter().collect();
            named.sort();
            let named: Vec<(String, TfFile<'_>)> = named
                .iter()
                .filter_map(|(_, id)| {
                    let shown = self.db.get(*id).name.clone();
                    Some((shown, tf_file(self.parsed, Some(trees), *id)?))
                })
                .collect();
            module.alternatives = gpulint_terraform::alternatives(&named);
        }
        // Each root has its own module budget: a monorepo of many roots is checked as
        // completely as each root alone.
        tree.budget.set(self.limits.count(Limit::ModuleInstances));
        let first = inv.capacity.len();
        tree.shared_storage.take();
        lower_module(&module, dir, tree, &mut vec![dir.to_string()], inv);
        // Shared storage anywhere in the root's modules is where its node pools' pods can
        // keep checkpoints; VMs, their templates and groups keep them on their own disks.
        if let Some(span) = tree.shared_storage.take() {
            for c in &mut inv.capacity[first..] {
                if c.kind == gpulint_model::CapacityKind::NodePool
                    && c.lasting_storage == gpulint_model::Value::Absent
                {
                    c.lasting_storage = gpulint_model::Value::Known(true, span.clone());
                }
            }
        }
    }
}
