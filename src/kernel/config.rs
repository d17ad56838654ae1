//! The blocks and attributes of a launch ([`LaunchConfig`]) and their C
//! form (`aclrtLaunchKernelAttr`).

use aclrt_sys as sys;

/// Which engine a kernel runs on (`aclrtEngineType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// `ACL_RT_ENGINE_TYPE_AIC`.
    AiCore,
    /// `ACL_RT_ENGINE_TYPE_AIV`.
    AiVector,
}

/// How a launch starts its blocks (`ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleMode {
    /// 0: start when any core is free.
    Normal,
    /// 1: start only when all `blocks` cores are free.
    Batch,
}

/// The block count and the plain-data attributes of a launch
/// (`aclrtLaunchKernelCfg`). A `u32` converts into a config with that many
/// blocks and no attributes (cfg NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    blocks: u32,
    schedule: Option<ScheduleMode>,
    dyn_ubuf_size: Option<u32>,
    engine: Option<Engine>,
    block_offset: Option<u32>,
    prefetch: Option<bool>,
    data_dump: Option<bool>,
    timeout_us: Option<u64>,
    profiling: Option<bool>,
    /// Whether any attribute above is set (kept by the setters, so a launch
    /// without attributes tests one flag).
    any: bool,
}

impl From<u32> for LaunchConfig {
    fn from(blocks: u32) -> Self {
        LaunchConfig::blocks(blocks)
    }
}

impl LaunchConfig {
    /// Its C attributes (see [`c_attrs`]).
    #[inline]
    pub(crate) fn c_attrs(&self) -> Vec<sys::aclrtLaunchKernelAttr> {
        c_attrs(self)
    }

    /// `blocks` blocks (cores; 0 is the runtime's error 100000), no attributes.
    pub fn blocks(blocks: u32) -> Self {
        LaunchConfig {
            blocks,
            schedule: None,
            dyn_ubuf_size: None,
            engine: None,
            block_offset: None,
            prefetch: None,
            data_dump: None,
            timeout_us: None,
            profiling: None,
            any: false,
        }
    }
    /// The block count.
    pub fn block_count(&self) -> u32 {
        self.blocks
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE`.
    pub fn schedule(mut self, mode: ScheduleMode) -> Self {
        self.schedule = Some(mode);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE` (SIMT kernels on 950).
    pub fn dyn_ubuf_size(mut self, bytes: u32) -> Self {
        self.dyn_ubuf_size = Some(bytes);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE` (Atlas inference series).
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = Some(engine);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET` (Atlas inference series).
    pub fn block_offset(mut self, offset: u32) -> Self {
        self.block_offset = Some(offset);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH`.
    pub fn prefetch(mut self, on: bool) -> Self {
        self.prefetch = Some(on);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP`.
    pub fn data_dump(mut self, on: bool) -> Self {
        self.data_dump = Some(on);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US`: the kernel's time limit
    /// (microseconds; zero waits forever). Only the µs attribute is used,
    /// so the forbidden pair TIMEOUT + TIMEOUT_US (K.7) cannot be written.
    pub fn timeout(mut self, limit: core::time::Duration) -> Self {
        self.timeout_us = Some(u64::try_from(limit.as_micros()).unwrap_or(u64::MAX));
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING`.
    pub fn profiling(mut self, on: bool) -> Self {
        self.profiling = Some(on);
        self.any = true;
        self
    }

    /// Whether any launch attribute is set (else only the block count).
    #[inline]
    pub(crate) fn has_attributes(&self) -> bool {
        self.any
    }

    pub(crate) fn schedule_mode_value(&self) -> Option<u8> {
        self.schedule.map(|m| match m {
            ScheduleMode::Normal => 0,
            ScheduleMode::Batch => 1,
        })
    }
    pub(crate) fn dyn_ubuf_size_value(&self) -> Option<u32> {
        self.dyn_ubuf_size
    }
    pub(crate) fn engine_value(&self) -> Option<sys::aclrtEngineType> {
        self.engine.map(|e| match e {
            Engine::AiCore => sys::ACL_RT_ENGINE_TYPE_AIC,
            Engine::AiVector => sys::ACL_RT_ENGINE_TYPE_AIV,
        })
    }
    pub(crate) fn block_offset_value(&self) -> Option<u32> {
        self.block_offset
    }
    pub(crate) fn prefetch_value(&self) -> Option<bool> {
        self.prefetch
    }
    pub(crate) fn data_dump_value(&self) -> Option<bool> {
        self.data_dump
    }
    pub(crate) fn timeout_us_value(&self) -> Option<u64> {
        self.timeout_us
    }
    pub(crate) fn profiling_value(&self) -> Option<bool> {
        self.profiling
    }
}

// ------------------------------------------------ launch attributes ---

/// The C attributes of `config` (`aclrtLaunchKernelAttr`), built only when
/// it has some: none (no allocation) makes the launch's config NULL (K.7).
#[inline]
pub(crate) fn c_attrs(config: &LaunchConfig) -> Vec<sys::aclrtLaunchKernelAttr> {
    if config.has_attributes() {
        build_attrs(config)
    } else {
        Vec::new()
    }
}

#[inline(never)]
fn build_attrs(config: &LaunchConfig) -> Vec<sys::aclrtLaunchKernelAttr> {
    let mut v = Vec::new();
    let mut push = |id, fill: &dyn Fn(&mut sys::aclrtLaunchKernelAttrValue)| {
        let mut value = sys::aclrtLaunchKernelAttrValue { rsv: [0; 4] };
        fill(&mut value);
        v.push(sys::aclrtLaunchKernelAttr { id, value });
    };
    if let Some(m) = config.schedule_mode_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &|x| {
            x.schemMode = m
        });
    }
    if let Some(b) = config.dyn_ubuf_size_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, &|x| {
            x.dynUBufSize = b
        });
    }
    if let Some(e) = config.engine_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, &|x| {
            x.engineType = e
        });
    }
    if let Some(o) = config.block_offset_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET, &|x| {
            x.blockDimOffset = o
        });
    }
    if let Some(p) = config.prefetch_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH, &|x| {
            x.isBlockTaskPrefetch = u8::from(p)
        });
    }
    if let Some(d) = config.data_dump_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP, &|x| {
            x.isDataDump = u8::from(d)
        });
    }
    if let Some(us) = config.timeout_us_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, &|x| {
            x.timeoutUs = sys::aclrtTimeoutUs {
                timeoutLow: us as u32,
                timeoutHigh: (us >> 32) as u32,
            }
        });
    }
    if let Some(p) = config.profiling_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING, &|x| {
            x.enableProfiling = u8::from(p)
        });
    }
    v
}
