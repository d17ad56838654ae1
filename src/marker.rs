//! Markers that say, in a compile error, why a value stays where it is.

use core::marker::PhantomData;

/// Keeps a value on the thread that made it: a type that holds a
/// `ThreadBound` is neither [`Send`] nor [`Sync`].
///
/// A [`Scope`](crate::Scope) is driven by the thread that opened it, and so
/// are what borrow it: its lanes ([`Lane`](crate::Lane)), buffers in flight
/// on them ([`InFlight`](crate::InFlight)) and the futures of their awaited
/// waits ([`crate::future`]). A kernel argument list
/// ([`KernelArgs`](crate::kernel::KernelArgs), with its
/// [`Placeholder`](crate::kernel::Placeholder)s) is the runtime's list of
/// the thread that builds it, and a host-function server
/// (`HostFnServer`, Unix) serves the thread that made it. Each holds this
/// marker, so when one of them is moved to, or shared with, another thread,
/// rustc's error names it:
///
/// ```text
/// note: required because it appears within the type `ThreadBound`
/// note: required because it appears within the type `aclrt::Scope<'_, '_, '_, HostMode>`
/// ```
///
/// It has no methods and no public constructor; the values that hold it
/// are made by this crate.
#[derive(Clone, Copy, Debug)]
pub struct ThreadBound(PhantomData<*mut ()>);

impl ThreadBound {
    /// The marker, for the crate's types that hold it.
    pub(crate) const NEW: ThreadBound = ThreadBound(PhantomData);
}
