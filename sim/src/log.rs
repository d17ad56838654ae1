//! Application logging (`aclAppLog`, `ACL_APP_LOG`): the level filter and
//! the record format of the real runtime's ACL layer
//! (`src/acl/aclrt_impl/log.cpp`), written where a host without the
//! vendor's log daemon can see it.
//!
//! The real runtime hands each record to its log library (module `APP`):
//! written to `$HOME/ascend/log/...` files, or to stdout when
//! `ASCEND_SLOG_PRINT_TO_STDOUT=1`; only records at or above the process's
//! level (`ASCEND_GLOBAL_LOG_LEVEL`, 0 debug .. 3 error, 4 none; default 3,
//! error) are kept. The simulator keeps the filter and the text of the
//! record, and writes to stderr in place of the log files (stdout with
//! `ASCEND_SLOG_PRINT_TO_STDOUT=1`). The last records written are also
//! kept in memory for tests ([`app_log_records`]).

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// Bytes of a record's text, the terminating NUL included (the runtime's
/// limit).
const MAX_RECORD: usize = 1024;
/// The mark that ends a cut record.
const TRUNCATED: &[u8] = b"...[truncated]";
/// Records kept for [`app_log_records`].
const KEPT: usize = 256;

/// The process's log level: `ASCEND_GLOBAL_LOG_LEVEL` read once (0..=4; an
/// unset or other value means 3, error).
fn threshold() -> i32 {
    static LEVEL: OnceLock<i32> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        std::env::var("ASCEND_GLOBAL_LOG_LEVEL")
            .ok()
            .and_then(|v| v.trim().parse::<i32>().ok())
            .filter(|v| (0..=4).contains(v))
            .unwrap_or(3)
    })
}

/// Whether a record of `level` is written: the level is one of the four
/// `aclLogLevel` values and at least the process's level.
pub(crate) fn enabled(level: i32) -> bool {
    (0..=3).contains(&level) && level >= threshold()
}

fn level_name(level: i32) -> &'static str {
    match level {
        0 => "DEBUG",
        1 => "INFO",
        2 => "WARNING",
        _ => "ERROR",
    }
}

/// The text of one record as the runtime composes it:
/// `<tid> <func>:<file>:<line>: "<body>"`, cut to 1023 bytes and then
/// ending with `...[truncated]` when the body (`body_len` is the length the
/// formatting wanted, before the cut at 1023 bytes) or the whole text did
/// not fit.
pub(crate) fn compose(
    tid: core::ffi::c_long,
    func: &[u8],
    file: &[u8],
    line: u32,
    body: &[u8],
    body_len: usize,
) -> Vec<u8> {
    let mut text = Vec::with_capacity(64 + func.len() + file.len() + body.len());
    // Writing to a Vec cannot fail.
    let _ = write!(text, "{tid} ");
    text.extend_from_slice(func);
    text.push(b':');
    text.extend_from_slice(file);
    let _ = write!(text, ":{line}: \"");
    text.extend_from_slice(body);
    text.push(b'"');
    let limit = MAX_RECORD - 1;
    let cut = body_len >= limit || text.len() >= limit;
    text.truncate(limit);
    if cut {
        let at = text.len().saturating_sub(TRUNCATED.len());
        text.truncate(at);
        text.extend_from_slice(TRUNCATED);
    }
    text
}

fn kept() -> &'static Mutex<VecDeque<String>> {
    static KEPT_RECORDS: Mutex<VecDeque<String>> = Mutex::new(VecDeque::new());
    &KEPT_RECORDS
}

/// Writes one record (already filtered by [`enabled`]) with its header:
/// `[LEVEL] APP(<pid>,<program>):<UTC time> <text>`.
pub(crate) fn write_record(level: i32, text: &[u8]) {
    let text = String::from_utf8_lossy(text).into_owned();
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let line = format!(
        "[{}] APP({},{}):{} {}\n",
        level_name(level),
        std::process::id(),
        program,
        utc_now(),
        text
    );
    if std::env::var("ASCEND_SLOG_PRINT_TO_STDOUT").is_ok_and(|v| v.trim() == "1") {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(line.as_bytes());
        let _ = out.flush();
    } else {
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
    let mut k = kept().lock().unwrap_or_else(|e| e.into_inner());
    if k.len() == KEPT {
        k.pop_front();
    }
    k.push_back(format!("[{}] {}", level_name(level), text));
}

/// The application log records written so far by this process (at most
/// the last 256), oldest first, each as `[LEVEL] <text>` where the text is
/// what the real runtime records: `<tid> <func>:<file>:<line>: "<message>"`.
/// Records below the log level (`ASCEND_GLOBAL_LOG_LEVEL`, default error)
/// are not written and not kept.
pub fn app_log_records() -> Vec<String> {
    kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .cloned()
        .collect()
}

/// The time now as `YYYY-MM-DD-hh:mm:ss.mmm.uuu` (UTC), the runtime's
/// layout.
fn utc_now() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, dd) = civil_from_days(days as i64);
    let micros = d.subsec_micros();
    format!(
        "{y:04}-{m:02}-{dd:02}-{:02}:{:02}:{:02}.{:03}.{:03}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        micros / 1000,
        micros % 1000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_as_the_runtime_composes_it() {
        let t = compose(42, b"main", b"app.c", 7, b"x=3", 3);
        assert_eq!(t, b"42 main:app.c:7: \"x=3\"");
    }

    #[test]
    fn long_records_are_cut_to_1023_bytes_with_the_mark() {
        let body = vec![b'a'; 1023];
        let t = compose(1, b"f", b"g.c", 1, &body, 5000);
        assert_eq!(t.len(), 1023);
        assert!(t.ends_with(TRUNCATED));
        // A body that fits but a header that makes the whole too long.
        let body = vec![b'b'; 1000];
        let t = compose(1, &[b'f'; 30], b"g.c", 1, &body, 1000);
        assert_eq!(t.len(), 1023);
        assert!(t.ends_with(TRUNCATED));
        // Just fitting: no mark.
        let t = compose(1, b"f", b"g.c", 1, &[b'c'; 100], 100);
        assert!(!t.ends_with(TRUNCATED));
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
