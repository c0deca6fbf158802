//! A hostile command in the sandbox: `hostile.py` tries each way out that issue 46 names (a
//! terminal, capabilities, metadata of files outside, device nodes, the host name, other
//! processes' `/proc`, unix sockets) and prints what it reached. The same script without the
//! sandbox is the control: what it reaches there shows that each attempt can succeed, so a
//! refusal in the sandbox is the sandbox's doing.

use std::collections::BTreeMap;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatebench_process::{
    landlock_abi, private_mounts_available, run_isolated, Isolation, Sandbox, Spawn,
    SYSTEM_DEVICES, SYSTEM_READ,
};

const PYTHON: &str = "/usr/bin/python3";

/// What a sandboxed command must still be able to do.
const STILL_WORKS: &[&str] = &[
    "socketpair",
    "write-allowed",
    "chmod-allowed",
    "own-session",
];

struct Scene {
    _dir: tempfile::TempDir,
    outside: PathBuf,
    writable: PathBuf,
    terminal: String,
    _listeners: (UnixListener, UnixListener),
    abstract_name: String,
    socket_path: PathBuf,
    _pty: Option<(std::fs::File, std::fs::File)>,
}

fn scene() -> Scene {
    let dir = tempfile::Builder::new()
        .prefix("gatebench-hostile-")
        .tempdir()
        .unwrap();
    let outside = dir.path().join("outside");
    let writable = dir.path().join("writable");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&writable).unwrap();
    std::fs::write(outside.join("key"), "answer").unwrap();
    let socket_path = outside.join("socket");
    let path_listener = UnixListener::bind(&socket_path).unwrap();
    let abstract_name = format!("gatebench-hostile-{}", std::process::id());
    let abstract_listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(&abstract_name).unwrap()).unwrap();
    let (pty, terminal) = open_pty();
    Scene {
        _dir: dir,
        outside,
        writable,
        terminal,
        _listeners: (path_listener, abstract_listener),
        abstract_name,
        socket_path,
        _pty: pty,
    }
}

