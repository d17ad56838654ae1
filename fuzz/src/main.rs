//! `aclrt-fuzz`: random call sequences over every exported C function of
//! the simulator (issue 27).
//!
//! ```text
//! aclrt-fuzz run [--seed S] [--sequences N] [--minutes M] [--len L]
//!                [--mode host|device|both] [--timeout SECS] [--start I]
//!                [--out DIR] [--quiet]
//! aclrt-fuzz replay FILE [--mode host|device] [--timeout SECS]
//! aclrt-fuzz print SEED INDEX LEN   (a sequence, in the reproducer format)
//! aclrt-fuzz child            (one sequence from stdin; ACLRT_FUZZ_VERBOSE=1
//!                              prints each call's code on stderr)
//! ```
//!
//! Each sequence runs in a child process (`aclrt-fuzz child`) with a time
//! limit, in the run mode the parent picks (`ACLRT_SIM_RUN_MODE`). After
//! the sequence the child checks the simulator's health: it finalizes
//! whatever the sequence left, runs a valid init-to-finalize program (every
//! call must succeed and the data must round-trip), resets the simulator,
//! runs the program again and checks the audit (nothing alive, no stream
//! blocked, no violation but the stale-epoch ones the sequence caused).
//!
//! A finding is a crash (signal), an abort, a panic that escaped, a panic
//! the simulator caught (`ACL_ERROR_INTERNAL_ERROR`), a hang, or a failed
//! health check. Findings are grouped by a signature; the first sequence of
//! each new signature is minimised (calls deleted while the signature
//! stays) and written to `--out` as a reproducer that `replay` runs.

mod calls;

use calls::{ABORTED, CB_INTERNAL, Call, Exec, FUNCS, sequence, valid_program};
use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("child") => child(),
        Some("run") => run(&args[1..]),
        Some("replay") => replay(&args[1..]),
        Some("print") => {
            // The sequence `print SEED INDEX LEN` in the reproducer format.
            let n = |i: usize| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(0);
            for c in sequence(n(1), n(2), n(3) as usize) {
                println!("{}", c.to_line());
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: aclrt-fuzz run [--seed S] [--sequences N] [--minutes M] [--len L] \
                 [--mode host|device|both] [--timeout SECS] [--start I] [--out DIR] [--quiet]\n       \
                 aclrt-fuzz replay FILE [--mode host|device] [--timeout SECS]"
            );
            ExitCode::from(2)
        }
    }
}

fn opt<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn num(args: &[String], name: &str, default: u64) -> u64 {
    opt(args, name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}: not a number: {v}"))
    })
}

// ------------------------------------------------------------ child

/// The call running now (index + 1; 0: none) and when it started (ms since
/// the child started), for the watchdog.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static STARTED_MS: AtomicU64 = AtomicU64::new(0);
/// How often the watchdog had to reset the simulator out of a wait on an
/// unserved callback (the real runtime waits for ever there too: expected).
static UNSERVED_RESETS: AtomicUsize = AtomicUsize::new(0);
/// How often it ended a synchronisation stuck after an abort (a wait for a
/// record the abort dropped hangs, as on the real runtime: expected).
static ABORT_RESETS: AtomicUsize = AtomicUsize::new(0);

/// A call waiting longer than this is looked at by the watchdog.
const STUCK: Duration = Duration::from_secs(1);
/// A synchronising call stuck this long after an abort of the sequence is
/// taken as a wait for a record the abort dropped (see `watchdog`).
const ABORT_STUCK: Duration = Duration::from_secs(3);
/// A call waiting longer than this (and not on an unserved callback) is a
/// hang.
const HANG: Duration = Duration::from_secs(12);

/// Asks the kernel to kill this process when its parent dies (a child left
/// behind by a killed run would otherwise keep a hung sequence alive).
fn die_with_parent() {
    use std::ffi::{c_int, c_ulong};
    // SAFETY: the C library's prototype, `int prctl(int option, ...)`
    // (`sys/prctl.h`): variadic, as declared here. The C library reads the
    // variadic arguments as four `unsigned long`s (arg2..arg5), so every
    // call passes exactly four `c_ulong`s.
    unsafe extern "C" {
        fn prctl(option: c_int, ...) -> c_int;
    }
    /// `linux/prctl.h`.
    const PR_SET_PDEATHSIG: c_int = 1;
    /// The signal number (9 on every Linux architecture).
    const SIGKILL: c_ulong = 9;
    let unused: c_ulong = 0;
    // SAFETY: PR_SET_PDEATHSIG takes a signal number (arg2; arg3..arg5
    // unused, passed as 0) and touches no memory.
    let _ = unsafe { prctl(PR_SET_PDEATHSIG, SIGKILL, unused, unused, unused) };
}

