//! Versions and the SoC name.

use std::ffi::CStr;

use crate::diag::{Error, Res, param};
use crate::ffi;
use crate::prim::{Out, OutBuf, fill_c_chars};

/// The simulated SoC (`aclrtGetSocName`).
pub(crate) const SOC_NAME: &CStr = c"Ascend910B-sim";

/// The name of the configured chip (`aclrtGetSocName`).
pub(crate) fn soc_name() -> &'static CStr {
    match crate::control::config().soc {
        crate::model::Soc::Ascend310P => c"Ascend310P-sim",
        _ => SOC_NAME,
    }
}

/// The simulated CANN release (ACL 1.17 ships with CANN 9.0.0).
const CANN: [u32; 3] = [9, 0, 0];
/// The simulated driver and firmware releases.
const DRIVER: [u32; 3] = [25, 0, 0];
const FIRMWARE: [u32; 3] = [7, 7, 0];

/// Package names known to `aclsysGetVersionStr`/`Num` (the directory names
/// of `${INSTALL_DIR}/share/info`, plus `driver` and `firmware`).
const PACKAGES: &[(&str, [u32; 3])] = &[
    ("cann", CANN),
    ("runtime", CANN),
    ("compiler", CANN),
    ("hccl", CANN),
    ("toolkit", CANN),
    ("opp", CANN),
    ("opp_kernel", CANN),
    ("driver", DRIVER),
    ("firmware", FIRMWARE),
];

fn package(name: Option<&CStr>) -> Res<[u32; 3]> {
    let Some(name) = name else {
        return Err(param("pkgName is NULL"));
    };
    let name = name.to_string_lossy();
    PACKAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let known: Vec<&str> = PACKAGES.iter().map(|(n, _)| *n).collect();
            Error::new(
                ffi::ACL_ERROR_INVALID_FILE,
                format!(
                    "no version information for package {name:?} (known: {})",
                    known.join(", ")
                ),
            )
        })
}

fn dotted(v: [u32; 3]) -> String {
    format!("{}.{}.{}", v[0], v[1], v[2])
}

/// `aclrtGetVersion`.
pub(crate) fn get_version(major: Out<i32>, minor: Out<i32>, patch: Out<i32>) -> Res<()> {
    if major.is_null() || minor.is_null() || patch.is_null() {
        return Err(param(
            "majorVersion, minorVersion and patchVersion must not be NULL",
        ));
    }
    major.write(ffi::ACL_MAJOR_VERSION);
    minor.write(ffi::ACL_MINOR_VERSION);
    patch.write(ffi::ACL_PATCH_VERSION);
    Ok(())
}

/// `aclsysGetVersionStr` (`versionStr`: 128 bytes).
pub(crate) fn version_str(name: Option<&CStr>, out: OutBuf) -> Res<()> {
    if out.is_null() {
        return Err(param("versionStr is NULL"));
    }
    let v = package(name)?;
    out.write_str(&dotted(v));
    Ok(())
}

/// `aclsysGetVersionNum`: `major * 10_000_000 + minor * 100_000 + patch * 1_000`.
pub(crate) fn version_num(name: Option<&CStr>, out: Out<i32>) -> Res<()> {
    if out.is_null() {
        return Err(param("versionNum is NULL"));
    }
    let v = package(name)?;
    let n = v[0] * 10_000_000 + v[1] * 100_000 + v[2] * 1_000;
    out.write(i32::try_from(n).unwrap_or(i32::MAX));
    Ok(())
}

/// `aclsysGetCANNVersion`.
pub(crate) fn cann_version(name: u32, out: Out<ffi::aclCANNPackageVersion>) -> Res<()> {
    if out.is_null() {
        return Err(param("version is NULL"));
    }
    let v = match name {
        ffi::ACL_PKG_NAME_CANN..=ffi::ACL_PKG_NAME_OPP_KERNEL => CANN,
        ffi::ACL_PKG_NAME_DRIVER => DRIVER,
        other => {
            return Err(param(format!(
                "name {other} is not an aclCANNPackageName (0..=7)"
            )));
        }
    };
    let mut pv = ffi::aclCANNPackageVersion {
        version: [0; ffi::ACL_PKG_VERSION_MAX_SIZE],
        majorVersion: [0; ffi::ACL_PKG_VERSION_PARTS_MAX_SIZE],
        minorVersion: [0; ffi::ACL_PKG_VERSION_PARTS_MAX_SIZE],
        releaseVersion: [0; ffi::ACL_PKG_VERSION_PARTS_MAX_SIZE],
        patchVersion: [0; ffi::ACL_PKG_VERSION_PARTS_MAX_SIZE],
        reserved: [0; ffi::ACL_PKG_VERSION_MAX_SIZE],
    };
    fill_c_chars(&mut pv.version, &dotted(v));
    fill_c_chars(&mut pv.majorVersion, &v[0].to_string());
    fill_c_chars(&mut pv.minorVersion, &v[1].to_string());
    fill_c_chars(&mut pv.releaseVersion, &v[2].to_string());
    fill_c_chars(&mut pv.patchVersion, "0");
    out.write(pv);
    Ok(())
}
