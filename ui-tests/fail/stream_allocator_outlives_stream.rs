// Misuse: destroy a stream while the crate's allocator is registered on it (`Stream::register_allocator`).
// Why it must not compile: the registration's end unregisters the stream, synchronises it and frees the blocks its work used; with the stream gone, it could not know when the device is done with them.
// Enforced by: `StreamAllocator<'s>` borrows the `Stream`; `Stream::destroy(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let allocator = stream.register_allocator(1 << 20)?;
    stream.destroy()?;
    println!("{}", allocator.bytes());
    Ok(())
}
