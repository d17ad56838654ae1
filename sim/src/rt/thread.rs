//! The calling thread's binding: which context its calls use. One state
//! machine, whose states and transitions are those of the runtime's
//! thread-local container (a current context set explicitly, or a
//! reference to a device's primary-context slot taken by `aclrtSetDevice`;
//! never both), so every function that changes the binding changes it
//! here, the same way (fidelity rows THREAD-*).
//!
//! A device binding names the device's slot, not one context: the runtime
//! keeps a pointer to the device's primary-context holder, so after another
//! thread's last reset the binding finds no context (107002), and after a
//! new `aclrtSetDevice` of the device (by any thread) it finds the new
//! default context. Within one runtime generation only: the simulator's
//! teardown at `aclFinalize` starts a new one, and a binding of an earlier
//! generation finds nothing.

use std::cell::Cell;

/// What the calling thread's calls run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// Nothing: no device bound, no context current (107002 for every call
    /// that needs a context).
    Unbound,
    /// Bound to a device by `aclrtSetDevice`: whatever default (primary)
    /// context the device has, while the runtime generation `generation`
    /// lasts.
    Device { device: i32, generation: u64 },
    /// A context made current by `aclrtCreateContext` or
    /// `aclrtSetCurrentContext` (the default context of a device too, when
    /// set current by handle).
    Context(usize),
}

/// A change of the thread's binding, named after the call that makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transition {
    /// `aclrtSetDevice(device)` in runtime generation `generation`: bound
    /// to the device's default context (made or retained); any explicit
    /// context is dropped.
    SetDevice { device: i32, generation: u64 },
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
            (Transition::SetDevice { device, generation }, _) => Device { device, generation },
            (Transition::SetCurrent { ctx }, _) => Context(ctx),
            (Transition::DestroyContext { ctx }, Context(c)) if c == ctx => Unbound,
            (Transition::DestroyContext { .. }, s) => s,
            (Transition::PrimaryTearDown { primary }, Context(c)) if c == primary => Unbound,
            (Transition::PrimaryTearDown { .. }, Context(c)) => Context(c),
            (Transition::PrimaryTearDown { .. }, _) => Unbound,
            (Transition::Finalize, _) => Unbound,
        }
    }

    /// The context the thread's calls use (0: none), `default_of` giving a
    /// device's default context in the current generation (if it has one).
    pub(crate) fn context(
        self,
        generation: u64,
        default_of: impl Fn(i32) -> Option<usize>,
    ) -> usize {
        match self {
            Binding::Unbound => 0,
            Binding::Device {
                device,
                generation: g,
            } if g == generation => default_of(device).unwrap_or(0),
            Binding::Device { .. } => 0,
            Binding::Context(c) => c,
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
        let (p0, x) = (0x10, 0x30);
        let d0 = Device {
            device: 0,
            generation: 1,
        };
        let d1 = Device {
            device: 1,
            generation: 1,
        };
        let set0 = SetDevice {
            device: 0,
            generation: 1,
        };
        let table = [
            (Unbound, set0, d0),
            (d1, set0, d0),
            (Context(x), set0, d0),
            (Unbound, SetCurrent { ctx: x }, Context(x)),
            (d0, SetCurrent { ctx: x }, Context(x)),
            (Context(p0), SetCurrent { ctx: x }, Context(x)),
            (Context(x), DestroyContext { ctx: x }, Unbound),
            (Context(p0), DestroyContext { ctx: x }, Context(p0)),
            (d0, DestroyContext { ctx: x }, d0),
            (Unbound, DestroyContext { ctx: x }, Unbound),
            (d0, PrimaryTearDown { primary: p0 }, Unbound),
            (d1, PrimaryTearDown { primary: p0 }, Unbound),
            (Context(p0), PrimaryTearDown { primary: p0 }, Unbound),
            (Context(x), PrimaryTearDown { primary: p0 }, Context(x)),
            (Unbound, PrimaryTearDown { primary: p0 }, Unbound),
            (d0, Finalize, Unbound),
            (Context(x), Finalize, Unbound),
            (Unbound, Finalize, Unbound),
        ];
        for (from, t, to) in table {
            assert_eq!(from.after(t), to, "{from:?} --{t:?}-->");
        }
        // A device binding finds the device's default context of the same
        // generation, whichever it is now.
        let default_of = |d: i32| (d == 0).then_some(p0);
        assert_eq!(d0.context(1, default_of), p0);
        assert_eq!(d1.context(1, default_of), 0);
        assert_eq!(d0.context(2, default_of), 0);
        assert_eq!(Context(x).context(1, default_of), x);
        assert_eq!(Unbound.context(1, default_of), 0);
    }
}
