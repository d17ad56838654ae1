//! What a typed launch takes for each declared parameter ([`KernelArg`],
//! [`LaunchArgs`]) and how it stages it.

use crate::ffi::kernel::Staged;
use crate::ffi::protocol::failure::Origin;
use crate::ffi::scope::LaneCore;
use crate::memory::{DeviceRepr, Memory, OnDevice, OnHost, Place};
use crate::mode::{DeviceMode, RunMode};
use crate::scope::{AsyncDest, AsyncSource, InFlight};

use super::params::{Count, In, InOut, KernelParams, Out, Param, Scalar, sealed};

/// Places whose memory device code can address in run mode `M`: device
/// memory always, "host" memory from `aclrtMallocHost` only in device run
/// mode (where it is device memory).
#[diagnostic::on_unimplemented(
    message = "memory that lies `{Self}` is not device memory in run mode `{M}`: a kernel cannot address it",
    label = "kernel buffer arguments must be device memory",
    note = "in host run mode (`HostMode`) a `HostBuffer` is pinned HOST memory: copy it to a `DeviceBuffer` first (`lane.copy(&host, &mut dev)?`) and pass the device buffer",
    note = "in device run mode (`DeviceMode`) a `HostBuffer` is device memory and may be passed"
)]
pub trait KernelPlace<M: RunMode>: Place {}
impl<M: RunMode> KernelPlace<M> for OnDevice {}
impl KernelPlace<DeviceMode> for OnHost {}

/// Memory a kernel may be given by its own address: memory the runtime
/// allocated (device buffers and their views, managed buffers, and pinned
/// `HostBuffer`s / `PinnedSlice`s, which [`KernelPlace`] admits in device run
/// mode only). Registered host memory ([`HostRegistration`](crate::HostRegistration))
/// lies `OnHost` like a `HostBuffer` but is the program's own memory: the
/// device code reaches it only through the alias the runtime maps for it
/// ([`DeviceAlias`](crate::DeviceAlias), [`DeviceAliasMut`](crate::DeviceAliasMut)),
/// never by its host address. The operands of foreign device work
/// ([`Lane::foreign`](crate::Lane::foreign)) must be this memory too. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a kernel or foreign device work by its address: it is not memory of the runtime",
    label = "registered host memory reaches device code only through its device alias",
    note = "for a kernel, pass `reg.device_alias()` for an `In<T>` parameter and `reg.device_alias_mut()` for `Out<T>`/`InOut<T>`",
    note = "foreign work (`Lane::foreign`) is handed operand addresses: copy registered memory into a `DeviceBuffer` on the lane first (`lane.copy(&reg, &mut dev)`)"
)]
pub trait KernelMemory: sealed::KernelMemory {}
macro_rules! kernel_memory {
    ($([$($g:tt)*] $t:ty),+ $(,)?) => {$(
        impl<$($g)*> sealed::KernelMemory for $t {}
        impl<$($g)*> KernelMemory for $t {}
    )+};
}
kernel_memory!(
    [T] crate::DeviceBuffer<'_, '_, T>,
    [T] crate::DeviceView<'_, '_, T>,
    [T] crate::DeviceViewMut<'_, '_, T>,
    [T, M: crate::RunMode] crate::ManagedBuffer<'_, '_, T, M>,
    [T, M] crate::HostBuffer<'_, '_, T, M>,
    [T, M] crate::PinnedSlice<'_, T, M>,
);

