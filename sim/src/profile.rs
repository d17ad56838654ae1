//! What each simulated chip ([`Soc`]) carries: its device memory and which
//! `aclrtMemAttr` queries see it (`aclrtGetMemInfo`). Sizes are the public
//! product figures of the cards: an Atlas A2 (910B) card has 64 GiB of HBM,
//! an Atlas 300I Pro (310P) card 24 GiB of LPDDR4X. The memory is reserved
//! lazily (`prim::arena`): an allocation nobody writes costs no host memory.

use crate::ffi;
use crate::model::{SimConfig, Soc};

const GIB: u64 = 1 << 30;

impl Soc {
    /// Bytes of device memory of one device of this chip: 64 GiB (HBM)
    /// for the 910B, 24 GiB (DDR) for the 310P. `ACLRT_SIM_MEMORY`
    /// ([`SimConfig::memory_per_device`](crate::SimConfig::memory_per_device))
    /// overrides it.
    pub fn device_memory(self) -> u64 {
        match self {
            Soc::Ascend310P => 24 * GIB,
            _ => 64 * GIB,
        }
    }

    /// The longest an AI Core kernel runs before it fails with 507014
    /// `ACL_ERROR_RT_AICORE_TIMEOUT`, given the `aclrtSetOpExecuteTimeOut`
    /// setting in seconds (0: the chip's default). The documented default
    /// and largest limit of AI Core operators are the same on both chips:
    /// 1,091 s on the Atlas A2 series (910B), 547 s on the Atlas inference
    /// series (310P); a larger setting is accepted and the chip's largest
    /// applies.
    pub fn op_execute_limit(self, secs: u32) -> std::time::Duration {
        let max = match self {
            Soc::Ascend310P => 547,
            _ => 1091,
        };
        let secs = if secs == 0 { max } else { secs.min(max) };
        std::time::Duration::from_secs(u64::from(secs))
    }

    /// Whether the chip's task scheduler is STARS (the 910B; the runtime's
    /// `ChipIsHaveStars`): there `aclrtSubscribeReport` creates an event in
    /// the current context.
    pub(crate) fn has_stars(self) -> bool {
        self == Soc::Ascend910B
    }

    /// Whether the driver maps host memory for the device
    /// (`RT_FEATURE_MEM_HOST_REGISTER` in the chip's feature list: the
    /// 910B, not the 310P).
    pub(crate) fn host_register(self) -> bool {
        self == Soc::Ascend910B
    }

    /// Whether the device memory is HBM (910B) rather than DDR (310P).
    pub fn has_hbm(self) -> bool {
        self == Soc::Ascend910B
    }

    /// Whether `aclrtGetMemInfo(attr)` reports the device's memory (`true`)
    /// or answers `free == total == 0` (`false`) on this chip, for an
    /// `attr` in `0..=17`. As documented: a query for a kind of memory the
    /// device does not have answers 0 and 0, except that a device without
    /// HBM answers the HBM queries as the matching DDR ones; the 1 GiB huge
    /// page kinds exist only on the A2/A3 series (the 910B here). The
    /// kind-neutral values (`ACL_MEM_*`, 12..=17) name whatever memory the
    /// device has. Huge and normal pages, P2P or not, come from one pool.
    pub(crate) fn mem_attr_reports(self, attr: u32) -> bool {
        let huge1g = matches!(
            attr,
            ffi::ACL_HBM_MEM_HUGE1G
                | ffi::ACL_HBM_MEM_P2P_HUGE1G
                | ffi::ACL_MEM_HUGE1G
                | ffi::ACL_MEM_P2P_HUGE1G
        );
        let ddr = matches!(
            attr,
            ffi::ACL_DDR_MEM
                | ffi::ACL_DDR_MEM_HUGE
                | ffi::ACL_DDR_MEM_NORMAL
                | ffi::ACL_DDR_MEM_P2P_HUGE
                | ffi::ACL_DDR_MEM_P2P_NORMAL
        );
        if self.has_hbm() {
            !ddr && attr <= ffi::ACL_MEM_P2P_HUGE1G
        } else {
            !huge1g && attr <= ffi::ACL_MEM_P2P_HUGE1G
        }
    }
}

impl SimConfig {
    /// Bytes of memory of each simulated device: [`memory_per_device`](Self::memory_per_device)
    /// when set, else the chip's ([`Soc::device_memory`]).
    pub fn device_memory(&self) -> u64 {
        self.memory_per_device
            .unwrap_or_else(|| self.soc.device_memory())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_chip_reports_its_own_kind_of_memory() {
        let on = |soc: Soc| {
            (0..=17)
                .filter(|&a| soc.mem_attr_reports(a))
                .collect::<Vec<_>>()
        };
        // 910B: HBM 1, 4, 5, 8..=11 and the neutral 12..=17; DDR 0, 2, 3, 6, 7 are 0/0.
        assert_eq!(
            on(Soc::Ascend910B),
            [1, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
        );
        // 310P: DDR, HBM read as DDR, no 1 GiB pages (10, 11, 14, 17).
        assert_eq!(
            on(Soc::Ascend310P),
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16]
        );
        assert_eq!(Soc::Ascend910B.device_memory(), 64 << 30);
        assert_eq!(Soc::Ascend310P.device_memory(), 24 << 30);
    }
}