/// A pseudo-terminal pair (the test keeps both ends open) and the path of its terminal side.
fn open_pty() -> (Option<(std::fs::File, std::fs::File)>, String) {
    use std::os::fd::FromRawFd;
    let (mut main, mut side) = (0, 0);
    // SAFETY: openpty writes two new descriptors; the name, termios and size are not asked for.
    let made = unsafe {
        libc::openpty(
            &mut main,
            &mut side,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if made != 0 {
        return (None, "-".into());
    }
    let path = std::fs::read_link(format!("/proc/self/fd/{side}"))
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "-".into());
    // SAFETY: both descriptors were just made and are owned by nobody else.
    let files = unsafe {
        (
            std::fs::File::from_raw_fd(main),
            std::fs::File::from_raw_fd(side),
        )
    };
    (Some(files), path)
}

/// What the script reached: each attempt's name, and whether it reached it.
fn attempt(scene: &Scene, isolation: &Isolation, mode: &str) -> BTreeMap<String, bool> {
    let argv: Vec<String> = [
        PYTHON.into(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile.py").into(),
        scene.outside.display().to_string(),
        scene.writable.display().to_string(),
        std::process::id().to_string(),
        scene.socket_path.display().to_string(),
        scene.abstract_name.clone(),
        scene.terminal.clone(),
        mode.into(),
    ]
    .to_vec();
    let record = run_isolated(
        &Spawn {
            argv: &argv,
            cwd: &scene.writable,
            env: &[("PATH".into(), "/usr/bin:/bin".into())],
            timeout: Duration::from_secs(60),
        },
        isolation,
    );
    assert_eq!(record.exit_code, Some(0), "{record:?}");
    if std::env::var_os("GATEBENCH_HOSTILE_SHOW").is_some() {
        eprintln!("{mode}:\n{}", record.stdout.text);
    }
    // An observation that could not be made (an unreadable /proc/self) is no refusal.
    assert!(
        !record.stdout.text.contains(" error: "),
        "{mode}: {}",
        record.stdout.text
    );
    record
        .stdout
        .text
        .lines()
        .map(|line| {
            let (name, what) = line.split_once(' ').unwrap();
            (name.to_owned(), what == "reached")
        })
        .collect()
}

fn sandboxed(scene: &Scene) -> Isolation {
    let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(Into::into).collect();
    read.push(scene.outside.clone());
    read.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests"));
    let mut write: Vec<PathBuf> = SYSTEM_DEVICES.iter().map(Into::into).collect();
    write.push(scene.writable.clone());
    Isolation {
        contain: true,
        sandbox: Some(Sandbox { read, write }.prepare()),
        no_network: false,
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_hostile_command_in_the_sandbox_reaches_nothing_its_control_reaches() {
    if !Path::new(PYTHON).exists() {
        panic!("{PYTHON} is missing: this test needs the system python3 (see README)");
    }
    if landlock_abi().is_none() || !private_mounts_available() {
        eprintln!("no Landlock or no private mounts on this machine: the sandbox is partial");
        return;
    }
    let scene = scene();
    let control = attempt(&scene, &Isolation::default(), "control");
    // The control shows that each refused attempt below can succeed here.
    for name in [
        "chmod-outside",
        "utime-outside",
        "proc-of-parent",
        "proc-other-processes",
        "unix-socket-path",
        "unix-socket-abstract",
        "socketpair",
        "write-allowed",
        "chmod-allowed",
        "own-session",
    ] {
        assert!(
            control[name],
            "the control did not reach {name}: {control:?}"
        );
    }
    if is_root() {
        for name in ["capabilities", "chown-outside", "mknod-device"] {
            assert!(
                control[name],
                "the control did not reach {name}: {control:?}"
            );
        }
        if scene.terminal != "-" {
            assert!(control["tiocsti"], "{control:?}");
        }
    }
    let _ = std::fs::remove_file(scene.writable.join("mem"));
    let _ = std::fs::remove_file(scene.writable.join("written"));
    let before = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let sandboxed_reached = attempt(&scene, &sandboxed(&scene), "sandbox");
    let after = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    assert_eq!(before, after, "the sandboxed command renamed the machine");
    assert!(sandboxed_reached.contains_key("sethostname"));
    let reached: Vec<&String> = sandboxed_reached
        .iter()
        .filter(|(name, reached)| **reached && !STILL_WORKS.contains(&name.as_str()))
        .map(|(name, _)| name)
        .collect();
    assert!(
        reached.is_empty(),
        "the sandboxed command reached {reached:?}"
    );
    for name in STILL_WORKS {
        assert!(
            sandboxed_reached[*name],
            "{name} no longer works: {sandboxed_reached:?}"
        );
    }
    assert!(sandboxed_reached.contains_key("capabilities"));
}

/// The same test as an unprivileged user (root's sandbox keeps nothing of root's; an ordinary
/// user's is made in a user namespace of its own): when this test runs as root, it runs this
/// test binary again as `nobody` with `setpriv`.
#[test]
fn a_hostile_command_run_by_an_unprivileged_user_reaches_nothing_either() {
    if !is_root() || std::env::var_os("GATEBENCH_HOSTILE_UNPRIVILEGED").is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&exe)
        .args([
            "a_hostile_command_in_the_sandbox_reaches_nothing_its_control_reaches",
            "--exact",
            "--nocapture",
        ])
        .env("GATEBENCH_HOSTILE_UNPRIVILEGED", "1")
        .current_dir("/")
        .output()
        .expect("setpriv (util-linux) runs the test as nobody");
    let printed =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if printed.contains("Permission denied") && !out.status.success() {
        eprintln!("nobody cannot run {} here: {printed}", exe.display());
        return;
    }
    assert!(out.status.success(), "{printed}");
    assert!(printed.contains("1 passed"), "{printed}");
    assert!(!printed.contains("the sandbox is partial"), "{printed}");
}