/// An argument for parameter `P` of a kernel launched on the lane branded
/// `'sid` (context `'id`, run mode `M`).
///
/// | marker | accepted argument | launch returns |
/// | --- | --- | --- |
/// | [`In<T>`] | `&buffer` (device memory of this context, shared for the scope) or `&in_flight` of this lane | `()` |
/// | [`Out<T>`], [`InOut<T>`] | `&mut buffer` (borrowed for the scope) or an `InFlight` of this lane | `InFlight` |
/// | [`Scalar<T>`] | a `T: DeviceRepr`, by value | `()` |
/// | [`Count`] | a `usize` | `()` |
///
/// Sealed by its hidden method's types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `{P}` kernel parameter on this lane",
    label = "wrong argument for `{P}`",
    note = "`In<T>`: `&buffer` of THIS context's device memory (element type `T`) or `&in_flight` of THIS lane; `Out<T>`/`InOut<T>`: `&mut buffer` or an `InFlight` of THIS lane, by value; `Scalar<T>`: a `T` by value (`T: DeviceRepr`); `Count`: a `usize`",
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`"
)]
pub trait KernelArg<'scope, 'id, 'sid, M: RunMode, P: Param> {
    /// What the launch gives back for this argument.
    type Output;
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output;
    /// Where the contents of what this argument reads came from
    /// (`Origin::OUTSIDE`: nothing of the scope's), taken before any
    /// argument is staged, so a launch's outputs know what all its inputs
    /// came from.
    #[doc(hidden)]
    fn reads_origin(&self, lane: &LaneCore<'scope, 'sid>) -> Origin {
        let _ = lane;
        Origin::OUTSIDE
    }
    /// The count this argument passes (a [`Count`]), taken before any
    /// argument is staged, so a launch knows how much of each `Out` it
    /// writes.
    #[doc(hidden)]
    fn passed_count(&self) -> Option<usize> {
        None
    }
}

impl<'scope, 'id, 'sid, M, T, S> KernelArg<'scope, 'id, 'sid, M, In<T>> for S
where
    M: RunMode,
    T: DeviceRepr,
    S: AsyncSource<'scope, 'id, 'sid, Elem = T>,
    S::Place: KernelPlace<M>,
    S::Memory: KernelMemory,
{
    type Output = ();
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (src, len) = self.source(lane);
        staged.read(src, len);
    }
    fn reads_origin(&self, lane: &LaneCore<'scope, 'sid>) -> Origin {
        self.source(lane).0.origin()
    }
}

/// Stage a buffer the launch writes; `overwrite`: every element the kernel
/// may touch is written (`Out`), so where that is the whole buffer its
/// contents come from what the launch reads only (`Parked::derive`).
pub(super) fn stage_dest<'scope, 'id, 'sid, X>(
    x: X,
    lane: &LaneCore<'scope, 'sid>,
    staged: &mut Staged<'sid>,
    overwrite: bool,
) -> InFlight<'scope, 'sid, X::Target>
where
    X: AsyncDest<'scope, 'id, 'sid>,
{
    let (mut parked, len) = x.into_parked(lane);
    // An `Out` is written whole only where no count of the launch stops
    // short of its length (the kernel's contract: every element it may
    // touch).
    let whole = overwrite && staged.writes_whole(len);
    if staged.derives() {
        parked.derive(whole, staged.reads_origin());
    }
    staged.write(&parked, len);
    InFlight::from_parked(parked, len)
}

impl<'scope, 'id, 'sid, M, T, X> KernelArg<'scope, 'id, 'sid, M, Out<T>> for X
where
    M: RunMode,
    T: DeviceRepr,
    X: AsyncDest<'scope, 'id, 'sid>,
    X::Target: Memory<'id, Elem = T> + KernelMemory + 'scope,
    <X::Target as Memory<'id>>::Place: KernelPlace<M>,
{
    type Output = InFlight<'scope, 'sid, X::Target>;
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
        stage_dest(self, lane, staged, true)
    }
}

impl<'scope, 'id, 'sid, M, T, X> KernelArg<'scope, 'id, 'sid, M, InOut<T>> for X
where
    M: RunMode,
    T: DeviceRepr,
    X: AsyncDest<'scope, 'id, 'sid>,
    X::Target: Memory<'id, Elem = T> + KernelMemory + 'scope,
    <X::Target as Memory<'id>>::Place: KernelPlace<M>,
{
    type Output = InFlight<'scope, 'sid, X::Target>;
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
        stage_dest(self, lane, staged, false)
    }
}

/// The device alias of registered host memory, read by the kernel: it
/// borrows its [`HostRegistration`](crate::HostRegistration) for the whole
/// scope, so the memory stays registered and nobody writes it meanwhile.
impl<'scope, 'id, 'sid, M, T> KernelArg<'scope, 'id, 'sid, M, In<T>>
    for crate::register::DeviceAlias<'scope, 'id, T>
where
    M: RunMode,
    T: DeviceRepr,
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (addr, len) = self.addr_len();
        staged.alias::<T>(addr, len);
    }
}

/// The device alias of registered host memory, written by the kernel: it
/// holds its [`HostRegistration`](crate::HostRegistration) exclusively for the
/// whole scope, so nothing else touches the memory until the scope ends.
impl<'scope, 'id, 'sid, M, T> KernelArg<'scope, 'id, 'sid, M, Out<T>>
    for crate::register::DeviceAliasMut<'scope, 'id, T>
where
    M: RunMode,
    T: DeviceRepr,
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (addr, len) = self.addr_len();
        staged.alias::<T>(addr, len);
    }
}

/// As for `Out<T>`: the kernel reads and writes it.
impl<'scope, 'id, 'sid, M, T> KernelArg<'scope, 'id, 'sid, M, InOut<T>>
    for crate::register::DeviceAliasMut<'scope, 'id, T>
where
    M: RunMode,
    T: DeviceRepr,
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (addr, len) = self.addr_len();
        staged.alias::<T>(addr, len);
    }
}

impl<'scope, 'id, 'sid, M: RunMode, T: DeviceRepr> KernelArg<'scope, 'id, 'sid, M, Scalar<T>>
    for T
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        staged.value(self);
    }
}

impl<'scope, 'id, 'sid, M: RunMode> KernelArg<'scope, 'id, 'sid, M, Count> for usize {
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        staged.count(self);
    }
    fn passed_count(&self) -> Option<usize> {
        Some(*self)
    }
}

/// The arguments of a launch of a kernel with signature `P`: a tuple with
/// one [`KernelArg`] per parameter. The launch returns the tuple of their
/// outputs (an [`InFlight`] for each written buffer, `()` otherwise).
#[diagnostic::on_unimplemented(
    message = "these arguments do not match the kernel signature `{P}`",
    label = "one argument per declared parameter, in order, as a tuple",
    note = "e.g. for `(In<f32>, In<f32>, Out<f32>, Count)`: `(&a, &b, &mut c, n)`; a single parameter is `(&mut c,)`"
)]
pub trait LaunchArgs<'scope, 'id, 'sid, M: RunMode, P: KernelParams> {
    /// The outputs, one per argument.
    type Output;
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output;
}

macro_rules! tuples {
    ($(($($P:ident $A:ident $a:ident),+))+) => {$(
        impl<$($P: Param),+> sealed::Params for ($($P,)+) {}
        impl<$($P: Param),+> KernelParams for ($($P,)+) {}
        impl<'scope, 'id, 'sid, M: RunMode, $($P: Param, $A),+>
            LaunchArgs<'scope, 'id, 'sid, M, ($($P,)+)> for ($($A,)+)
        where
            $($A: KernelArg<'scope, 'id, 'sid, M, $P>),+
        {
            type Output = ($($A::Output,)+);
            fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
                let ($($a,)+) = self;
                // What every input's contents came from, before any output
                // is staged (outputs may come first in the parameter order).
                $(staged.reads($a.reads_origin(lane));)+
                $(if let Some(n) = <$A as KernelArg<'scope, 'id, 'sid, M, $P>>::passed_count(&$a) { staged.counted(n); })+
                ($($a.stage(lane, staged),)+)
            }
        }
    )+};
}

tuples! {
    (P0 A0 a0)
    (P0 A0 a0, P1 A1 a1)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9, P10 A10 a10)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9, P10 A10 a10, P11 A11 a11)
}
