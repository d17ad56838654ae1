//! Kernel loading and launch (`aclrtBinary*`, `aclrtKernelArgs*`,
//! `aclrtLaunchKernel*`).
//!
//! The entry points are exported with the real prototypes and check their
//! arguments the way the ACL layer does (NULL pointers, zero sizes and block
//! counts → 100000; a non-NULL `reserve` → 100000). Running kernels is not
//! simulated yet: every call that passes those checks returns
//! `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` (207000) with a message saying so, and
//! writes no out-parameter.

use crate::diag::{Error, Res, require};
use crate::ffi;

/// The error of every kernel call whose arguments passed the ACL checks.
fn not_simulated(what: &str) -> Error {
    Error::new(
        ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        format!("{what} is not simulated yet (kernel execution is a later step of aclrt-sim)"),
    )
}

/// `aclrtBinaryLoadFromFile` / `aclrtBinaryLoadFromData`: `source_null` is
/// whether the path or data pointer is NULL, `out_null` whether `binHandle`
/// is NULL, `length` the data length (`None` for a file).
pub(crate) fn binary_load(source_null: bool, length: Option<usize>, out_null: bool) -> Res<()> {
    require(!source_null, || "the binary path or data is NULL".into())?;
    require(!out_null, || "binHandle is NULL".into())?;
    if length == Some(0) {
        return Err(crate::diag::rt_param("length is 0"));
    }
    Err(not_simulated("loading a device binary"))
}

/// `aclrtBinaryUnLoad`.
pub(crate) fn binary_unload(bin: usize) -> Res<()> {
    require(bin != 0, || "binHandle is NULL".into())?;
    Err(not_simulated("unloading a device binary"))
}

/// `aclrtBinaryGetFunction`.
pub(crate) fn get_function(bin: usize, name_null: bool, out_null: bool) -> Res<()> {
    require(bin != 0, || "binHandle is NULL".into())?;
    require(!name_null, || "kernelName is NULL".into())?;
    require(!out_null, || "funcHandle is NULL".into())?;
    Err(not_simulated("looking up a kernel"))
}

/// `aclrtLaunchKernel`.
pub(crate) fn launch(func: usize, num_blocks: u32, args_null: bool) -> Res<()> {
    require(func != 0, || "funcHandle is NULL".into())?;
    require(!args_null, || "argsData is NULL".into())?;
    if num_blocks == 0 {
        return Err(crate::diag::rt_param("numBlocks is 0"));
    }
    Err(not_simulated("launching a kernel"))
}

/// `aclrtLaunchKernelWithConfig`.
pub(crate) fn launch_with_config(
    func: usize,
    num_blocks: u32,
    args: usize,
    reserve_null: bool,
) -> Res<()> {
    require(func != 0, || "funcHandle is NULL".into())?;
    require(num_blocks != 0, || "numBlocks is 0".into())?;
    require(args != 0, || "argsHandle is NULL".into())?;
    require(reserve_null, || "reserve must be NULL".into())?;
    Err(not_simulated("launching a kernel"))
}

/// `aclrtKernelArgsInit`.
pub(crate) fn args_init(func: usize, out_null: bool) -> Res<()> {
    require(func != 0, || "funcHandle is NULL".into())?;
    require(!out_null, || "argsHandle is NULL".into())?;
    Err(not_simulated("building kernel arguments"))
}

/// `aclrtKernelArgsAppend` (`param_null`, `size`) and
/// `aclrtKernelArgsAppendPlaceHolder` (`None`).
pub(crate) fn args_append(args: usize, param: Option<(bool, usize)>, out_null: bool) -> Res<()> {
    require(args != 0, || "argsHandle is NULL".into())?;
    if let Some((param_null, size)) = param {
        require(!param_null, || "param is NULL".into())?;
        require(size != 0, || "paramSize is 0".into())?;
    }
    require(!out_null, || "paramHandle is NULL".into())?;
    Err(not_simulated("building kernel arguments"))
}

/// `aclrtKernelArgsGetPlaceHolderBuffer`.
pub(crate) fn args_placeholder_buffer(
    args: usize,
    param: usize,
    size: usize,
    out_null: bool,
) -> Res<()> {
    require(args != 0, || "argsHandle is NULL".into())?;
    require(param != 0, || "paramHandle is NULL".into())?;
    require(size != 0, || "dataSize is 0".into())?;
    require(!out_null, || "bufferAddr is NULL".into())?;
    Err(not_simulated("building kernel arguments"))
}

/// `aclrtKernelArgsFinalize`.
pub(crate) fn args_finalize(args: usize) -> Res<()> {
    require(args != 0, || "argsHandle is NULL".into())?;
    Err(not_simulated("building kernel arguments"))
}
