//! Kubernetes manifests written inside Terraform: `kubectl_manifest` `yaml_body`,
//! `kubernetes_manifest` `manifest`, and the values of a `helm_release` that carry whole
//! manifests. They are lowered as if they were YAML files, with spans into the `.tf` file
//! (into a heredoc's own lines).
//!
//! Only what is written in place is read: a heredoc or a quoted literal (each `${…}` in it
//! masked, so it reads as an unknown value), an object literal (`manifest = { … }`,
//! `yamlencode({ … })`, `yamldecode(<<EOT … EOT)`). A manifest from `file()`,
//! `templatefile()`, a variable or `each.value` is unknown and adds nothing; so does a
//! heredoc with `%{ }` directives, whose shape depends on them.

use std::cell::RefCell;
use std::ops::Range;

use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::Body;

use gpulint_facts::catalog;
use gpulint_kubernetes as kubernetes;
use gpulint_model::{Inventory, LimitProblem};
use gpulint_source::limits::{LimitHit, Limits};
use gpulint_source::{FileId, SourceFile};
use gpulint_syntax::json::Remap;
use gpulint_syntax::yaml::{Scalar, YamlNode, YamlValue, parse_at};
use gpulint_terraform::in_file;

/// Lowers the manifests written in the resources of one Terraform file.
pub fn lower(
    file: FileId,
    source: &SourceFile,
    body: &Body,
    remap: Option<&Remap>,
    limits: &Limits,
    out: &mut Inventory,
) {
    let read = Reader {
        file: source,
        remap,
        limits,
        hits: RefCell::default(),
    };
    for block in body.get_blocks("resource") {
        let Some(rtype) = block
            .labels
            .first()
            .map(hcl_edit::structure::BlockLabel::as_str)
        else {
            continue;
        };
        let manifests: Vec<YamlNode> = match rtype {
            "kubectl_manifest" => block
                .body
                .get_attribute("yaml_body")
                .map(|a| read.documents(&a.value))
                .unwrap_or_default(),
            "kubernetes_manifest" => block
                .body
                .get_attribute("manifest")
                .map(|a| read.documents(&a.value))
                .unwrap_or_default(),
            "helm_release" => block
                .body
                .get_attribute("values")
                .and_then(|a| match &a.value {
                    Expression::Array(items) => Some(items),
                    _ => None,
                })
                .map(|items| {
                    items
                        .iter()
                        .flat_map(|v| read.documents(v))
                        .flat_map(chart_manifests)
                        .collect()
                })
                .unwrap_or_default(),
            typed => match read.typed_object(typed, &block.body) {
                Some(m) => vec![m],
                None => continue,
            },
        };
        for m in &manifests {
            kubernetes::lower_object(file, source, m, limits, out);
        }
    }
    for hit in read.hits.take() {
        out.limits
            .push(LimitProblem::in_file(&source.name, file, &hit, limits));
    }
}

/// The whole manifests in a chart's values: the values themselves when they are one,
/// else the lists under the keys charts render verbatim (`resources` of the raw charts,
/// `extraObjects`, `extraDeploy`…, from the catalog).
fn chart_manifests(values: YamlNode) -> Vec<YamlNode> {
    if is_manifest(&values) {
        return vec![values];
    }
    let YamlValue::Map(entries) = values.value else {
        return Vec::new();
    };
    let keys = &catalog().kubernetes.chart_values.manifest_keys;
    entries
        .into_iter()
        .filter(|(k, _)| k.as_str().is_some_and(|k| keys.iter().any(|m| m == k)))
        .flat_map(|(_, v)| match v.value {
            YamlValue::Seq(items) => items,
            _ => Vec::new(),
        })
        .filter(is_manifest)
        .collect()
}

fn is_manifest(n: &YamlNode) -> bool {
    n.get("apiVersion").is_some() && n.get("kind").is_some()
}

struct Reader<'a> {
    file: &'a SourceFile,
    remap: Option<&'a Remap>,
    limits: &'a Limits,
    /// Limits hit reading the YAML written in strings, reported once the file is read.
    hits: RefCell<Vec<LimitHit>>,
}

