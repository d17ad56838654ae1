//! Virtual memory: a buffer that grows without copying. A range of eight
//! granules is reserved once; one physical granule is mapped at its start
//! and filled; when more room is needed a second allocation is mapped right
//! after the first (`Mapping::grow`), and the data written before stays
//! where it is. Sizes are `Granules`, so nothing can be misaligned, and the
//! mapping borrows the range and the allocations: it is unmapped (dropped)
//! before they are released, or the program does not compile.

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(8)?)?;
    let mut first = ctx.alloc_physical(gran.granules(1)?)?;
    let mut second = ctx.alloc_physical(gran.granules(2)?)?;
    let per_granule = gran.bytes() / 4;
    {
        let mut mapping = range.map(0, &mut first)?;
        let data: Vec<u32> = (0..per_granule as u32).collect();
        ctx.copy(&data, &mut mapping.view_mut::<u32>())?;
        let address = mapping.as_device_ptr();

        // Grow in place: three granules now, the first one untouched.
        mapping.grow(&mut second)?;
        assert_eq!(mapping.as_device_ptr(), address, "no move");
        assert_eq!(mapping.view::<u32>().len(), 3 * per_granule);
        let tail: Vec<u32> = (0..2 * per_granule as u32).map(|i| i ^ 0xA5A5).collect();
        let (_, mut rest) = mapping.view_mut::<u32>().split_at_mut(per_granule)?;
        ctx.copy(&tail, &mut rest)?;

        // One copy per physical allocation: the simulator takes each mapping
        // for an allocation of its own and refuses a copy across two.
        let mut back = vec![0u32; 3 * per_granule];
        let whole = mapping.view::<u32>();
        let (head, rest) = whole.split_at(per_granule)?;
        let (back_head, back_rest) = back.split_at_mut(per_granule);
        ctx.copy(&head, back_head)?;
        ctx.copy(&rest, back_rest)?;
        assert_eq!(
            &back[..per_granule],
            &data[..],
            "the first granule kept its data"
        );
        assert_eq!(&back[per_granule..], &tail[..]);
        println!(
            "grew a mapping from 1 to 3 granules of {} bytes at {:p} without a copy",
            gran.bytes(),
            address
        );
    } // unmapped here, before the allocations and the range go
    drop((first, second));
    range.release()?;
    Ok(())
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    match acl.detect() {
        Detected::Host(rt) => run(rt)?,
        Detected::Device(rt) => run(rt)?,
    }
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("25_virtual_memory: OK");
    Ok(())
}
