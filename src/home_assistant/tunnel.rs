//! TLS for `mqtts://`, carried by Pillbox's own rustls.
//!
//! The MQTT client (rumqttc) brings its TLS only together with rustls-webpki 0.102, which has
//! known advisories and no fixed release in that line. So the client speaks plain MQTT over a
//! Unix socket that only this process can reach, and the tunnel carries each of its
//! connections to the broker over TLS made here: rustls 0.23 with ring, the broker's
//! certificate checked against the system's roots (`SSL_CERT_FILE` is honoured) for the
//! host named in `mqtt.url`.
//!
//! The socket lives in a directory of its own, mode 0700, in the temporary directory (under
//! the packaged unit, a private one); a connection from any other process is refused by its
//! peer credentials. The directory is removed when the tunnel is dropped.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand_core::{OsRng, RngCore};
use rustls::pki_types::ServerName;
use tokio::net::{TcpStream, UnixListener};
use tokio::task::JoinHandle;
use tokio_rustls::TlsConnector;

use crate::config::Broker;

/// The TCP connection and the TLS handshake together; the client gives up sooner.
const CONNECT_WITHIN: Duration = Duration::from_secs(10);

pub struct Tunnel {
    dir: PathBuf,
    socket: PathBuf,
    task: JoinHandle<()>,
    failure: Arc<Mutex<Option<String>>>,
}

impl Tunnel {
    /// Makes the private socket and starts carrying its connections to `broker`.
    pub fn open(broker: &Broker) -> Result<Tunnel, String> {
        let connector = TlsConnector::from(Arc::new(tls_config()?));
        let name = ServerName::try_from(broker.host.clone())
            .map_err(|_| format!("mqtts://: {} is not a host name TLS can check", broker.host))?;
        let dir = std::env::temp_dir().join(format!(
            "pillbox-mqtt-{}-{:016x}",
            std::process::id(),
            OsRng.next_u64()
        ));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("mqtts://: cannot make {}: {e}", dir.display()))?;
        let socket = dir.join("broker.sock");
        let listener = match UnixListener::bind(&socket) {
            Ok(listener) => listener,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(format!("mqtts://: cannot listen on {}: {e}", socket.display()));
            }
        };
        let failure = Arc::new(Mutex::new(None));
        let address = format!("{}:{}", broker.host, broker.port);
        let task = tokio::spawn(carry(listener, connector, name, address, failure.clone()));
        Ok(Tunnel {
            dir,
            socket,
            task,
            failure,
        })
    }

    /// Where the client connects (its `Transport::Unix` address).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Why the last connection to the broker could not be made (the TCP connection or the
    /// TLS handshake, e.g. a certificate no trusted root vouches for); taken, so it is told
    /// once.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|mut f| f.take())
    }
}

impl Drop for Tunnel {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Accepts the client's connections (only from this process) and carries each to the broker.
async fn carry(
    listener: UnixListener,
    connector: TlsConnector,
    name: ServerName<'static>,
    address: String,
    failure: Arc<Mutex<Option<String>>>,
) {
    let own = std::process::id();
    loop {
        let local = match listener.accept().await {
            Ok((local, _)) => local,
            Err(e) => {
                tracing::warn!("Home Assistant: the TLS tunnel's socket failed: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let ours = local
            .peer_cred()
            .ok()
            .and_then(|c| c.pid())
            .is_some_and(|pid| u32::try_from(pid).ok() == Some(own));
        if !ours {
            tracing::warn!("Home Assistant: refused a connection to the TLS tunnel from another process");
            continue;
        }
        let (connector, name, address, failure) =
            (connector.clone(), name.clone(), address.clone(), failure.clone());
        tokio::spawn(async move {
            let reached = tokio::time::timeout(CONNECT_WITHIN, async {
                let tcp = TcpStream::connect(&address).await.map_err(|e| e.to_string())?;
                let _ = tcp.set_nodelay(true);
                connector
                    .connect(name, tcp)
                    .await
                    .map_err(|e| format!("TLS: {e}"))
            })
            .await
            .unwrap_or_else(|_| Err(format!("no TLS connection within {} s", CONNECT_WITHIN.as_secs())));
            match reached {
                Ok(mut remote) => {
                    let mut local = local;
                    let _ = tokio::io::copy_bidirectional(&mut local, &mut remote).await;
                }
                Err(why) => {
                    // Told before the client sees its connection end, so that it can say why.
                    if let Ok(mut f) = failure.lock() {
                        *f = Some(why);
                    }
                    drop(local);
                }
            }
        });
    }
}

/// rustls with ring and the system's CA roots.
fn tls_config() -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for cert in found.certs {
        let _ = roots.add(cert);
    }
    if roots.is_empty() {
        return Err("mqtts://: no CA certificates found on this system to check the broker's".into());
    }
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("mqtts://: {e}"))
        .map(|builder| builder.with_root_certificates(roots).with_no_client_auth())
}
