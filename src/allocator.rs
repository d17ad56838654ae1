//! Allocators registered on a stream (`aclrtAllocatorRegister` and its
//! family), with device blocks the crate owns.
//!
//! The operator libraries above the runtime allocate their workspaces
//! through the allocator registered on the stream they run on, and write
//! the addresses it returns from the device. So the addresses must never
//! name memory the program still uses: a safe closure returning an address
//! could, and an `unsafe trait` would move that promise to every user.
//! [`Stream::register_allocator`] registers the crate's own callbacks
//! instead: they hand out blocks of device memory the crate allocates
//! (`aclrtMalloc`, within a byte budget), take back the blocks the runtime
//! releases and reuse them for later work of the same stream (stream
//! order), and keep every block until the registration ends. The
//! [`StreamAllocator`] guard borrows the stream; its end
//! ([`StreamAllocator::unregister`], or its drop) unregisters, closes the
//! pool (no block is handed out after), synchronises the stream and only
//! then frees the blocks (kept, never freed, if the stream cannot be made
//! idle). `mem::forget` on the guard leaves the registration and its
//! blocks (a leak, never a dangling callback: the callbacks' state lives
//! for ever); the blocks count as the context's live children, so the
//! context's destruction answers
//! [`Error::LiveChildren`](crate::Error::LiveChildren). The protocol between the callbacks, on the runtime's
//! threads, and the end is `src/ffi/protocol/block_pool.rs`, model-checked
//! (`models/src/block_pool_model.rs`).
//!
//! Work launched on the stream by other code after the registration ended
//! with blocks it took before is that code's: the runtime's contract is
//! that a block is released before its user's work is done with it only
//! in stream order.

use core::marker::PhantomData;

use crate::error::Result;
use crate::ffi::{self, Raw};
use crate::stream::Stream;

/// The crate's allocator registered on a stream
/// ([`Stream::register_allocator`]); unregistered, and its blocks freed,
/// when it ends.
#[doc(alias = "aclrtAllocatorRegister")]
pub struct StreamAllocator<'s> {
    stream: Raw,
    ctx: Raw,
    desc: Option<Raw>,
    obj: &'static ffi::allocator::PoolObj,
    _stream: PhantomData<&'s ()>,
}

impl core::fmt::Debug for StreamAllocator<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamAllocator")
            .field("stream", &self.stream.as_ptr())
            .field("bytes", &self.obj.pool.bytes())
            .finish()
    }
}

impl Stream<'_, '_> {
    /// Register the crate's allocator on this stream
    /// (`aclrtAllocatorRegister`): the runtime's users allocate from device
    /// blocks the crate owns, at most `budget` bytes in all (beyond it an
    /// allocation answers no block). Registering again on the same stream
    /// replaces the registration (the runtime's rule); the earlier guard's
    /// end then unregisters the stream.
    #[doc(alias = "aclrtAllocatorRegister")]
    pub fn register_allocator(&self, budget: usize) -> Result<StreamAllocator<'_>> {
        self.bind()?;
        let obj = ffi::allocator::new_pool(budget, self.ctx_raw());
        let desc = ffi::allocator::create_desc()?;
        let set = ffi::allocator::set_obj(desc, obj)
            .and_then(|()| ffi::allocator::set_alloc(desc))
            .and_then(|()| ffi::allocator::set_free(desc))
            .and_then(|()| ffi::allocator::set_get_addr(desc))
            .and_then(|()| ffi::allocator::register(self.raw(), desc));
        if let Err(e) = set {
            let _ = ffi::allocator::destroy_desc(desc);
            return Err(e);
        }
        Ok(StreamAllocator {
            stream: self.raw(),
            ctx: self.ctx_raw(),
            desc: Some(desc),
            obj,
            _stream: PhantomData,
        })
    }
}

impl StreamAllocator<'_> {
    /// Bytes of device memory the allocator holds now.
    pub fn bytes(&self) -> usize {
        self.obj.pool.bytes()
    }

    /// End the registration (`aclrtAllocatorUnregister`), synchronise the
    /// stream, free the blocks; the first error.
    #[doc(alias = "aclrtAllocatorUnregister")]
    pub fn unregister(mut self) -> Result<()> {
        self.end()
    }

    fn end(&mut self) -> Result<()> {
        let Some(desc) = self.desc.take() else {
            return Ok(());
        };
        ffi::make_current(self.ctx)?;
        let mut first = ffi::allocator::unregister(self.stream).err();
        let blocks = self.obj.pool.close();
        let idle = match ffi::synchronize_stream(self.stream) {
            Ok(()) => true,
            Err(e) => {
                first.get_or_insert(e);
                matches!(ffi::stream_is_complete(self.stream), Ok(true))
            }
        };
        if idle {
            for (addr, _) in blocks {
                if let Err(e) = ffi::allocator::free_block_memory(addr) {
                    first.get_or_insert(e);
                }
            }
        }
        if let Err(e) = ffi::allocator::destroy_desc(desc) {
            first.get_or_insert(e);
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for StreamAllocator<'_> {
    fn drop(&mut self) {
        let _ = self.end();
    }
}
