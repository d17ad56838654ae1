//! Kernel loading and launch (acl-facts K.1–K.7): the entry points exist
//! with the real prototypes and apply the ACL layer's argument checks;
//! kernel execution itself is not simulated yet (207000).

mod common;
use common::*;

#[test]
fn kernel_entry_points_check_arguments_then_report_not_supported() {
    let session = device0();
    let mut bin: aclrtBinHandle = null_mut();
    let mut func: aclrtFuncHandle = null_mut();
    let mut args: aclrtArgsHandle = null_mut();
    let data = [0u8; 8];
    let name = c"vector_add";
    // ACL-layer checks (100000) and the rt-layer zero length (107000).
    assert_eq!(
        acl!(aclrtBinaryLoadFromData(null(), 8, null(), &mut bin)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtBinaryLoadFromData(
            data.as_ptr().cast(),
            0,
            null(),
            &mut bin
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtBinaryLoadFromFile(null(), null_mut(), &mut bin)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(acl!(aclrtBinaryUnLoad(null_mut())), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        acl!(aclrtBinaryGetFunction(null_mut(), name.as_ptr(), &mut func)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtKernelArgsInit(null_mut(), &mut args)),
        ACL_ERROR_INVALID_PARAM
    );
    let fake = 0x1000usize as *mut c_void;
    let dev = malloc(64);
    assert_eq!(
        acl!(aclrtLaunchKernel(fake, 0, dev, 64, null_mut())),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtLaunchKernelWithConfig(
            fake,
            1,
            null_mut(),
            null_mut(),
            fake,
            fake
        )),
        ACL_ERROR_INVALID_PARAM
    );
    // Past the checks: not simulated yet, nothing written.
    assert_eq!(
        acl!(aclrtBinaryLoadFromData(
            data.as_ptr().cast(),
            8,
            null(),
            &mut bin
        )),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert!(bin.is_null());
    assert_eq!(
        acl!(aclrtLaunchKernel(fake, 1, dev, 64, null_mut())),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    free(dev);
    session.finish();
}

#[test]
fn kernel_constants_and_layouts_match_the_facts() {
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1);
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_MAGIC, 2);
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC, 2);
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 3);
    assert_eq!(ACL_RT_BINARY_MAGIC_ELF_AICORE, 0x4355_4245);
    assert_eq!(ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE, 0x4141_5246);
    assert_eq!(ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE, 0x4149_4343);
    assert_eq!(ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, 8);
    assert_eq!(ACL_RT_ENGINE_TYPE_AIV, 1);
    assert_eq!(ACL_ERROR_RT_KERNEL_LOOKUP, 507027);
    assert_eq!(ACL_ERROR_RT_STREAM_ABORT, 107023);
    assert_eq!(size_of::<aclrtBinaryLoadOption>(), 20);
    assert_eq!(align_of::<aclrtBinaryLoadOption>(), 4);
    assert_eq!(std::mem::offset_of!(aclrtBinaryLoadOption, value), 4);
    assert_eq!(size_of::<aclrtBinaryLoadOptions>(), 16);
    assert_eq!(size_of::<aclrtLaunchKernelAttrValue>(), 16);
    assert_eq!(size_of::<aclrtLaunchKernelAttr>(), 20);
    assert_eq!(std::mem::offset_of!(aclrtLaunchKernelAttr, value), 4);
    assert_eq!(size_of::<aclrtLaunchKernelCfg>(), 16);
}
