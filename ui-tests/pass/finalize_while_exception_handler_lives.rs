// Right way: unregister the exception handler, then finalise the runtime.
// Why it compiles: the guard's borrow of the `Acl` ends with `unregister`, before `finalize` takes the `Acl`.
// Enforced by: `ExceptionHandler<'acl>` borrows the `Acl`, and `Acl::finalize` takes it by value.
use aclrt::Acl;

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let handler = acl.on_exception(|_| ())?;
    handler.unregister()?;
    acl.finalize()?;
    Ok(())
}
