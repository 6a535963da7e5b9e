//! systemd's notify protocol (`Type=notify`): datagrams to `$NOTIFY_SOCKET` saying READY,
//! STATUS, STOPPING and WATCHDOG. A dozen lines of our own rather than libsystemd, so the
//! binary stays static; outside systemd (no `NOTIFY_SOCKET`) every call does nothing.

use std::os::unix::net::UnixDatagram;
use std::time::Duration;

/// Sends one state line (`READY=1`, `STATUS=…`) to the service manager, if there is one.
pub fn notify(state: &str) {
    let Some(socket) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    if let Err(e) = send(&socket.to_string_lossy(), state) {
        tracing::warn!("could not notify systemd ({state}): {e}");
    }
}

fn send(socket: &str, state: &str) -> std::io::Result<usize> {
    let sender = UnixDatagram::unbound()?;
    // A name starting with '@' is in the abstract namespace (no file on disk).
    match socket.strip_prefix('@') {
        Some(name) => {
            use std::os::linux::net::SocketAddrExt;
            let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
            sender.send_to_addr(state.as_bytes(), &address)
        }
        None => sender.send_to(state.as_bytes(), socket),
    }
}

/// How often to tell systemd we are alive: half of `WatchdogSec=` (systemd passes it as
/// `WATCHDOG_USEC`), or `None` when no watchdog is asked of this process.
pub fn watchdog_period() -> Option<Duration> {
    // WATCHDOG_PID names the process the watchdog is meant for; a child that inherited the
    // variables is not it.
    if let Some(pid) = std::env::var_os("WATCHDOG_PID")
        && pid.to_string_lossy().trim() != std::process::id().to_string()
    {
        return None;
    }
    let usec: u64 = std::env::var("WATCHDOG_USEC").ok()?.trim().parse().ok()?;
    (usec > 0).then(|| Duration::from_micros(usec) / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_reach_a_socket_file_and_an_abstract_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let receiver = UnixDatagram::bind(&path).unwrap();
        let name = format!("pillbox-test-{}", std::process::id());
        let abstract_receiver = {
            use std::os::linux::net::SocketAddrExt;
            let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
            UnixDatagram::bind_addr(&address).unwrap()
        };
        let mut buffer = [0u8; 64];
        send(path.to_str().unwrap(), "READY=1").unwrap();
        let n = receiver.recv(&mut buffer).unwrap();
        assert_eq!(&buffer[..n], b"READY=1");
        send(&format!("@{name}"), "WATCHDOG=1").unwrap();
        let n = abstract_receiver.recv(&mut buffer).unwrap();
        assert_eq!(&buffer[..n], b"WATCHDOG=1");
    }
}