fn child() -> ExitCode {
    die_with_parent();
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let seq: Vec<Call> = input
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| Call::from_line(l).unwrap_or_else(|| panic!("bad line: {l}")))
        .collect();
    let t0 = Instant::now();
    let names: Vec<String> = seq.iter().map(|c| c.to_line()).collect();
    std::thread::spawn(move || watchdog(t0, names));
    let mut exec = Exec::new();
    for (i, call) in seq.iter().enumerate() {
        STARTED_MS.store(t0.elapsed().as_millis() as u64, Ordering::SeqCst);
        CURRENT.store(i + 1, Ordering::SeqCst);
        let code = exec.run(call);
        CURRENT.store(0, Ordering::SeqCst);
        if std::env::var_os("ACLRT_FUZZ_VERBOSE").is_some() {
            eprintln!("call {i}: {} -> {code}", FUNCS[call.f as usize]);
        }
        if code == aclrt_sim::ffi::ACL_ERROR_INTERNAL_ERROR {
            return finding(&format!(
                "sim-panic: {} (call {i}) returned 500000",
                FUNCS[call.f as usize]
            ));
        }
    }
    if CB_INTERNAL.load(Ordering::SeqCst) != 0 {
        return finding("sim-panic: a call from a callback returned 500000");
    }
    exec.stop_server();
    CURRENT.store(usize::MAX, Ordering::SeqCst);
    STARTED_MS.store(t0.elapsed().as_millis() as u64, Ordering::SeqCst);
    if let Err(why) = health() {
        return finding(&format!("health: {why}"));
    }
    CURRENT.store(0, Ordering::SeqCst);
    println!(
        "RESULT ok calls={} unserved_resets={} abort_resets={}",
        seq.len(),
        UNSERVED_RESETS.load(Ordering::SeqCst),
        ABORT_RESETS.load(Ordering::SeqCst)
    );
    ExitCode::SUCCESS
}

fn finding(what: &str) -> ExitCode {
    println!("RESULT finding {what}");
    let _ = std::io::stdout().flush();
    ExitCode::from(3)
}

/// The health check after a sequence (see the crate docs).
fn health() -> Result<(), String> {
    // Whatever the sequence left: finalize until the runtime says it is
    // (100037), as the next program of a process would find it.
    for _ in 0..4 {
        // SAFETY: no arguments.
        if unsafe { aclrt_sim::ffi::aclFinalize() } == aclrt_sim::ffi::ACL_ERROR_REPEAT_FINALIZE {
            break;
        }
    }
    valid_program().map_err(|e| format!("after the sequence: {e}"))?;
    aclrt_sim::reset();
    valid_program().map_err(|e| format!("after a reset: {e}"))?;
    let audit = aclrt_sim::audit();
    if audit.live.values().any(|&n| n > 0) {
        return Err(format!(
            "resources alive after the valid program: {:?}",
            audit.live
        ));
    }
    if !audit.unserved_callbacks.is_empty() {
        return Err("a stream blocked on an unserved callback after a reset".to_owned());
    }
    if let Some(v) = audit
        .violations
        .iter()
        .find(|v| v.kind != aclrt_sim::ViolationKind::UseAfterFinalize)
    {
        if std::env::var_os("ACLRT_FUZZ_VERBOSE").is_some() {
            eprintln!("{:#?}", audit.violations);
        }
        return Err(format!(
            "the valid program after a reset caused a violation: {} {:?}",
            v.function, v.kind
        ));
    }
    Ok(())
}

