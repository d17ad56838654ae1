//! The data engines' stream tasks: `aclrtReduceAsync` (a copy that
//! reduces into its destination, I `ReduceAsync`) and `aclrtRandomNumAsync`
//! (random numbers written to device memory, I `LaunchRandomNumTask`).
//!
//! A reduction combines `count` bytes of `src` into `dst` element by
//! element: SUM adds, MAX and MIN keep the larger or smaller, EQUAL stores
//! the source (the plain copy of the reduce engine). Random numbers come
//! from a counter-based generator (SplitMix64 of the seed and the element
//! index), so a seed gives the same numbers on every run; they are not the
//! device's sequence (its generator is not public).

use crate::base_types::{f16_to_f32, f32_to_f16};
use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::prim::{self, Span, UserMem};
use crate::rt::access::Place;
use crate::rt::exec::Op;
use crate::rt::rt;

/// `ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM` .. `_EQUAL`.
pub(crate) const REDUCE_KINDS: std::ops::RangeInclusive<u32> = 10..=13;

/// The element types of a reduction (the ACL layer's map for
/// `aclrtReduceAsync`), with their size in bytes; INT4 is accepted by the
/// ACL layer and refused here (207000: the simulator does not reduce
/// half-byte elements).
pub(crate) fn reduce_elem(ty: i32) -> Option<usize> {
    match ty {
        t if t == ffi::ACL_FLOAT || t == ffi::ACL_INT32 || t == ffi::ACL_UINT32 => Some(4),
        t if t == ffi::ACL_FLOAT16
            || t == ffi::ACL_BF16
            || t == ffi::ACL_INT16
            || t == ffi::ACL_UINT16 =>
        {
            Some(2)
        }
        t if t == ffi::ACL_INT8 || t == ffi::ACL_UINT8 => Some(1),
        t if t == ffi::ACL_INT4 => Some(0),
        _ => None,
    }
}

/// The element types of random numbers (`kernel.cpp`'s map).
pub(crate) fn random_elem(ty: i32) -> Option<usize> {
    match ty {
        t if t == ffi::ACL_INT32 || t == ffi::ACL_UINT32 || t == ffi::ACL_FLOAT => Some(4),
        t if t == ffi::ACL_INT64 || t == ffi::ACL_UINT64 => Some(8),
        t if t == ffi::ACL_BF16 || t == ffi::ACL_FLOAT16 => Some(2),
        _ => None,
    }
}

/// Device memory of `len` bytes at `p` (107000 otherwise).
fn device_span(p: UserMem, len: usize, role: &str) -> Res<Span> {
    let rt = rt();
    let at = p.addr();
    let acc = rt.mem.access(p, len, role)?;
    if !matches!(acc.place, Place::Device(_) | Place::Managed(_)) {
        return Err(rt_param(format!(
            "{role} {at:#x} is {}, not device memory",
            acc.place.describe()
        )));
    }
    Ok(acc.span)
}

fn to_f32(ty: i32, b: &[u8]) -> f64 {
    match ty {
        t if t == ffi::ACL_FLOAT => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        t if t == ffi::ACL_FLOAT16 => f64::from(f16_to_f32(u16::from_le_bytes([b[0], b[1]]))),
        t if t == ffi::ACL_BF16 => f64::from(f32::from_bits(
            u32::from(u16::from_le_bytes([b[0], b[1]])) << 16,
        )),
        t if t == ffi::ACL_INT32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        t if t == ffi::ACL_UINT32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        t if t == ffi::ACL_INT16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        t if t == ffi::ACL_UINT16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
        t if t == ffi::ACL_INT8 => f64::from(b[0] as i8),
        _ => f64::from(b[0]),
    }
}

fn from_f64(ty: i32, v: f64, out: &mut [u8]) {
    match ty {
        t if t == ffi::ACL_FLOAT => out.copy_from_slice(&(v as f32).to_le_bytes()),
        t if t == ffi::ACL_FLOAT16 => out.copy_from_slice(&f32_to_f16(v as f32).to_le_bytes()),
        t if t == ffi::ACL_BF16 => {
            let bits = (v as f32).to_bits();
            let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16;
            out.copy_from_slice(&(rounded as u16).to_le_bytes());
        }
        // Integers wrap as the engine's adders do.
        t if t == ffi::ACL_INT32 || t == ffi::ACL_UINT32 => {
            out.copy_from_slice(&((v as i64) as u32).to_le_bytes());
        }
        t if t == ffi::ACL_INT64 || t == ffi::ACL_UINT64 => {
            out.copy_from_slice(&((v as i128) as u64).to_le_bytes());
        }
        t if t == ffi::ACL_INT16 || t == ffi::ACL_UINT16 => {
            out.copy_from_slice(&((v as i64) as u16).to_le_bytes());
        }
        _ => out[0] = (v as i64) as u8,
    }
}

