//! The base types of `acl/acl_base.h` that carry behaviour: the half
//! precision conversions (`aclFloat16ToFloat`, `aclFloatToFloat16`) and the
//! element sizes of `aclDataType` (`aclDataTypeSize`), with the real
//! runtime's conventions (its ACL layer, `src/acl/aclrt_impl/types/` and
//! `data_buffer.cpp`; see `sim/FIDELITY.md`, rows BASE-*).

use crate::ffi;

/// The largest finite half, 65504.0, without its sign.
const HALF_MAX: u16 = 0x7bff;

/// `aclFloatToFloat16`: round to nearest, ties to even; saturating: every
/// value beyond the half range, both infinities and NaN become +-65504.0
/// (the sign is kept, a negative NaN gives -65504.0).
pub(crate) fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp_field = (bits >> 23) & 0xff;
    let man = bits & 0x7f_ffff;
    if exp_field == 0xff {
        return sign | HALF_MAX;
    }
    if exp_field == 0 {
        // Zero or a single-precision subnormal (below 2^-126): rounds to 0.
        return sign;
    }
    let e = exp_field as i32 - 127;
    if e > 15 {
        return sign | HALF_MAX;
    }
    if e >= -14 {
        // A normal half: keep 10 of the 23 mantissa bits.
        let mut h = (((e + 15) as u32) << 10) | (man >> 13);
        let rest = man & 0x1fff;
        if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
            // A carry out of the mantissa raises the exponent, as it must.
            h += 1;
        }
        return if h >= 0x7c00 {
            sign | HALF_MAX
        } else {
            sign | h as u16
        };
    }
    // A half subnormal (or zero): count units of 2^-24. The value is
    // `full * 2^(e - 23)`, i.e. `full >> shift` units with shift >= 14.
    let full = man | 0x80_0000;
    let shift = (-(e + 1)) as u32;
    if shift > 24 {
        return sign;
    }
    let q = full >> shift;
    let rem = full & ((1u32 << shift) - 1);
    let half = 1u32 << (shift - 1);
    let h = if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    sign | h as u16
}

/// `aclFloat16ToFloat`: exact for finite halves; the exponent field 31 is
/// read as an ordinary exponent (the runtime's saturating convention), so
/// +-infinity reads +-65536.0 and the quiet NaN 0x7E00 reads 98304.0.
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let e = u32::from((h >> 10) & 0x1f);
    let m = u32::from(h & 0x3ff);
    let magnitude = if e == 0 {
        // m * 2^-24, exact.
        m as f32 * f32::from_bits((127 - 24) << 23)
    } else {
        // (1024 + m) * 2^(e - 25), exact (e - 25 lies in -24..=6).
        (1024 + m) as f32 * f32::from_bits((127 + e - 25) << 23)
    };
    if h & 0x8000 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// `aclDataTypeSize`: bytes of one element. `ACL_STRING` and