/// Watches the running call: a wait on an unserved callback is ended with a
/// reset (expected: the real runtime waits for ever there too, and the
/// audit says so); anything else stuck past [`HANG`] is a finding.
fn watchdog(t0: Instant, names: Vec<String>) {
    let mut last = (0usize, 0u64);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let cur = CURRENT.load(Ordering::SeqCst);
        let since = STARTED_MS.load(Ordering::SeqCst);
        if cur == 0 {
            continue;
        }
        let waited = Duration::from_millis((t0.elapsed().as_millis() as u64).saturating_sub(since));
        if waited < STUCK {
            continue;
        }
        if cur != usize::MAX
            && (cur, since) != last
            && !aclrt_sim::audit().unserved_callbacks.is_empty()
        {
            last = (cur, since);
            UNSERVED_RESETS.fetch_add(1, Ordering::SeqCst);
            aclrt_sim::reset();
            continue;
        }
        // After an abort, a synchronisation may wait for a record the abort
        // dropped: for ever, as documented (and as on the real runtime).
        // Only synchronising calls of the sequence qualify, and only once
        // they waited for the hang limit: anything else stuck stays a
        // finding.
        let syncing = |n: &str| {
            n.starts_with("aclrtSynchronize")
                || n.ends_with("WithDevSync")
                || n == "aclrtDestroyStream"
                || n == "aclrtDestroyContext"
                || n.starts_with("aclrtResetDevice")
        };
        if waited >= ABORT_STUCK
            && cur != usize::MAX
            && (cur, since) != last
            && ABORTED.load(Ordering::SeqCst)
            && syncing(names[cur - 1].split_whitespace().next().unwrap_or(""))
        {
            last = (cur, since);
            ABORT_RESETS.fetch_add(1, Ordering::SeqCst);
            aclrt_sim::reset();
            continue;
        }
        if waited >= HANG {
            if std::env::var_os("ACLRT_FUZZ_VERBOSE").is_some() {
                eprintln!("stuck: {:#?}", aclrt_sim::audit());
            }
            let what = if cur == usize::MAX {
                "the health check".to_owned()
            } else {
                names[cur - 1]
                    .split_whitespace()
                    .next()
                    .unwrap_or("?")
                    .to_owned()
            };
            println!("RESULT finding hang: {what} did not return");
            let _ = std::io::stdout().flush();
            std::process::exit(4);
        }
    }
}

// ------------------------------------------------------------ parent

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Host,
    Device,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Host => "host",
            Mode::Device => "device",
        }
    }
}

/// What one child run came to.
#[derive(Debug)]
enum Outcome {
    Ok {
        unserved_resets: u64,
        abort_resets: u64,
    },
    Finding(String),
}

/// Runs `seq` in a child process.
fn run_child(seq: &[Call], mode: Mode, timeout: Duration) -> Outcome {
    let exe = std::env::current_exe().expect("own executable");
    let mut child = Command::new(exe)
        .arg("child")
        .env("ACLRT_SIM_RUN_MODE", mode.name())
        // 4 GiB devices, as before devices took the chip's size (64 GiB):
        // the sizes the sequences draw (up to 16 GiB) stay a mix of
        // allocations that fit and ones that fail, and what a sequence
        // writes stays bounded in host memory.
        .env("ACLRT_SIM_MEMORY", "4G")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the child");
    {
        let mut stdin = child.stdin.take().unwrap();
        let text: String = seq.iter().map(|c| c.to_line() + "\n").collect();
        let _ = stdin.write_all(text.as_bytes());
    }
    // Drain the pipes on threads (a full pipe would block the child).
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for the child") {
            break Some(st);
        }
        if t0.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .map(str::to_owned);
    let Some(status) = status else {
        return Outcome::Finding(format!("timeout: no result within {} s", timeout.as_secs()));
    };
    match result {
        Some(r) if r.starts_with("ok") && status.success() => {
            let count = |key: &str| -> u64 {
                r.split_whitespace()
                    .find_map(|w| w.strip_prefix(key))
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
            };
            Outcome::Ok {
                unserved_resets: count("unserved_resets="),
                abort_resets: count("abort_resets="),
            }
        }
        Some(r) if r.starts_with("finding ") => Outcome::Finding(r[8..].to_owned()),
        _ => {
            use std::os::unix::process::ExitStatusExt;
            let why = match status.signal() {
                Some(sig) => format!("signal {sig}"),
                None => format!("exit {}", status.code().unwrap_or(-1)),
            };
            let line = stderr
                .lines()
                .find(|l| {
                    l.contains("panicked at")
                        || l.contains("malloc")
                        || l.contains("free()")
                        || l.contains("corrupt")
                        || l.contains("error")
                })
                .unwrap_or("")
                .to_owned();
            Outcome::Finding(format!("crash: {why} {line}"))
        }
    }
}

