//! What a GPU pool or VM is for, from what its Terraform says: names, labels and tags,
//! the comment above it, its description, and the arguments of its start-up script.

use gpulint_model::{Inferred, Role, intent};
use gpulint_terraform::Resource;

/// The role a Terraform resource states or names: a `gpulint-role` entry in one of `maps`
/// (`tags`, `labels`), else words in its name, in `names` (name attributes), in the module
/// calls it is in (`module.ollama[0].`) and in the maps' keys and values.
pub fn resource_role(r: &Resource<'_>, maps: &[&str], names: &[&str]) -> Inferred<Role> {
    let entries: Vec<_> = maps.iter().flat_map(|m| r.block.string_map(m)).collect();
    let mut named: Vec<String> = names
        .iter()
        .filter_map(|n| r.block.str(n).known().cloned())
        .collect();
    let subject = r.subject();
    if let Some((calls, _)) = subject.split_once(&format!("{}.{}", r.rtype, r.name))
        && !calls.is_empty()
    {
        named.push(calls.trim_end_matches('.').to_string());
    }
    let words = std::iter::once(r.name).chain(named.iter().map(String::as_str));
    let role = or_block_role(
        intent::from_entries(&entries, words, &r.header()),
        &r.block,
        &r.header(),
    );
    if role.known().is_some() {
        return role;
    }
    load_balanced(r).unwrap_or(role)
}

/// Serving, when the group sits behind a load balancer (`target_pools`, `target_group_arns`,
/// a backend pool): it answers requests. `None` when nothing puts it behind one.
pub fn load_balanced(r: &Resource<'_>) -> Option<Inferred<Role>> {
    let keys = gpulint_facts::workloads::workloads().load_balancer_keys(r.rtype);
    keys.iter().find_map(|key| {
        let span = path_span(&r.block, key)?;
        Some(Inferred::new(
            gpulint_model::Value::Known(Role::Inference, span),
            Some(gpulint_model::Evidence::new(
                gpulint_model::Signal::Shape,
                format!("it is behind a load balancer (`{key}`)"),
            )),
        ))
    })
}

/// Where a dotted path of nested blocks ends in an argument or block that is written.
fn path_span(b: &gpulint_terraform::Block<'_>, path: &str) -> Option<gpulint_model::Span> {
    match path.split_once('.') {
        None => b.span_of(path).or_else(|| b.block(path).span().cloned()),
        Some((head, rest)) => b
            .blocks(head)
            .known()?
            .iter()
            .find_map(|inner| path_span(inner, rest)),
    }
}

/// `role` when names and labels decided one, else what the block says of itself
/// ([`block_role`]).
pub fn or_block_role(
    role: Inferred<Role>,
    b: &gpulint_terraform::Block<'_>,
    span: &gpulint_model::Span,
) -> Inferred<Role> {
    if role.known().is_some() {
        role
    } else {
        block_role(b, span)
    }
}

/// A role from what a block says of itself beyond names and labels: the comment above
/// it, its `description`, the descriptions of the variables its arguments read, and the
/// arguments it hands its start-up script.
pub fn block_role(b: &gpulint_terraform::Block<'_>, span: &gpulint_model::Span) -> Inferred<Role> {
    let comment = b.comment();
    let description = b.str("description").known().cloned();
    let args = startup_args(b);
    // What the variables its arguments read are for, as their authors describe them.
    let read = b.variable_descriptions();
    let mut words: Vec<intent::Word<'_>> = Vec::new();
    words.extend(comment.as_deref().map(intent::Word::Comment));
    words.extend(description.as_deref().map(intent::Word::Description));
    words.extend(
        read.iter()
            .map(|(v, d)| intent::Word::VariableDescription(v, d)),
    );
    words.extend(args.iter().map(|(k, v)| intent::Word::StartupArg(k, v)));
    let role = intent::from_words(&words, span);
    if role.known().is_some() {
        return role;
    }
    script_role(b).unwrap_or(role)
}

