//! The VMs one `count` block makes (`aws_instance.worker[0]` … `[10]`): where a rule would
//! say the same of each, it says it once, of the block, with how many there are.

use gpulint_model::{Capacity, Span};

/// The address of the block a `count` instance belongs to: `aws_instance.worker` of
/// `aws_instance.worker[3]`.
pub fn block_of(subject: &str) -> &str {
    subject
        .strip_suffix(']')
        .and_then(|s| s.rsplit_once('['))
        .map_or(subject, |(b, _)| b)
}

/// Gathers what a rule would report, in order, into groups: the instances of one `count`
/// block (its header and its address without the index: two calls of one module share the
/// header) whose `key` (what the finding would say of each) is the same. Anything else is
/// a group of its own.
pub fn group<'a, K: PartialEq>(
    items: impl IntoIterator<Item = (&'a Capacity, K)>,
) -> Vec<(Vec<&'a Capacity>, K)> {
    let mut groups: Vec<(Vec<&'a Capacity>, K)> = Vec::new();
    for (c, key) in items {
        let same = groups.iter_mut().find(|(members, k)| {
            c.count_at.is_some()
                && members[0].header == c.header
                && block_of(&members[0].subject) == block_of(&c.subject)
                && *k == key
        });
        match same {
            Some((members, _)) => members.push(c),
            None => groups.push((vec![c], key)),
        }
    }
    groups
}

/// For a group of several instances: the block's address, how many there are, and the
/// label on the `count` that makes them. `None` for a group of one.
pub fn instances(members: &[&Capacity]) -> Option<(String, usize, (Span, String))> {
    let n = members.len();
    let count = members.first()?.count_at.as_ref().filter(|_| n > 1)?;
    Some((
        block_of(&members[0].subject).to_string(),
        n,
        (count.clone(), format!("{n} instances")),
    ))
}
