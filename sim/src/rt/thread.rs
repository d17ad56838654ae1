//! The calling thread's binding: which context its calls use. One state
//! machine, whose states and transitions are those of the runtime's
//! thread-local container (a current context set explicitly, or a
//! reference to a device's primary context taken by `aclrtSetDevice`;
//! never both), so every function that changes the binding changes it
//! here, the same way (fidelity rows THREAD-*).

use std::cell::Cell;

/// What the calling thread's calls run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// Nothing: no device bound, no context current (107002 for every call
    /// that needs a context).
    Unbound,
    /// Bound to a device by `aclrtSetDevice`: the device's default
    /// (primary) context, the handle here.
    Device(usize),
    /// A context made current by `aclrtCreateContext` or
    /// `aclrtSetCurrentContext` (the default context of a device too, when
    /// set current by handle).
    Context(usize),
}

/// A change of the thread's binding, named after the call that makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transition {
    /// `aclrtSetDevice`: the device's default context `primary` (made or
    /// retained); any explicit context is dropped.
    SetDevice { primary: usize },
    /// `aclrtCreateContext` (the new context) or `aclrtSetCurrentContext`:
    /// the context becomes current and the device binding is dropped.
    SetCurrent { ctx: usize },
    /// `aclrtDestroyContext` of `ctx` succeeded on this thread: it is
    /// current no longer if it was; nothing else changes.
    DestroyContext { ctx: usize },
    /// A reset of a device (`aclrtResetDevice` whose count reached 0, or
    /// `aclrtResetDeviceForce`) tore down its default context `primary` on
    /// this thread: the thread's device binding goes, whichever device it
    /// names; an explicit current context stays unless it is `primary`.
    PrimaryTearDown { primary: usize },
    /// The simulator's teardown of the whole process state (`aclFinalize`,
    /// `aclrt_sim::reset`): nothing is left to be bound to.
    Finalize,
}

impl Binding {
    /// The state after `t`.
    pub(crate) fn after(self, t: Transition) -> Binding {
        use Binding::*;
        match (t, self) {
            (Transition::SetDevice { primary }, _) => Device(primary),
            (Transition::SetCurrent { ctx }, _) => Context(ctx),
            (Transition::DestroyContext { ctx }, Context(c)) if c == ctx => Unbound,
            (Transition::DestroyContext { .. }, s) => s,
            (Transition::PrimaryTearDown { primary }, Context(c)) if c == primary => Unbound,
            (Transition::PrimaryTearDown { .. }, Context(c)) => Context(c),
            (Transition::PrimaryTearDown { .. }, _) => Unbound,
            (Transition::Finalize, _) => Unbound,
        }
    }

    /// The context the thread's calls use (0: none).
    pub(crate) fn context(self) -> usize {
        match self {
            Binding::Unbound => 0,
            Binding::Device(c) | Binding::Context(c) => c,
        }
    }
}

thread_local! {
    static BINDING: Cell<Binding> = const { Cell::new(Binding::Unbound) };
}

/// The calling thread's binding.
pub(crate) fn binding() -> Binding {
    BINDING.with(Cell::get)
}

/// Applies `t` to the calling thread's binding.
pub(crate) fn apply(t: Transition) {
    BINDING.with(|b| b.set(b.get().after(t)));
}

#[cfg(test)]
mod tests {
    use super::Binding::*;
    use super::Transition::*;

    /// Every transition from every kind of state, as the runtime makes it.
    #[test]
    fn every_transition_from_every_state() {
        let (p0, p1, x) = (0x10, 0x20, 0x30);
        let table = [
            (Unbound, SetDevice { primary: p0 }, Device(p0)),
            (Device(p1), SetDevice { primary: p0 }, Device(p0)),
            (Context(x), SetDevice { primary: p0 }, Device(p0)),
            (Unbound, SetCurrent { ctx: x }, Context(x)),
            (Device(p0), SetCurrent { ctx: x }, Context(x)),
            (Context(p0), SetCurrent { ctx: x }, Context(x)),
            (Context(x), DestroyContext { ctx: x }, Unbound),
            (Context(p0), DestroyContext { ctx: x }, Context(p0)),
            (Device(p0), DestroyContext { ctx: x }, Device(p0)),
            (Unbound, DestroyContext { ctx: x }, Unbound),
            (Device(p0), PrimaryTearDown { primary: p0 }, Unbound),
            (Device(p1), PrimaryTearDown { primary: p0 }, Unbound),
            (Context(p0), PrimaryTearDown { primary: p0 }, Unbound),
            (Context(x), PrimaryTearDown { primary: p0 }, Context(x)),
            (Unbound, PrimaryTearDown { primary: p0 }, Unbound),
            (Device(p0), Finalize, Unbound),
            (Context(x), Finalize, Unbound),
            (Unbound, Finalize, Unbound),
        ];
        for (from, t, to) in table {
            assert_eq!(from.after(t), to, "{from:?} --{t:?}-->");
        }
        assert_eq!(Device(p0).context(), p0);
        assert_eq!(Context(x).context(), x);
        assert_eq!(Unbound.context(), 0);
    }
}
