//! `aclrtValueWrite` and `aclrtValueWait`: stream tasks that write a 64-bit
//! value to device memory, or hold their stream until a 64-bit value in
//! device memory meets a condition (I `MemWriteValue` / `MemWaitValue`).

use std::time::Duration;

use crate::diag::{Res, rt_param};
use crate::prim::{self, UserMem};
use crate::rt::access::Place;
use crate::rt::exec::{KernelCut, Op};
use crate::rt::rt;

/// `MEM_WAIT_VALUE_TYPE_MAX`: the wait modes are GEQ (0), EQ (1), AND (2),
/// NOR (3).
pub(crate) const WAIT_MODES: u32 = 4;

/// Whether `current` meets wait mode `mode` against `value`.
pub(crate) fn satisfied(mode: u32, current: u64, value: u64) -> bool {
    match mode {
        0 => current >= value,
        1 => current == value,
        2 => current & value != 0,
        _ => !(current | value) != 0,
    }
}

/// The 8 bytes at `addr`, which must be device memory (E's location check:
/// 107000), and the stream (of the current context) to queue on.
fn resolve(
    addr: UserMem,
    stream: usize,
) -> Res<(prim::Span, std::sync::Arc<crate::rt::exec::StreamShared>)> {
    let rt = rt();
    let at = addr.addr();
    let acc = rt.mem.access(addr, 8, "devAddr")?;
    if !matches!(acc.place, Place::Device(_) | Place::Managed(_)) {
        return Err(rt_param(format!(
            "devAddr {at:#x} is {}, not device memory",
            acc.place.describe()
        )));
    }
    let (_, st) = rt.stream_in_current(stream)?;
    Ok((acc.span, st.shared.clone()))
}

/// I `MemWriteValue`: the task stores `value` (little-endian) at `addr`.
pub(crate) fn write(addr: UserMem, value: u64, stream: usize) -> Res<()> {
    let (span, sh) = resolve(addr, stream)?;
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "value write",
            category: "memset",
            blocking: false,
            run: Box::new(move |_| {
                if prim::write_from(&span, &value.to_le_bytes()) {
                    Ok(None)
                } else {
                    Ok(Some((
                        crate::ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                        "internal error: the value write's span is not writable".to_owned(),
                    )))
                }
            }),
        },
        ticket,
    )?;
    Ok(())
}

/// I `MemWaitValue`: the task polls the 64-bit value at `addr` until it
/// meets `mode` against `value` (an abort or teardown stops it).
pub(crate) fn wait(addr: UserMem, value: u64, mode: u32, stream: usize) -> Res<()> {
    let (span, sh) = resolve(addr, stream)?;
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "value wait",
            category: "wait",
            blocking: true,
            run: Box::new(move |stopped| {
                let mut buf = [0u8; 8];
                let mut pause = Duration::from_micros(20);
                loop {
                    prim::read_into(&span, &mut buf);
                    if satisfied(mode, u64::from_le_bytes(buf), value) {
                        return Ok(None);
                    }
                    if stopped() {
                        return Err(KernelCut);
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(2));
                }
            }),
        },
        ticket,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::satisfied;

    #[test]
    fn the_four_wait_modes() {
        // GEQ
        assert!(satisfied(0, 5, 5) && satisfied(0, 6, 5) && !satisfied(0, 4, 5));
        // EQ
        assert!(satisfied(1, 5, 5) && !satisfied(1, 6, 5));
        // AND: some bit in common
        assert!(satisfied(2, 0b0110, 0b0100) && !satisfied(2, 0b0011, 0b0100));
        // NOR: some bit set in neither
        assert!(satisfied(3, 0, 0) && !satisfied(3, u64::MAX, 0) && !satisfied(3, 0, u64::MAX));
        assert!(satisfied(3, 0xF0, 0x0F));
    }
}