/// `ACL_DT_UNDEFINED` are 0, the sub-byte types (`ACL_INT4`, `ACL_UINT1`)
/// count 1, and every value the runtime does not list (the 6- and 4-bit
/// float types among them) counts 8, as the runtime's default case does.
pub(crate) fn data_type_size(dt: ffi::aclDataType) -> usize {
    match dt {
        ffi::ACL_STRING | ffi::ACL_DT_UNDEFINED => 0,
        ffi::ACL_UINT1 | ffi::ACL_INT4 => 1,
        ffi::ACL_BOOL
        | ffi::ACL_INT8
        | ffi::ACL_UINT8
        | ffi::ACL_HIFLOAT8
        | ffi::ACL_FLOAT8_E5M2
        | ffi::ACL_FLOAT8_E4M3FN
        | ffi::ACL_FLOAT8_E8M0 => 1,
        ffi::ACL_FLOAT16 | ffi::ACL_INT16 | ffi::ACL_UINT16 | ffi::ACL_BF16 => 2,
        ffi::ACL_FLOAT | ffi::ACL_INT32 | ffi::ACL_UINT32 | ffi::ACL_COMPLEX32 => 4,
        ffi::ACL_COMPLEX128 => 16,
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finite half survives the trip through single precision, and
    /// each conversion agrees with the exact value.
    #[test]
    fn finite_halves_round_trip_exactly() {
        for h in 0..=u16::MAX {
            if (h >> 10) & 0x1f == 0x1f {
                continue;
            }
            let f = f16_to_f32(h);
            assert_eq!(f32_to_f16(f), h, "{h:#06x} -> {f}");
        }
    }

    /// The nearest half by search (ties to the even one), saturating.
    fn nearest_half(x: f32) -> u16 {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let a = f64::from(x.abs());
        if x.is_nan() || a >= 65504.0 {
            return sign | HALF_MAX;
        }
        // Positive halves 0..=0x7bff increase with their bit patterns.
        let (mut lo, mut hi) = (0u16, HALF_MAX);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if f64::from(f16_to_f32(mid)) <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (dl, dh) = (a - f64::from(f16_to_f32(lo)), f64::from(f16_to_f32(hi)) - a);
        let pick = if dl < dh || (dl == dh && lo & 1 == 0) {
            lo
        } else {
            hi
        };
        sign | pick
    }

    /// 200,000 single-precision values spread over all exponents agree
    /// with the nearest half found by search.
    #[test]
    fn conversion_agrees_with_a_search_for_the_nearest_half() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let bits = (state >> 32) as u32;
            // Bias towards the half range: exponents 97..=145.
            let exp = 97 + (bits >> 23) % 49;
            let x = f32::from_bits((bits & 0x807f_ffff) | (exp << 23));
            assert_eq!(
                f32_to_f16(x),
                nearest_half(x),
                "{x:e} ({:#010x})",
                x.to_bits()
            );
        }
    }

    #[test]
    fn ties_go_to_even_and_overflow_saturates() {
        // 1 + 2^-11 lies halfway between 1.0 (0x3c00) and the next half.
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        // 1 + 3 * 2^-11 is halfway between 0x3c01 and 0x3c02: to even.
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        // Just above the tie rounds up.
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11) + 2f32.powi(-20)), 0x3c01);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7bff);
        assert_eq!(f32_to_f16(1e10), 0x7bff);
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7bff);
        assert_eq!(f32_to_f16(f32::NEG_INFINITY), 0xfbff);
        assert_eq!(f32_to_f16(f32::NAN), 0x7bff);
        assert_eq!(f32_to_f16(-f32::NAN), 0xfbff);
        // Subnormal halves: 2^-24 is the smallest; half of it ties to 0.
        assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000);
        assert_eq!(f32_to_f16(2f32.powi(-25) * 1.0001), 0x0001);
        assert_eq!(f32_to_f16(3.0 * 2f32.powi(-25)), 0x0002);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f32_to_f16(f32::MIN_POSITIVE / 2.0), 0x0000);
    }

    #[test]
    fn special_halves_read_as_the_runtime_reads_them() {
        assert_eq!(f16_to_f32(0x7c00), 65536.0);
        assert_eq!(f16_to_f32(0xfc00), -65536.0);
        assert_eq!(f16_to_f32(0x7e00), 98304.0);
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x8000).is_sign_negative());
    }

    #[test]
    fn data_type_sizes_follow_the_runtime() {
        let cases = [
            (ffi::ACL_DT_UNDEFINED, 0),
            (ffi::ACL_STRING, 0),
            (ffi::ACL_FLOAT, 4),
            (ffi::ACL_FLOAT16, 2),
            (ffi::ACL_BF16, 2),
            (ffi::ACL_INT8, 1),
            (ffi::ACL_INT4, 1),
            (ffi::ACL_DOUBLE, 8),
            (ffi::ACL_COMPLEX64, 8),
            (ffi::ACL_COMPLEX128, 16),
            (ffi::ACL_COMPLEX32, 4),
            (ffi::ACL_FLOAT4_E2M1, 8),
            (5, 8),
        ];
        for (dt, size) in cases {
            assert_eq!(data_type_size(dt), size, "data type {dt}");
        }
    }
}
