//! What lowering records on its thread beside the model it returns: the module instances
//! and where their variables were set, the caveats of blocks read as enabled, and the
//! blocks left out because their `count` or `for_each` is unknown.

use std::collections::HashSet;
use std::sync::Arc;

use gpulint_model::Instance;

thread_local! {
    /// The module instances lowered on this thread, with where their variables were set.
    static INSTANCES: std::cell::RefCell<Vec<Instance>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Names and messages of the origins lowered on this thread, each held once: the same
    /// variable names recur in every root of a monorepo.
    static WORDS: std::cell::RefCell<HashSet<Arc<str>>> = std::cell::RefCell::default();
    /// What was assumed of the blocks lowered on this thread (off by default).
    static CAVEATS: std::cell::RefCell<Vec<gpulint_model::Caveat>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// The blocks left out on this thread because their `count`/`for_each` is unknown.
    static UNEXPANDED: std::cell::RefCell<Vec<gpulint_model::Unexpanded>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records a block left out because its `count` or `for_each` cannot be evaluated.
pub fn record_unexpanded(u: gpulint_model::Unexpanded) {
    UNEXPANDED.with(|t| t.borrow_mut().push(u));
}

/// The blocks recorded as left out on this thread since the last call.
pub fn take_unexpanded() -> Vec<gpulint_model::Unexpanded> {
    UNEXPANDED.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// Records what was assumed to read a block (that it is enabled).
pub fn record_caveat(caveat: gpulint_model::Caveat) {
    CAVEATS.with(|t| t.borrow_mut().push(caveat));
}

/// The caveats recorded on this thread since the last call.
pub fn take_caveats() -> Vec<gpulint_model::Caveat> {
    CAVEATS.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// `s`, shared with every equal string of this thread's run ([`take_instances`] forgets
/// them).
pub fn intern(s: &str) -> Arc<str> {
    WORDS.with(|w| {
        let mut w = w.borrow_mut();
        if let Some(held) = w.get(s) {
            return Arc::clone(held);
        }
        let held: Arc<str> = Arc::from(s);
        w.insert(Arc::clone(&held));
        held
    })
}

/// Records a module instance and where its variables were set: a root module only when
/// one was.
pub fn record_instance(instance: Instance) {
    // A call's instance names the call that deploys its findings, whatever it passes.
    if !instance.vars.is_empty() || instance.call.is_some() {
        INSTANCES.with(|i| i.borrow_mut().push(instance));
    }
}

/// The instances recorded on this thread since the last call.
pub fn take_instances() -> Vec<Instance> {
    WORDS.with(|w| w.borrow_mut().clear());
    INSTANCES.with(|i| std::mem::take(&mut *i.borrow_mut()))
}