impl Reader<'_> {
    /// A typed resource of Terraform's kubernetes provider (`kubernetes_deployment_v1`) as
    /// the manifest it makes: `metadata` and `spec` blocks, names in camelCase, repeated
    /// blocks gathered into the API's list. `None` for any other resource type.
    fn typed_object(&self, rtype: &str, body: &Body) -> Option<YamlNode> {
        let table = &catalog().kubernetes.terraform_objects;
        let (api, kind) = table.kinds.get(rtype)?.split_once(' ')?;
        let first = body.blocks().next().map(|b| self.at(b)).unwrap_or_default();
        let mut entries = vec![
            (text("apiVersion", &first), text(api, &first)),
            (text("kind", &first), text(kind, &first)),
        ];
        for b in body
            .blocks()
            .filter(|b| matches!(b.ident.as_str(), "metadata" | "spec"))
        {
            let at = self.at(b);
            entries.push((text(b.ident.as_str(), &at), self.block_node(&b.body, at)));
        }
        Some(YamlNode {
            span: first,
            value: YamlValue::Map(entries),
        })
    }

    /// A block's body as a map: arguments by their camelCase names (their values as
    /// written, keys of a written map kept), nested blocks by theirs, repeated ones in
    /// their list.
    fn block_node(&self, body: &Body, span: Range<usize>) -> YamlNode {
        let lists = &catalog().kubernetes.terraform_objects.list_blocks;
        let mut entries: Vec<(YamlNode, YamlNode)> = Vec::new();
        for a in body.attributes() {
            let at = in_file(self.remap, a.key.span().unwrap_or_default());
            entries.push((text(&camel_case(a.key.as_str()), &at), self.node(&a.value)));
        }
        for b in body.blocks() {
            let at = self.at(b);
            let node = self.block_node(&b.body, at.clone());
            match lists.get(b.ident.as_str()) {
                Some(field) => {
                    if let Some((
                        _,
                        YamlNode {
                            value: YamlValue::Seq(items),
                            ..
                        },
                    )) = entries
                        .iter_mut()
                        .find(|(k, _)| k.as_str() == Some(field.as_str()))
                    {
                        items.push(node);
                    } else {
                        entries.push((
                            text(field, &at),
                            YamlNode {
                                span: at,
                                value: YamlValue::Seq(vec![node]),
                            },
                        ));
                    }
                }
                None => entries.push((text(&camel_case(b.ident.as_str()), &at), node)),
            }
        }
        YamlNode {
            span,
            value: YamlValue::Map(entries),
        }
    }

    /// Where a block is written: its name.
    fn at(&self, b: &hcl_edit::structure::Block) -> Range<usize> {
        in_file(self.remap, b.ident.span().unwrap_or_default())
    }

    /// The YAML documents an attribute's value writes in place.
    fn documents(&self, e: &Expression) -> Vec<YamlNode> {
        match e {
            Expression::HeredocTemplate(_)
            | Expression::String(_)
            | Expression::StringTemplate(_) => self.yaml_text(e),
            Expression::Object(_) => vec![self.node(e)],
            Expression::Parenthesis(p) => self.documents(p.inner()),
            Expression::FuncCall(f) if f.name.namespace.is_empty() => {
                let mut args = f.args.iter();
                match (f.name.name.as_str(), args.next(), args.next()) {
                    ("yamlencode" | "jsonencode", Some(arg @ Expression::Object(_)), None) => {
                        vec![self.node(arg)]
                    }
                    ("yamldecode", Some(arg), None) => self.yaml_text(arg),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// The YAML in a heredoc (or a quoted string on one line) as written in a `.tf` file,
    /// each `${…}` masked to the same length. Nothing when it has directives, or in a file
    /// converted from JSON (its strings are not the file's bytes).
    fn yaml_text(&self, e: &Expression) -> Vec<YamlNode> {
        if self.remap.is_some() {
            return Vec::new();
        }
        let Some(span) = e.span() else {
            return Vec::new();
        };
        let Some(written) = self.file.text().get(span.clone()) else {
            return Vec::new();
        };
        let (start, text) = match e {
            // From the line after `<<EOT` to the line of the closing marker.
            Expression::HeredocTemplate(_) => {
                let (Some(open), Some(close)) =
                    (written.find('\n'), written.trim_end().rfind('\n'))
                else {
                    return Vec::new();
                };
                (span.start + open + 1, &written[open + 1..=close])
            }
            // A one-line quoted string: YAML in flow style (`"{kind: NodePool, …}"`).
            _ if written.len() >= 2 && !written.contains('\\') => {
                (span.start + 1, &written[1..written.len() - 1])
            }
            _ => return Vec::new(),
        };
        let Some((masked, holes)) = mask_interpolations(text) else {
            return Vec::new();
        };
        let read = parse_at(self.file, &masked, start, self.limits);
        self.hits.borrow_mut().extend(read.limits);
        let mut docs = read.docs;
        if !holes.is_empty() {
            for d in &mut docs {
                unmask(d, &masked, start, &holes);
            }
        }
        docs
    }

    /// An HCL value written in place as a YAML node with the same spans: objects,
    /// tuples and literals as they are; anything to evaluate (a reference, a call, a
    /// template) as an unknown string.
    fn node(&self, e: &Expression) -> YamlNode {
        let span = in_file(self.remap, e.span().unwrap_or_default());
        let scalar = |text: String, plain: bool| YamlValue::Scalar(Scalar { text, plain });
        let value = match e {
            Expression::Object(o) => YamlValue::Map(
                o.iter()
                    .filter_map(|(k, v)| {
                        let key = match k {
                            ObjectKey::Ident(i) => i.as_str().to_string(),
                            ObjectKey::Expression(Expression::String(s)) => s.as_str().to_string(),
                            ObjectKey::Expression(_) => return None,
                        };
                        let key_span = in_file(self.remap, k.span().unwrap_or_default());
                        Some((
                            YamlNode {
                                span: key_span,
                                value: scalar(key, false),
                            },
                            self.node(v.expr()),
                        ))
                    })
                    .collect(),
            ),
            Expression::Array(items) => {
                YamlValue::Seq(items.iter().map(|i| self.node(i)).collect())
            }
            Expression::Parenthesis(p) => return self.node(p.inner()),
            Expression::String(s) => scalar(s.as_str().to_string(), false),
            Expression::Number(n) => scalar(n.to_string().trim().to_string(), true),
            Expression::Bool(b) => scalar(b.value().to_string(), true),
            Expression::Null(_) => scalar("null".into(), true),
            _ => scalar(UNKNOWN.into(), false),
        };
        YamlNode { span, value }
    }
}

/// A string scalar gpulint writes itself (a key, a kind), at `span`.
fn text(text: &str, span: &Range<usize>) -> YamlNode {
    YamlNode {
        span: span.clone(),
        value: YamlValue::Scalar(Scalar {
            text: text.to_string(),
            plain: false,
        }),
    }
}

/// `container_port` as the API spells it: `containerPort`.
fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The text an unknown HCL value reads as: no number, name or image gpulint knows.
const UNKNOWN: &str = "${…}";

/// `text` with each `${…}` but its `$` replaced by `_`, byte for byte, so it reads as one
/// YAML scalar and spans still index the file, and the ranges masked. `$${` is a literal
/// `${`. `None` when the text has a `%{ }` directive or an unclosed `${`.
fn mask_interpolations(text: &str) -> Option<(String, Vec<Range<usize>>)> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut holes = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'$' | b'%' if b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'{') => i += 3,
            b'%' if b.get(i + 1) == Some(&b'{') => return None,
            b'$' if b.get(i + 1) == Some(&b'{') => {
                let mut depth = 0usize;
                let mut j = i + 1;
                loop {
                    match b.get(j)? {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        b'\n' => return None,
                        _ => {}
                    }
                    j += 1;
                }
                // `$` stays; the rest becomes `_`: a plain scalar even inside a flow list.
                out[i + 1..=j].fill(b'_');
                holes.push(i..j + 1);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    Some((String::from_utf8(out).ok()?, holes))
}

/// Puts `${…}` back in the scalars of `node` where [`mask_interpolations`] masked
/// `holes` (ranges of `masked`, which stands at byte `offset` of the file), so names read
/// `Job/${…}-train`.
fn unmask(node: &mut YamlNode, masked: &str, offset: usize, holes: &[Range<usize>]) {
    match &mut node.value {
        YamlValue::Scalar(s) => {
            // The holes are in text order: only those from the scalar's start on are looked
            // at, so a heredoc of many `${…}` is not scalars × holes of work.
            let (start, end) = (
                node.span.start.saturating_sub(offset),
                node.span.end.saturating_sub(offset),
            );
            let first = holes.partition_point(|h| h.start < start);
            for h in holes[first..].iter().take_while(|h| h.end <= end) {
                if let Some(run) = masked.get(h.clone()) {
                    s.text = s.text.replacen(run, UNKNOWN, 1);
                }
            }
        }
        YamlValue::Seq(items) => items
            .iter_mut()
            .for_each(|i| unmask(i, masked, offset, holes)),
        YamlValue::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            unmask(k, masked, offset, holes);
            unmask(v, masked, offset, holes);
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_source::{FileKind, SourceDb};

    fn workloads(text: &str) -> Vec<(String, String)> {
        let mut db = SourceDb::default();
        let file = SourceFile::new("m.tf".into(), None, FileKind::Terraform, text.into(), true);
        let parsed = vec![gpulint_syntax::parse(&file)];
        db.add(file);
        let inv = crate::lower(&db, &parsed, &[]);
        let text = &db.get(FileId(0)).text();
        inv.workloads
            .iter()
            .map(|w| (w.subject.clone(), text[w.span.range()].to_string()))
            .collect()
    }

    #[test]
    fn manifests_in_place_are_read_and_the_rest_is_not() {
        let found = workloads(
            r#"
resource "helm_release" "raw" {
  values = [<<-EOT
    resources:
      - apiVersion: batch/v1
        kind: Job
        metadata:
          name: ${var.name}-train
        spec:
          template:
            spec:
              containers: [{name: t, image: "${var.image}"}]
      - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
    EOT
    , yamlencode({ replicaCount = 2 })]
}
resource "kubectl_manifest" "one_line" {
  yaml_body = "{apiVersion: batch/v1, kind: Job, metadata: {name: quoted}, spec: {template: {spec: {containers: [{name: c, image: x}]}}}}"
}
resource "kubectl_manifest" "templated" {
  yaml_body = <<-EOT
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: directive
    %{ if var.gpu }
    spec: {}
    %{ endif }
  EOT
}
resource "kubectl_manifest" "elsewhere" {
  for_each  = local.manifests
  yaml_body = each.value
}
"#,
        );
        let subjects: Vec<&str> = found.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(subjects, ["Job/${…}-train", "Job/quoted"], "{found:?}");
        // The span is the manifest's own text in the heredoc.
        assert!(found[0].1.starts_with("apiVersion: batch/v1"), "{found:?}");
    }

    #[test]
    fn interpolations_are_masked_to_their_length() {
        let text = "a: ${module.eks.cluster_name}\nb: $${keep}\nc: ${ {x = 1}[\"x\"] }\n";
        let (masked, holes) = mask_interpolations(text).unwrap();
        assert_eq!(holes, [3..29, 45..62]);
        assert_eq!(masked.len(), text.len());
        assert!(masked.starts_with(&format!("a: ${}\n", "_".repeat(25))));
        assert!(masked.contains("b: $${keep}"));
        assert!(mask_interpolations("a: %{ if x }b%{ endif }").is_none());
        assert!(mask_interpolations("a: ${x\n}").is_none());
    }
}