/// Serving, when a start-up script runs a serving engine (`docker run … vllm/vllm-openai`,
/// `vllm serve`, `text-generation-launcher`, from the engines of the workload table),
/// pointing at the script; training, when it runs a training framework or launcher
/// (`torchrun`, `accelerate launch`). Nothing when it runs both, or neither. Each line is
/// read as one command: an image counts only on a line that runs a container, and a line
/// that installs packages (`pip install vllm`) runs nothing.
fn script_role(b: &gpulint_terraform::Block<'_>) -> Option<Inferred<Role>> {
    use gpulint_facts::workloads::{Program, repository, workloads};
    use gpulint_kubernetes::{is_image, is_runtime, script_commands};
    use gpulint_model::{Evidence, Signal, Value};
    let table = workloads();
    let runs = |programs: &'static [Program], argv: &[&str]| {
        let container = argv.iter().any(|w| is_runtime(w));
        programs.iter().find_map(|p| {
            let image = argv
                .iter()
                .filter(|_| container)
                .find(|w| is_image(w) && p.image(&repository(w)));
            image
                .map(|w| format!("{} (`{w}`)", p.name))
                .or_else(|| p.command(argv).map(|c| format!("{} (`{c}`)", p.name)))
        })
    };
    for script in startup_scripts(b) {
        let Value::Known(text, span) = script else {
            continue;
        };
        let (mut serves, mut trains) = (None, None);
        for words in script_commands(&text) {
            let argv: Vec<&str> = words.iter().map(String::as_str).collect();
            if argv.contains(&"install") {
                continue;
            }
            serves = serves.or_else(|| runs(&table.engines, &argv));
            trains = trains.or_else(|| {
                runs(&table.frameworks, &argv).or_else(|| runs(&table.launchers, &argv))
            });
        }
        let (role, signal, what) = match (serves, trains) {
            (Some(s), None) => (Role::Inference, Signal::Engine, s),
            (None, Some(t)) => (Role::Training, Signal::Command, t),
            _ => continue,
        };
        return Some(Inferred::new(
            Value::Known(role, span),
            Some(Evidence::new(
                signal,
                format!("its start-up script runs {what}"),
            )),
        ));
    }
    None
}

/// The keys and literal values of the variables a start-up script is rendered with:
/// `user_data`, `metadata_startup_script` or `custom_data` written as
/// `templatefile(PATH, { … })` (or wrapped in `base64encode`).
pub(crate) fn startup_args(b: &gpulint_terraform::Block<'_>) -> Vec<(String, String)> {
    use hcl_edit::expr::Expression;
    let mut out = Vec::new();
    for key in STARTUP_KEYS {
        let mut e = b.expr(key);
        while let Some(Expression::FuncCall(f)) = e {
            match f.name.name.as_str() {
                "templatefile" => {
                    if let Some(Expression::Object(o)) = f.args.iter().nth(1) {
                        for (k, v) in o {
                            let Some(key) = gpulint_terraform::key_name(k) else {
                                continue;
                            };
                            let value = match v.expr() {
                                Expression::String(s) => s.as_str().to_string(),
                                _ => String::new(),
                            };
                            out.push((key.to_string(), value));
                        }
                    }
                    break;
                }
                name if ENCODINGS.contains(&name) => e = f.args.iter().next(),
                _ => break,
            }
        }
    }
    out
}

/// The calls a start-up script is encoded with, read through to its text.
pub(crate) const ENCODINGS: [&str; 2] = ["base64encode", "base64gzip"];

/// The keys a VM's start-up script is written under (its text, or a `base64encode` of it).
pub(crate) const STARTUP_KEYS: [&str; 4] = [
    "user_data",
    "metadata_startup_script",
    "custom_data",
    "user_data_base64",
];

/// The serving engine a VM's start-up script runs, and what it is told (the model, its
/// context, its memory share: [`gpulint_kubernetes::script_serving`]); and the
/// tensor-parallel size it runs with, in the script's text or in the variables a
/// `templatefile()` renders it with (`vllm_args = "--tensor-parallel-size=4"`).
pub(crate) fn startup_engine(c: &mut gpulint_model::Capacity, b: &gpulint_terraform::Block<'_>) {
    use gpulint_model::Value;
    // Each script is evaluated once; the first `STARTUP_KEYS.len()` are those keys', in order.
    let scripts = startup_scripts(b);
    c.serving = scripts.iter().find_map(|script| match script {
        Value::Known(text, span) => gpulint_kubernetes::script_serving(text, span),
        _ => None,
    });
    for (key, script) in STARTUP_KEYS.iter().zip(&scripts) {
        let mut texts: Vec<(String, gpulint_model::Span)> = b
            .template_vars(key, &ENCODINGS)
            .into_iter()
            .map(|(_, text, span)| (text, span))
            .collect();
        if let Value::Known(text, span) = script {
            texts.push((text.clone(), span.clone()));
        }
        for (text, span) in texts {
            if let Some(n) = gpulint_kubernetes::tensor_parallel_in(&text) {
                c.tensor_parallel = Some((n, span));
                return;
            }
        }
    }
}

/// Points the model a VM's start-up script serves at where the script names it: the
/// script's value is placed where it is used (`metadata_startup_script =
/// local.startup_script`), while the line to change is the one that names the model, in
/// the heredoc it is written in. Looked for where the script's value is written, then in
/// the rest of that file (read again through `reread` when the run let go of it), then in
/// the scripts the run read for `file()` calls; left where it is when the name is written
/// in none of them.
pub(crate) fn place_served_model(
    db: &gpulint_source::SourceDb,
    reread: &dyn Fn(gpulint_source::FileId) -> Option<std::sync::Arc<str>>,
    c: &mut gpulint_model::Capacity,
) {
    let Some((model, span)) = c.serving.as_mut().and_then(|s| s.model.as_mut()) else {
        return;
    };
    let file = db.get(span.file);
    let again;
    let text = if file.is_loaded() {
        file.text()
    } else {
        let Some(t) = reread(span.file) else { return };
        again = t;
        &again
    };
    if model.is_empty() {
        return;
    }
    let range = span.range();
    let within = text
        .get(range.clone())
        .and_then(|t| t.find(model.as_str()))
        .map(|i| i + range.start);
    if let Some(at) = within.or_else(|| text.find(model.as_str())) {
        *span = gpulint_model::Span::new(span.file, at..at + model.len());
        return;
    }
    // A script the run read for a `file()` or `templatefile()` call.
    let script = db.iter().find_map(|(id, f)| {
        let at = (f.kind == gpulint_source::FileKind::Script && f.is_loaded())
            .then(|| f.text().find(model.as_str()))??;
        Some(gpulint_model::Span::new(id, at..at + model.len()))
    });
    if let Some(at) = script {
        *span = at;
    }
}