/// I `ReduceAsync` (the layers above checked the kind, the type and the
/// count): `dst` and `src` device memory of `count` bytes each (107000),
/// `count` a multiple of the element size (107000); the stream of the
/// current context.
pub(crate) fn reduce(
    dst: UserMem,
    src: UserMem,
    count: usize,
    kind: u32,
    ty: i32,
    stream: usize,
) -> Res<()> {
    let size = reduce_elem(ty).unwrap_or(0);
    if size == 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "reductions of ACL_INT4 elements are not simulated",
        ));
    }
    if count % size != 0 {
        return Err(rt_param(format!(
            "count {count} is not a multiple of the {size}-byte element"
        )));
    }
    let d = device_span(dst, count, "dst")?;
    let s = device_span(src, count, "src")?;
    let sh = {
        let rt = rt();
        rt.stream_in_current(stream)?.1.shared.clone()
    };
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "reduce",
            category: "copy",
            blocking: false,
            run: Box::new(move |_| {
                let mut a = vec![0u8; count];
                let mut b = vec![0u8; count];
                prim::read_into(&d, &mut a);
                prim::read_into(&s, &mut b);
                for (x, y) in a.chunks_exact_mut(size).zip(b.chunks_exact(size)) {
                    let (u, v) = (to_f32(ty, x), to_f32(ty, y));
                    let r = match kind {
                        10 => u + v,
                        11 => u.max(v),
                        12 => u.min(v),
                        _ => v,
                    };
                    from_f64(ty, r, x);
                }
                prim::write_from(&d, &a);
                Ok(None)
            }),
        },
        ticket,
    )?;
    Ok(())
}

/// A parameter of a random-number task: its value, or the device address
/// holding it (`isAddr`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Param {
    pub is_addr: bool,
    pub bytes: [u8; 8],
    pub size: u8,
}

/// A random-number task (`aclrtRandomNumTaskInfo`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RandomTask {
    pub ty: i32,
    pub func: u32,
    pub p1: Param,
    pub p2: Param,
    pub result: usize,
    pub seed: Param,
    pub num: Param,
}

/// SplitMix64.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from a 64-bit draw.
fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

/// A parameter's integer value (an address parameter: 8 bytes read from
/// device memory).
fn param_value(p: Param) -> Res<u64> {
    if p.is_addr {
        let addr = u64::from_le_bytes(p.bytes) as usize;
        let span = {
            let rt = rt();
            rt.mem
                .access_runtime(addr, 8)
                .map_err(|why| rt_param(format!("parameter address: {why}")))?
                .span
        };
        let mut b = [0u8; 8];
        prim::read_into(&span, &mut b);
        return Ok(u64::from_le_bytes(b));
    }
    let n = usize::from(p.size.min(8));
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&p.bytes[..n]);
    Ok(u64::from_le_bytes(b))
}

/// A parameter as a number of the task's element type (floats: its bits
/// as an f32 for 4-byte values, else as an f64).
fn param_f64(p: Param) -> Res<f64> {
    let v = param_value(p)?;
    Ok(if p.size == 4 {
        f64::from(f32::from_bits(v as u32))
    } else if p.size == 8 {
        f64::from_bits(v)
    } else {
        v as f64
    })
}

/// I `LaunchRandomNumTask`: the result must be device memory for `num`
/// elements (107000); the function type one of the four (107000).
pub(crate) fn random(task: RandomTask, stream: usize) -> Res<()> {
    let size = random_elem(task.ty).ok_or_else(|| rt_param("internal: random type"))?;
    let num =
        usize::try_from(param_value(task.num)?).map_err(|_| rt_param("randomNum too large"))?;
    let seed = param_value(task.seed)?;
    if task.func > 3 {
        return Err(rt_param(format!(
            "funcType {}: expected DROPOUT_BITMASK, UNIFORM_DIS, NORMAL_DIS or \
             TRUNCATED_NORMAL_DIS",
            task.func
        )));
    }
    let bytes = if task.func == 0 {
        num.div_ceil(8)
    } else {
        num.checked_mul(size)
            .ok_or_else(|| rt_param("randomNum too large"))?
    };
    let (a, b) = (param_f64(task.p1)?, param_f64(task.p2)?);
    let span = {
        let rt = rt();
        rt.mem
            .access_runtime(task.result, bytes)
            .map_err(|why| rt_param(format!("randomResultAddr: {why}")))?
            .span
    };
    let sh = {
        let rt = rt();
        rt.stream_in_current(stream)?.1.shared.clone()
    };
    let ty = task.ty;
    let func = task.func;
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "random numbers",
            category: "kernel",
            blocking: false,
            run: Box::new(move |_| {
                let mut out = vec![0u8; bytes];
                let draw = |i: usize, k: u64| mix(seed ^ mix((i as u64) << 1 | k));
                if func == 0 {
                    // Dropout bitmask: bit i kept (1) with probability 1 - ratio.
                    for i in 0..num {
                        if unit(draw(i, 0)) >= a {
                            out[i / 8] |= 1 << (i % 8);
                        }
                    }
                } else {
                    for (i, e) in out.chunks_exact_mut(size).enumerate() {
                        let v = match func {
                            1 => {
                                let float = ty == ffi::ACL_FLOAT
                                    || ty == ffi::ACL_FLOAT16
                                    || ty == ffi::ACL_BF16;
                                let u = unit(draw(i, 0));
                                if float {
                                    a + (b - a) * u
                                } else {
                                    (a + ((b - a) * u).floor()).min(b - 1.0).max(a)
                                }
                            }
                            _ => {
                                // Box-Muller; truncated: redrawn beyond 2 sigma.
                                let mut k = 0;
                                loop {
                                    let u1 = unit(draw(i, 2 * k)).max(f64::MIN_POSITIVE);
                                    let u2 = unit(draw(i, 2 * k + 1));
                                    let z = (-2.0 * u1.ln()).sqrt()
                                        * (2.0 * std::f64::consts::PI * u2).cos();
                                    if func == 2 || z.abs() <= 2.0 || k > 64 {
                                        break a + b * z;
                                    }
                                    k += 1;
                                }
                            }
                        };
                        from_f64(ty, v, e);
                    }
                }
                prim::write_from(&span, &out);
                Ok(None)
            }),
        },
        ticket,
    )?;
    Ok(())
}
