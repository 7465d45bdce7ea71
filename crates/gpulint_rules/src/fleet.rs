//! The VMs one `count` block makes (`aws_instance.worker[0]` … `[10]`): where a rule would
//! say the same of each, it says it once, of the block, with how many there are.

use std::collections::HashMap;

use gpulint_model::{Capacity, Inventory, Span};

/// The address of the block a `count` instance belongs to: `aws_instance.worker` of
/// `aws_instance.worker[3]` ([`gpulint_model::count_block`]), or the address itself.
fn block_of(subject: &str) -> &str {
    gpulint_model::count_block(subject).unwrap_or(subject)
}

/// Gathers what a rule would report, in order, into groups: the instances of one `count`
/// block (its header and its address without the index: two calls of one module share the
/// header) whose `key` (what the finding would say of each) is the same. Anything else is
/// a group of its own.
pub fn group<'a, K: PartialEq>(
    items: impl IntoIterator<Item = (&'a Capacity, K)>,
) -> Vec<(Vec<&'a Capacity>, K)> {
    let mut groups: Vec<(Vec<&'a Capacity>, K)> = Vec::new();
    // The groups of each block, by where it is written and its address: a run of many
    // blocks looks only at its own.
    let mut of_block: HashMap<(gpulint_source::FileId, usize, &'a str), Vec<usize>> =
        HashMap::new();
    for (c, key) in items {
        if c.count_at.is_none() {
            groups.push((vec![c], key));
            continue;
        }
        let at = (c.header.file, c.header.range().start, block_of(&c.subject));
        let mine = of_block.entry(at).or_default();
        match mine.iter().find(|&&g| groups[g].1 == key) {
            Some(&g) => groups[g].0.push(c),
            None => {
                mine.push(groups.len());
                groups.push((vec![c], key));
            }
        }
    }
    groups
}

/// For a group of several instances: the block's address, how the finding names them
/// ("the 3 instances of \`x\`", or "the 2 instances of \`x\` (of 3)" when the others
/// are not alike), and the label on the `count` that makes them all. `None` for a group
/// of one.
pub fn instances(
    model: &Inventory,
    members: &[&Capacity],
) -> Option<(String, String, (Span, String))> {
    let n = members.len();
    let first = members.first()?;
    let count = first.count_at.as_ref().filter(|_| n > 1)?;
    let block = block_of(&first.subject);
    let all = model
        .capacity
        .iter()
        .filter(|c| {
            c.count_at.is_some() && c.header == first.header && block_of(&c.subject) == block
        })
        .count()
        .max(n);
    let which = if all == n {
        format!("the {n} instances of `{block}`")
    } else {
        format!("the {n} instances of `{block}` (of {all})")
    };
    Some((
        block.to_string(),
        which,
        (count.clone(), format!("{all} instances")),
    ))
}