/// A VM's start-up scripts as the machine runs them: `user_data`,
/// `metadata_startup_script`, `custom_data` (through `base64encode`), one for each of
/// [`STARTUP_KEYS`] in its order, then GCE's `metadata.startup-script`.
pub(crate) fn startup_scripts(
    b: &gpulint_terraform::Block<'_>,
) -> Vec<gpulint_model::Value<String>> {
    let metadata = b.block("metadata").known().cloned();
    STARTUP_KEYS
        .iter()
        .map(|k| b.text_through(k, &ENCODINGS))
        .chain(metadata.iter().map(|m| m.str("startup-script")))
        .collect()
}

/// Adds a stop to a standalone VM whose start-up script shuts it down (`shutdown -h +120`,
/// `poweroff` when its job ends; the commands are `[self_stop]` in workloads.toml), or
/// whose `templatefile()` variables tell the script to (`auto_shutdown = "true"`, names
/// from `arg_words`): a machine that stops itself is not left running. Read in `user_data`,
/// `metadata_startup_script`, `custom_data` and GCE's `metadata.startup-script`, as the
/// machine runs it (through `base64encode`). Not for groups, which replace a machine that
/// shuts down.
pub(crate) fn startup_shutdown(
    c: &mut gpulint_model::Capacity,
    b: &gpulint_terraform::Block<'_>,
    module: &gpulint_terraform::Module<'_>,
) {
    use gpulint_model::{Stop, StopKind, Value};
    let stops = &gpulint_facts::workloads::workloads().self_stop;
    for script in startup_scripts(b) {
        if let Value::Known(text, span) = script
            && stops.line_in(&text).is_some()
        {
            c.stop.push(Stop {
                kind: StopKind::StartupShutdown,
                span,
            });
            return;
        }
    }
    // `templatefile("run.sh", { auto_shutdown = "true" })`: the script is told to stop it.
    let told = STARTUP_KEYS
        .iter()
        .flat_map(|k| b.template_vars(k, &ENCODINGS))
        .find(|(k, v, _)| stops.arg_stops(k, v));
    if let Some((_, _, span)) = told {
        c.stop.push(Stop {
            kind: StopKind::StartupShutdown,
            span,
        });
        return;
    }
    // A script a module renders (`user-data = module.cloud_init.rendered`), whose call
    // tells it to stop the machine (`idle_timeout = "60m"`). In GCE's metadata, only the
    // keys a machine runs at start.
    let metadata = b.expr("metadata").into_iter().flat_map(|e| match e {
        hcl_edit::expr::Expression::Object(o) => o
            .iter()
            .filter(|(k, _)| {
                gpulint_terraform::key_name(k)
                    .is_some_and(|k| matches!(k, "user-data" | "startup-script"))
            })
            .map(|(_, v)| v.expr())
            .collect(),
        _ => Vec::new(),
    });
    let rendered_by = STARTUP_KEYS
        .iter()
        .filter_map(|k| b.expr(k))
        .chain(metadata)
        .filter_map(module_rendering);
    for name in rendered_by {
        let Some(call) = module.calls().find(|call| call.name == name) else {
            continue;
        };
        let told = call.block.keys().into_iter().find_map(|k| {
            let gpulint_model::Value::Known(v, span) = call.block.str(&k) else {
                return None;
            };
            stops.arg_stops(&k, &v).then_some(span)
        });
        if let Some(span) = told {
            c.stop.push(Stop {
                kind: StopKind::StartupShutdown,
                span,
            });
            return;
        }
    }
}

/// The module a start-up script is an output of: `cloud_init` of
/// `module.cloud_init.rendered`, read through `base64encode`.
fn module_rendering(e: &hcl_edit::expr::Expression) -> Option<&str> {
    use hcl_edit::expr::{Expression, TraversalOperator};
    match e {
        Expression::FuncCall(f) if ENCODINGS.contains(&f.name.name.as_str()) => {
            module_rendering(f.args.iter().next()?)
        }
        Expression::Traversal(t) => {
            match (&t.expr, t.operators.first().map(hcl_edit::Decorated::value)) {
                (Expression::Variable(root), Some(TraversalOperator::GetAttr(name)))
                    if root.value().as_str() == "module" =>
                {
                    Some(name.value().as_str())
                }
                _ => None,
            }
        }
        _ => None,
    }
}
