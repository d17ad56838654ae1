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

/// The figures of one chip that its platform configuration file gives
/// (`src/platform/platform_config/cann/<SoC_version>.ini` of the runtime's
/// source, section `SoCInfo` and `version`): the simulated 910B is an
/// `Ascend910B2`, the simulated 310P an `Ascend310P3`.
pub(crate) struct ChipFacts {
    /// `SoC_version`.
    pub soc_version: &'static str,
    /// `NpuArch`.
    pub npu_arch: i64,
    /// `ai_core_cnt`.
    pub ai_cores: u32,
    /// `cube_core_cnt` (absent from the 310P's file).
    pub cube_cores: Option<u32>,
    /// `vector_core_cnt`.
    pub vector_cores: u32,
    /// `ai_cpu_cnt`.
    pub ai_cpus: u32,
    /// `l2_size` in bytes.
    pub l2_size: i64,
}

/// `(SoC_version, NpuArch)` of every platform configuration file of a
/// standard installation (`platform_config/cann/*.ini`): the names
/// `aclrtCheckArchCompatibility` knows.
pub(crate) const NPU_ARCHS: &[(&str, i64)] = &[
    ("Ascend031", 3004),
    ("Ascend035", 3505),
    ("Ascend035A", 3505),
    ("Ascend035B", 3505),
    ("Ascend310B1", 3002),
    ("Ascend310B2", 3002),
    ("Ascend310B3", 3002),
    ("Ascend310B4", 3002),
    ("Ascend310P1", 2002),
    ("Ascend310P3", 2002),
    ("Ascend310P5", 2002),
    ("Ascend310P7", 2002),
    ("Ascend910A", 1001),
    ("Ascend910B", 1001),
    ("Ascend910B1", 2201),
    ("Ascend910B2", 2201),
    ("Ascend910B2C", 2201),
    ("Ascend910B3", 2201),
    ("Ascend910B4-1", 2201),
    ("Ascend910B4", 2201),
    ("Ascend910PremiumA", 1001),
    ("Ascend910ProA", 1001),
    ("Ascend910ProB", 1001),
    ("Ascend910_9362", 2201),
    ("Ascend910_9363", 2201),
    ("Ascend910_9372", 2201),
    ("Ascend910_9381", 2201),
    ("Ascend910_9382", 2201),
    ("Ascend910_9391", 2201),
    ("Ascend910_9392", 2201),
];

impl Soc {
    /// The chip's platform figures ([`ChipFacts`]).
    pub(crate) fn facts(self) -> ChipFacts {
        match self {
            Soc::Ascend310P => ChipFacts {
                soc_version: "Ascend310P3",
                npu_arch: 2002,
                ai_cores: 8,
                cube_cores: None,
                vector_cores: 7,
                ai_cpus: 7,
                l2_size: 16_777_216,
            },
            _ => ChipFacts {
                soc_version: "Ascend910B2",
                npu_arch: 2201,
                ai_cores: 24,
                cube_cores: Some(24),
                vector_cores: 48,
                ai_cpus: 6,
                l2_size: 201_326_592,
            },
        }
    }

    /// The chip's default floating-point overflow mode: Inf/NaN where the
    /// chip has the overflow-mode feature (910B: `RT_FEATURE_OVERFLOW_MODE`
    /// in its feature list, set by `Runtime::Init`), saturation elsewhere.
    pub(crate) fn default_sat_mode(self) -> u32 {
        match self {
            Soc::Ascend310P => ffi::ACL_RT_OVERFLOW_MODE_SATURATION,
            _ => ffi::ACL_RT_OVERFLOW_MODE_INFNAN,
        }
    }

    /// Whether the chip can be switched to the Inf/NaN overflow mode
    /// (`supportOverflowMode` of its properties: both modes on the 910B,
    /// saturation only on the 310P).
    pub(crate) fn infnan_mode(self) -> bool {
        self == Soc::Ascend910B
    }

    /// Whether the chip schedules tasks with STARS (the 910B; the 310P
    /// does not): the per-stream overflow switch exists only there
    /// (`RT_FEATURE_STREAM_ATTR_OVERFLOW_CHECK`).
    pub(crate) fn stars(self) -> bool {
        self == Soc::Ascend910B
    }

    /// Whether `aclrtGetErrorVerbose` is supported
    /// (`RT_FEATURE_DFX_ERR_GET_AND_REPAIR`: the 910B).
    pub(crate) fn error_verbose(self) -> bool {
        self == Soc::Ascend910B
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
