// Misuse: finalise the runtime while an exception handler's guard is alive.
// Why it must not compile: the guard unregisters the handler from the runtime when dropped; after `aclFinalize` that call would reach a finalised runtime.
// Enforced by: `ExceptionHandler<'acl>` borrows the `Acl`, and `Acl::finalize` takes it by value.
use aclrt::Acl;

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let handler = acl.on_exception(|_| ())?;
    acl.finalize()?;
    drop(handler);
    Ok(())
}