/// A finding's signature: its text without the simulator's message (for a
/// failed call: the function and the code it returned), addresses and
/// numbers.
fn signature(finding: &str) -> String {
    if let Some(rest) = finding.strip_prefix("crash: signal ") {
        // The signal (SIGSEGV, SIGABRT, ...) is the finding.
        return format!(
            "crash: signal {}",
            rest.split_whitespace().next().unwrap_or("?")
        );
    }
    let finding = match finding.find("returned ") {
        Some(i) => match finding[i..].find(": ") {
            Some(j) => &finding[..i + j],
            None => finding,
        },
        None => finding,
    };
    let mut s = String::new();
    let mut last_digit = false;
    for w in finding.split_whitespace() {
        let w = if w.starts_with("0x") { "ADDR" } else { w };
        for ch in w.chars() {
            if ch.is_ascii_digit() {
                if !last_digit {
                    s.push('N');
                }
                last_digit = true;
            } else {
                s.push(ch);
                last_digit = false;
            }
        }
        s.push(' ');
    }
    // Keep the code numbers of health findings (they are the finding).
    if let Some(i) = finding.find("returned ") {
        let code: String = finding[i + 9..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        s.push_str(&code);
    }
    s.trim().to_owned()
}

/// Deletes calls from `seq` while the finding's signature stays.
fn minimise(seq: &[Call], mode: Mode, sig: &str, timeout: Duration) -> (Vec<Call>, usize) {
    let mut cur = seq.to_vec();
    let mut runs = 0;
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut chunk = (cur.len() / 2).max(1);
    loop {
        let mut removed = false;
        let mut i = 0;
        while i < cur.len() && runs < 400 && Instant::now() < deadline {
            let end = (i + chunk).min(cur.len());
            let cand: Vec<Call> = cur[..i].iter().chain(&cur[end..]).copied().collect();
            runs += 1;
            match run_child(&cand, mode, timeout) {
                Outcome::Finding(f) if signature(&f) == sig => {
                    cur = cand;
                    removed = true;
                }
                _ => i += chunk,
            }
        }
        if runs >= 400 || Instant::now() >= deadline {
            break;
        }
        if !removed {
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
    }
    (cur, runs)
}

fn write_reproducer(
    dir: &Path,
    n: usize,
    mode: Mode,
    seed: u64,
    index: u64,
    finding: &str,
    seq: &[Call],
) -> PathBuf {
    let _ = std::fs::create_dir_all(dir);
    let path = dir.join(format!("finding-{n:03}-{}.txt", mode.name()));
    let mut text = format!(
        "# aclrt-fuzz reproducer: aclrt-fuzz replay {} --mode {}\n# seed {seed}, sequence \
         {index}, run mode {}\n# finding: {finding}\n",
        path.display(),
        mode.name(),
        mode.name()
    );
    for c in seq {
        text.push_str(&c.to_line());
        text.push('\n');
    }
    std::fs::write(&path, text).expect("write the reproducer");
    path
}

fn run(args: &[String]) -> ExitCode {
    let seed = num(args, "--seed", 1);
    let sequences = num(args, "--sequences", u64::MAX);
    let minutes = num(args, "--minutes", 0);
    let len = num(args, "--len", 60) as usize;
    let start = num(args, "--start", 0);
    let timeout = Duration::from_secs(num(args, "--timeout", 30));
    let quiet = args.iter().any(|a| a == "--quiet");
    let modes: Vec<Mode> = match opt(args, "--mode").unwrap_or("both") {
        "host" => vec![Mode::Host],
        "device" => vec![Mode::Device],
        "both" => vec![Mode::Host, Mode::Device],
        other => panic!("--mode: {other}"),
    };
    let out = PathBuf::from(opt(args, "--out").unwrap_or("target/fuzz-findings"));
    if sequences == u64::MAX && minutes == 0 {
        eprintln!("give --sequences or --minutes");
        return ExitCode::from(2);
    }
    let t0 = Instant::now();
    let stop_at = (minutes > 0).then(|| t0 + Duration::from_secs(minutes * 60));
    let mut findings: BTreeMap<String, (usize, String, PathBuf)> = BTreeMap::new();
    let (mut done, mut calls, mut failing, mut resets) = (0u64, 0u64, 0u64, 0u64);
    let mut abort_waits = 0u64;
    let mut per_mode = [0u64; 2];
    let mut index = start;
    while done < sequences && stop_at.is_none_or(|t| Instant::now() < t) {
        let mode = modes[(index % modes.len() as u64) as usize];
        let seq = sequence(seed, index, len);
        let outcome = run_child(&seq, mode, timeout);
        done += 1;
        calls += seq.len() as u64;
        per_mode[(mode == Mode::Device) as usize] += 1;
        match outcome {
            Outcome::Ok {
                unserved_resets,
                abort_resets: a,
            } => {
                resets += unserved_resets;
                abort_waits += a;
            }
            Outcome::Finding(f) => {
                failing += 1;
                let sig = signature(&f);
                if let Some(e) = findings.get_mut(&sig) {
                    e.0 += 1;
                } else {
                    eprintln!(
                        "NEW finding (seed {seed}, sequence {index}, {}): {f}",
                        mode.name()
                    );
                    let (min, runs) = minimise(&seq, mode, &sig, timeout);
                    let n = findings.len() + 1;
                    let path = write_reproducer(&out, n, mode, seed, index, &f, &min);
                    eprintln!(
                        "  minimised {} -> {} calls in {runs} runs: {}",
                        seq.len(),
                        min.len(),
                        path.display()
                    );
                    findings.insert(sig, (1, f, path));
                }
            }
        }
        if !quiet && done % 100 == 0 {
            eprintln!(
                "{done} sequences, {calls} calls, {} distinct findings, {:.0} s",
                findings.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        index += 1;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "aclrt-fuzz: seed {seed}, sequences {start}..{index} (len {len}), modes {}: {done} \
         sequences ({} host, {} device), {calls} calls, {secs:.1} s, {failing} failing \
         sequences, {} distinct findings, {resets} unserved-callback waits and {abort_waits} \
         waits after an abort ended by the watchdog",
        modes.iter().map(|m| m.name()).collect::<Vec<_>>().join("+"),
        per_mode[0],
        per_mode[1],
        findings.len()
    );
    for (sig, (count, f, path)) in &findings {
        println!(
            "  {count}x {f}\n     signature: {sig}\n     reproducer: {}",
            path.display()
        );
    }
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn replay(args: &[String]) -> ExitCode {
    let Some(file) = args.first() else {
        eprintln!("replay FILE");
        return ExitCode::from(2);
    };
    let mode = match opt(args, "--mode").unwrap_or("host") {
        "device" => Mode::Device,
        _ => Mode::Host,
    };
    let timeout = Duration::from_secs(num(args, "--timeout", 30));
    let f = std::fs::File::open(file).expect("open the reproducer");
    let seq: Vec<Call> = std::io::BufReader::new(f)
        .lines()
        .map_while(Result::ok)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| Call::from_line(&l))
        .collect();
    match run_child(&seq, mode, timeout) {
        Outcome::Ok { .. } => {
            println!("ok: {} calls, no finding ({})", seq.len(), mode.name());
            ExitCode::SUCCESS
        }
        Outcome::Finding(f) => {
            println!("finding ({}): {f}", mode.name());
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::signature;

    #[test]
    fn signatures_keep_the_function_and_code_only() {
        assert_eq!(
            signature(
                "health: after the sequence: aclFinalize returned 507007: aclFinalize: 2 \
                 Device, 0x1234 alive"
            ),
            "health: after the sequence: aclFinalize returned N 507007"
        );
        assert_eq!(signature("crash: signal 11 "), "crash: signal 11");
        assert_ne!(
            signature("crash: signal 11 "),
            signature("crash: signal 6 x")
        );
        assert_ne!(
            signature("hang: aclrtMalloc did not return"),
            signature("crash: signal 6")
        );
    }
}
