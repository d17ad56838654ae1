//! Work of other libraries on a lane's stream: [`ForeignWork`] and its
//! operands.

use core::marker::PhantomData;

use crate::ffi::kernel::Staged;
use crate::ffi::scope::LaneCore;
use crate::scope::{AsyncDest, AsyncSource, InFlight};

use super::args::{KernelMemory, stage_dest};

/// A buffer handed to foreign work: its device pointer and size in bytes.
#[derive(Clone, Copy, Debug)]
pub struct ForeignOperand {
    ptr: *mut core::ffi::c_void,
    bytes: usize,
}

impl ForeignOperand {
    pub(crate) fn new(ptr: core::ptr::NonNull<u8>, bytes: usize) -> Self {
        ForeignOperand {
            ptr: ptr.as_ptr().cast(),
            bytes,
        }
    }
    /// The device pointer.
    pub fn ptr(&self) -> *mut core::ffi::c_void {
        self.ptr
    }
    /// The size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// What the closure of [`Lane::foreign`](crate::Lane::foreign) gets: the raw stream and context,
/// the operands in the order given, and the workspace.
#[derive(Debug)]
pub struct ForeignWork<'a> {
    stream: *mut core::ffi::c_void,
    context: *mut core::ffi::c_void,
    reads: Vec<ForeignOperand>,
    writes: Vec<ForeignOperand>,
    workspace: Option<ForeignOperand>,
    _p: PhantomData<&'a ()>,
}

impl ForeignWork<'_> {
    pub(crate) fn new(
        stream: *mut core::ffi::c_void,
        context: *mut core::ffi::c_void,
        reads: Vec<ForeignOperand>,
        writes: Vec<ForeignOperand>,
        workspace: Option<ForeignOperand>,
    ) -> Self {
        ForeignWork {
            stream,
            context,
            reads,
            writes,
            workspace,
            _p: PhantomData,
        }
    }
    /// The lane's stream (`aclrtStream`): enqueue the work here only.
    pub fn stream(&self) -> *mut core::ffi::c_void {
        self.stream
    }
    /// The lane's context (`aclrtContext`), current while the closure runs.
    pub fn context(&self) -> *mut core::ffi::c_void {
        self.context
    }
    /// The operands the work may only read, in the order given.
    pub fn reads(&self) -> &[ForeignOperand] {
        &self.reads
    }
    /// The operands the work may read and write, in the order given.
    pub fn writes(&self) -> &[ForeignOperand] {
        &self.writes
    }
    /// The workspace (`None` when none was given): the work may use it as
    /// scratch; it stays borrowed until the scope ends.
    pub fn workspace(&self) -> Option<ForeignOperand> {
        self.workspace
    }
}

/// The buffers foreign work reads: a tuple (or `()`) of what
/// [`AsyncSource`] accepts whose memory a kernel may be given by its address
/// ([`KernelMemory`]: not registered host memory, whose host address device
/// code must not use).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of sources for foreign work on this lane",
    label = "give the read buffers as a tuple of `&buffer` / `&in_flight`",
    note = "e.g. `(&a, &b)`; one buffer is `(&a,)`; none is `()`"
)]
pub trait ForeignReads<'scope, 'id, 'sid> {
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>);
}

/// The buffers foreign work writes: a tuple (or `()`) of what
/// [`AsyncDest`] accepts whose memory a kernel may be given by its address
/// ([`KernelMemory`]); each comes back as an [`InFlight`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of destinations for foreign work on this lane",
    label = "give the written buffers as a tuple of `&mut buffer` / `InFlight`",
    note = "e.g. `(&mut c,)`; none is `()`"
)]
pub trait ForeignWrites<'scope, 'id, 'sid> {
    /// The [`InFlight`]s, one per buffer.
    type Output;
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output;
}

impl<'scope, 'id, 'sid> ForeignReads<'scope, 'id, 'sid> for () {
    fn stage(self, _: &LaneCore<'scope, 'sid>, _: &mut Staged<'sid>) {}
}
impl<'scope, 'id, 'sid> ForeignWrites<'scope, 'id, 'sid> for () {
    type Output = ();
    fn stage(self, _: &LaneCore<'scope, 'sid>, _: &mut Staged<'sid>) {}
}

macro_rules! foreign_tuples {
    ($(($($A:ident $a:ident),+))+) => {$(
        impl<'scope, 'id, 'sid, $($A),+> ForeignReads<'scope, 'id, 'sid> for ($($A,)+)
        where
            $($A: AsyncSource<'scope, 'id, 'sid>, $A::Memory: KernelMemory),+
        {
            fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
                let ($($a,)+) = self;
                $(
                    let (src, len) = $a.source(lane);
                    staged.read(src, len);
                )+
            }
        }
        impl<'scope, 'id, 'sid, $($A),+> ForeignWrites<'scope, 'id, 'sid> for ($($A,)+)
        where
            $($A: AsyncDest<'scope, 'id, 'sid>, $A::Target: 'scope + KernelMemory),+
        {
            type Output = ($(InFlight<'scope, 'sid, $A::Target>,)+);
            fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
                let ($($a,)+) = self;
                ($(stage_dest($a, lane, staged, false),)+)
            }
        }
    )+};
}

foreign_tuples! {
    (A0 a0)
    (A0 a0, A1 a1)
    (A0 a0, A1 a1, A2 a2)
    (A0 a0, A1 a1, A2 a2, A3 a3)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7)
}
