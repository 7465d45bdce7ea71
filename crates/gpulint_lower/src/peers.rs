//! The instances one VM block makes with `count` (`aws_instance.trainer[0]`, `[1]`, …) are
//! one group of machines: a multi-node training cluster spans them, and its zones are
//! theirs together. The group is judged on its first instance; each instance keeps its own
//! findings as a VM. A `for_each` over names (one VM per person) is not grouped.

use gpulint_model::{Capacity, CapacityKind, Value, Zones};
use gpulint_terraform::{Key, Module};
use std::collections::HashMap;

/// Records, on each VM instance of `module` that a `count` makes, where that `count` is
/// written.
pub(crate) fn count_at(module: &Module<'_>, capacity: &mut [Capacity]) {
    let mut counted: HashMap<(gpulint_source::FileId, usize), Option<gpulint_model::Span>> =
        HashMap::new();
    for r in module.resources() {
        if matches!(r.key, Some(Key::Index(_))) {
            let h = r.header();
            counted
                .entry((h.file, h.range().start))
                .or_insert_with(|| r.block.span_of("count"));
        }
    }
    for c in capacity
        .iter_mut()
        .filter(|c| c.kind == CapacityKind::Instance)
    {
        c.count_at = counted
            .get(&(c.header.file, c.header.range().start))
            .cloned()
            .flatten();
    }
}

/// Marks the first instance of each `count`-expanded VM block with the number of its instances,
/// and gives it the zones of all of them.
pub(crate) fn group_instances(capacity: &mut [Capacity]) {
    // By address and header: two roots may hold the same address.
    let mut groups: HashMap<(String, gpulint_source::FileId, usize), Vec<usize>> = HashMap::new();
    for (i, c) in capacity.iter().enumerate() {
        if c.kind != CapacityKind::Instance {
            continue;
        }
        // `count` instances only: a `for_each` over names is as often one VM per person.
        let Some(base) = gpulint_model::count_block(&c.subject) else {
            continue;
        };
        groups
            .entry((base.to_string(), c.header.file, c.header.range().start))
            .or_default()
            .push(i);
    }
    for members in groups.into_values().filter(|m| m.len() > 1) {
        let zones = joint_zones(members.iter().map(|&i| &capacity[i].zones));
        let first = &mut capacity[members[0]];
        first.peers = members.len() as u64;
        first.zones = zones;
    }
}

/// The zones of several machines together: every zone named, once; unknown when one of
/// them is.
fn joint_zones<'a>(all: impl Iterator<Item = &'a Value<Zones>>) -> Value<Zones> {
    let mut listed: Vec<gpulint_model::Str> = Vec::new();
    let mut at = None;
    for z in all {
        match z {
            Value::Known(Zones::Listed(zs), span) => {
                at.get_or_insert_with(|| span.clone());
                for z in zs {
                    if !listed.contains(z) {
                        listed.push(z.clone());
                    }
                }
            }
            other => return other.clone(),
        }
    }
    match at {
        Some(span) => Value::Known(Zones::Listed(listed), span),
        None => Value::Absent,
    }
}
