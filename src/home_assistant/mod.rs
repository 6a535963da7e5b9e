//! Home Assistant by MQTT discovery (issue 28), an edge like the reminder engine: one task
//! keeps a connection to the broker (`mqtt.url`), announces the published people's devices
//! and entities, keeps their states current, tells the event entity what happened, and turns
//! a button press into a dose (`services::home_assistant`).
//!
//! Nothing else in Pillbox waits for the broker: the task learns of changes from the
//! database's write signal (`Db::writes`) and reads what changed itself; what it publishes
//! goes into the client's bounded queue without waiting, and what does not fit is published
//! at the next look (states are compared with what the broker was last given, so an update
//! lost to a full queue or a broken connection is sent again, and a newer state replaces an
//! older one that never left). A broker that goes away is reconnected with backoff; a
//! refused login waits minutes, not milliseconds, before the next try.

pub mod discovery;
mod tunnel;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, EventLoop, LastWill, MqttOptions, Packet, QoS,
    Transport,
};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::clock::Clock;
use crate::config::{Broker, Settings};
use crate::db::{Db, DbError};
use crate::services::ServiceError;
use crate::services::home_assistant::{self as ha, Button, Marks};
use crate::version::VERSION;
use discovery::{App, PRESS, Topics};
use tunnel::Tunnel;

/// Time-dependent states (a dose due now, the next dose) are looked at this often.
const EVERY: Duration = Duration::from_secs(60);
/// Writes close together are looked at once, this long after the first.
const SETTLE: Duration = Duration::from_millis(150);
/// The client's queue: a full re-announce of a large household fits; beyond it, messages
/// wait for the next look instead of blocking anything.
const QUEUE: usize = 4096;
/// Backoff after a lost or failed connection: doubling from the first to the last.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_LAST: Duration = Duration::from_secs(60);
/// After the broker refused the login: a wrong password is not fixed by asking again soon.
const REFUSED_WAIT: Duration = Duration::from_secs(300);

/// The running publisher.
pub struct Running {
    task: JoinHandle<()>,
    stop: watch::Sender<bool>,
}

impl Running {
    /// Says `offline`, disconnects, and ends (at most two seconds).
    pub async fn stop(self) {
        self.stop.send_replace(true);
        let mut task = self.task;
        if tokio::time::timeout(Duration::from_secs(2), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }
}

/// Starts the publisher when `mqtt.url` is set.
pub fn start(settings: &Settings, db: Db, clock: Clock) -> Result<Option<Running>, String> {
    let Some(broker) = settings.mqtt.broker().map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let topics = Topics::new(&settings.mqtt.discovery_prefix, &settings.mqtt.base_topic);
    let app = App {
        version: VERSION.to_owned(),
        url: settings.link_base(),
    };
    let (options, tunnel) = options(&broker, &topics, true)?;
    let (client, events) = AsyncClient::new(options, QUEUE);
    let (stop, stopped) = watch::channel(false);
    tracing::info!(
        broker = %broker.address(),
        discovery_prefix = %topics.prefix,
        base_topic = %topics.base,
        "Home Assistant: publishing by MQTT discovery"
    );
    let publisher = Publisher {
        client,
        topics,
        app,
        db,
        clock,
        held: BTreeMap::new(),
        marks: None,
        announced: BTreeSet::new(),
    };
    let task = tokio::spawn(publisher.run(events, broker, tunnel, stopped));
    Ok(Some(Running { task, stop }))
}

/// The client's options: a will that says `offline` (retained); for `mqtts://`, the client
/// reaches the broker through a TLS tunnel of Pillbox's own (see `tunnel`), which must live as
/// long as the client.
pub fn options(
    broker: &Broker,
    topics: &Topics,
    will: bool,
) -> Result<(MqttOptions, Option<Tunnel>), String> {
    let client_id = format!("{}-{}", topics.node, std::process::id());
    let tunnel = broker.tls.then(|| Tunnel::open(broker)).transpose()?;
    let mut options = match &tunnel {
        Some(tunnel) => {
            let socket = tunnel
                .socket()
                .to_str()
                .ok_or("mqtts://: the temporary directory's path is not UTF-8")?
                .to_owned();
            let mut options = MqttOptions::new(client_id, socket, 0);
            options.set_transport(Transport::Unix);
            options
        }
        None => MqttOptions::new(client_id, broker.host.clone(), broker.port),
    };
    options.set_keep_alive(Duration::from_secs(30));
    options.set_clean_session(true);
    options.set_max_packet_size(256 * 1024, 256 * 1024);
    if let Some(user) = &broker.username {
        options.set_credentials(user.clone(), broker.password.clone().unwrap_or_default());
    }
    if will {
        options.set_last_will(LastWill::new(
            topics.availability(),
            "offline",
            QoS::AtLeastOnce,
            true,
        ));
    }
    Ok((options, tunnel))
}

/// Why a connection failed, in words for the operator: the tunnel's reason when it could not
/// reach the broker over TLS (the client itself only saw its socket close).
fn failure(error: &ConnectionError, tunnel: Option<&Tunnel>) -> String {
    tunnel
        .and_then(Tunnel::failure)
        .unwrap_or_else(|| error.to_string())
}

/// What a refused connection says to the operator, if it was refused.
pub fn refusal(error: &ConnectionError) -> Option<&'static str> {
    match error {
        ConnectionError::ConnectionRefused(
            ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
        ) => Some("the broker refused the login: check the user and password in mqtt.url"),
        ConnectionError::ConnectionRefused(_) => Some("the broker refused the connection"),
        _ => None,
    }
}

/// What the event loop tells the publisher.
enum FromBroker {
    Connected,
    /// Lost, or not reached: nothing is queued until the next connection.
    Disconnected,
    Message {
        topic: String,
        payload: Vec<u8>,
        retained: bool,
    },
}

struct Publisher {
    client: AsyncClient,
    topics: Topics,
    app: App,
    db: Db,
    clock: Clock,
    /// What the broker was last given, by topic (retained configs and states); emptied at
    /// each connection and at Home Assistant's birth, so that everything is sent again.
    held: BTreeMap<String, String>,
    /// Where the event entity's last look stopped; none until connected.
    marks: Option<Marks>,
    /// The retained topics (configs and states) this run has put on the broker and not
    /// removed yet; kept across connections, so that a person unpublished (or a medication
    /// deleted) while the broker was away is still removed from it once it is back.
    announced: BTreeSet<String>,
}

impl Publisher {
    async fn run(
        mut self,
        events: EventLoop,
        broker: Broker,
        tunnel: Option<Tunnel>,
        mut stopped: watch::Receiver<bool>,
    ) {
        let (to_publisher, mut from_broker) = mpsc::channel(256);
        let polling = tokio::spawn(poll(events, broker, tunnel, to_publisher));
        let mut writes = self.db.writes();
        let mut every = tokio::time::interval(EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut connected = false;
        // A look that could not send everything is tried again soon.
        let mut again: Option<tokio::time::Instant> = None;
        loop {
            let retry = async {
                match again {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = async { let _ = stopped.wait_for(|stop| *stop).await; } => break,
                message = from_broker.recv() => match message {
                    None => break,
                    Some(FromBroker::Disconnected) => connected = false,
                    Some(FromBroker::Connected) => {
                        connected = true;
                        self.held.clear();
                        self.marks = None;
                        self.announce_connection();
                    }
                    Some(FromBroker::Message { topic, payload, retained }) => {
                        if topic == self.topics.home_assistant_status() {
                            if payload == b"online" {
                                tracing::info!("Home Assistant came online: announcing the entities again");
                                self.held.clear();
                            }
                        } else {
                            self.command(&topic, &payload, retained).await;
                        }
                    }
                },
                changed = writes.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    // One look for a burst of writes (a dose writes history, stock, reminders).
                    tokio::time::sleep(SETTLE).await;
                    writes.borrow_and_update();
                }
                _ = every.tick() => {}
                () = retry => {}
            }
            if connected {
                again = match self.look().await {
                    Ok(true) => None,
                    Ok(false) => Some(tokio::time::Instant::now() + Duration::from_secs(1)),
                    Err(e) => {
                        tracing::error!("Home Assistant: cannot read what to publish: {e}");
                        Some(tokio::time::Instant::now() + Duration::from_secs(5))
                    }
                };
            }
        }
        if connected {
            let _ = self
                .client
                .try_publish(self.topics.availability(), QoS::AtLeastOnce, true, "offline");
            let _ = self.client.try_disconnect();
            // The event loop sends both, then ends at the disconnect.
            let _ = tokio::time::timeout(Duration::from_secs(1), polling).await;
        } else {
            polling.abort();
        }
    }

    /// Right after each connection: subscriptions, then `online`.
    fn announce_connection(&self) {
        let filters = [
            self.topics.home_assistant_status(),
            self.topics.command_filters()[0].clone(),
            self.topics.command_filters()[1].clone(),
        ];
        for filter in filters {
            if let Err(e) = self.client.try_subscribe(filter.clone(), QoS::AtLeastOnce) {
                tracing::warn!("Home Assistant: cannot subscribe to {filter}: {e}");
            }
        }
        if let Err(e) = self
            .client
            .try_publish(self.topics.availability(), QoS::AtLeastOnce, true, "online")
        {
            tracing::warn!("Home Assistant: cannot say online: {e}");
        }
    }

    /// Reads who is published and what their entities show, and publishes what differs
    /// from what the broker holds (an empty retained config removes an entity), then the
    /// events since the last look. Whether everything fitted into the client's queue.
    async fn look(&mut self) -> Result<bool, DbError> {
        let now = self.clock.now();
        let marks = self.marks.take();
        let (snapshot, events, marks) = self
            .db
            .read(move |conn| {
                let snapshot = ha::snapshot(conn, now)?;
                let published: Vec<ha::Published> = snapshot.iter().map(|(p, _)| p.clone()).collect();
                // The first look after connecting starts the events from now: what happened
                // while the broker was away is old news for a notification.
                let (events, marks) = match marks {
                    Some(mut marks) => (ha::events_since(conn, &mut marks, &published, now)?, marks),
                    None => (Vec::new(), ha::marks_now(conn, now)?),
                };
                Ok::<_, ServiceError>((snapshot, events, marks))
            })
            .await
            .map_err(|e| DbError::Task(e.to_string()))?;
        self.marks = Some(marks);
        let mut wanted: BTreeMap<String, String> = BTreeMap::new();
        let mut configs: BTreeMap<String, String> = BTreeMap::new();
        for (person, states) in &snapshot {
            configs.extend(discovery::configs(&self.topics, &self.app, person));
            wanted.extend(discovery::states(&self.topics, person, states));
        }
        let mut fitted = true;
        // Entities that are no longer published (a person turned off, a medication deleted,
        // stock no longer kept): an empty retained config removes each from Home Assistant,
        // and an empty retained state leaves the broker nothing of theirs.
        let gone: Vec<String> = self
            .announced
            .iter()
            .filter(|topic| !configs.contains_key(*topic) && !wanted.contains_key(*topic))
            .cloned()
            .collect();
        for topic in gone {
            if self.publish(&topic, String::new()) {
                self.announced.remove(&topic);
                self.held.remove(&topic);
            } else {
                fitted = false;
            }
        }
        self.announced.extend(configs.keys().cloned());
        self.announced.extend(wanted.keys().cloned());
        // Configs before the states they describe.
        for (topic, payload) in configs.into_iter().chain(wanted) {
            if self.held.get(&topic) == Some(&payload) {
                continue;
            }
            if self.publish(&topic, payload.clone()) {
                self.held.insert(topic, payload);
            } else {
                fitted = false;
            }
        }
        for event in &events {
            let (topic, payload) = discovery::event(&self.topics, event);
            // Not retained: Home Assistant must not fire an old event again when it restarts.
            if let Err(e) = self.client.try_publish(topic, QoS::AtLeastOnce, false, payload) {
                tracing::warn!("Home Assistant: an event was dropped ({e})");
            }
        }
        Ok(fitted)
    }

    /// Queues a retained message without waiting; false when the queue is full.
    fn publish(&self, topic: &str, payload: String) -> bool {
        self.client
            .try_publish(topic, QoS::AtLeastOnce, true, payload)
            .is_ok()
    }

    /// A button press: recorded when it names a published medication with the button's
    /// payload, else ignored with a line in the log.
    async fn command(&self, topic: &str, payload: &[u8], retained: bool) {
        let Some((medication_id, button)) = self.topics.parse_command(topic) else {
            tracing::warn!(
                topic,
                "Home Assistant: ignored a message on a topic that is no button of ours"
            );
            return;
        };
        if retained {
            // A retained command would be pressed again at every connection.
            tracing::warn!(topic, "Home Assistant: ignored a retained button command");
            return;
        }
        if payload != PRESS.as_bytes() {
            tracing::warn!(
                topic,
                payload = %String::from_utf8_lossy(payload).chars().take(40).collect::<String>(),
                "Home Assistant: ignored a button command whose payload is not {PRESS}"
            );
            return;
        }
        let button = if button == "take" {
            Button::Take
        } else {
            Button::Skip
        };
        let now = self.clock.now();
        let result = self
            .db
            .transaction(move |tx| ha::press(tx, medication_id, button, now))
            .await;
        match result {
            Ok(entry) => tracing::info!(
                medication_id,
                entry_id = entry.id,
                status = %entry.status,
                "Home Assistant: dose recorded from a button"
            ),
            Err(ServiceError::NotFound(_)) => tracing::warn!(
                medication_id,
                "Home Assistant: ignored a button of a medication that is not published"
            ),
            Err(e) => tracing::warn!(
                medication_id,
                "Home Assistant: the button's dose was refused: {e}"
            ),
        }
    }
}

/// Drives the connection: hands connections and messages to the publisher, and after an
/// error waits (doubling, longer after a refused login) before the event loop connects again.
async fn poll(
    mut events: EventLoop,
    broker: Broker,
    tunnel: Option<Tunnel>,
    publisher: mpsc::Sender<FromBroker>,
) {
    let mut backoff = BACKOFF_FIRST;
    let mut was_connected = false;
    loop {
        match events.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                tracing::info!("Home Assistant: connected to {}", broker.address());
                backoff = BACKOFF_FIRST;
                was_connected = true;
                if publisher.send(FromBroker::Connected).await.is_err() {
                    return;
                }
            }
            Ok(Event::Incoming(Packet::Publish(message))) => {
                let message = FromBroker::Message {
                    topic: message.topic,
                    payload: message.payload.to_vec(),
                    retained: message.retain,
                };
                // Commands beyond the queue are dropped rather than hold the connection.
                if publisher.try_send(message).is_err() && publisher.is_closed() {
                    return;
                }
            }
            Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect)) => {
                // Our own goodbye: flush it, then stop.
                let _ = tokio::time::timeout(Duration::from_millis(500), events.poll()).await;
                return;
            }
            Ok(_) => {}
            Err(error) => {
                let wait = match refusal(&error) {
                    Some(why) => {
                        tracing::error!(
                            "Home Assistant: {why} ({}); trying again in {} s",
                            broker.address(),
                            REFUSED_WAIT.as_secs()
                        );
                        REFUSED_WAIT
                    }
                    None => {
                        let error = failure(&error, tunnel.as_ref());
                        if was_connected {
                            tracing::warn!("Home Assistant: lost the broker {}: {error}", broker.address());
                        } else {
                            tracing::warn!(
                                "Home Assistant: cannot reach the broker {}: {error}; trying again in {} s",
                                broker.address(),
                                backoff.as_secs()
                            );
                        }
                        let wait = backoff;
                        backoff = (backoff * 2).min(BACKOFF_LAST);
                        wait
                    }
                };
                was_connected = false;
                if publisher.is_closed() {
                    return;
                }
                let _ = publisher.try_send(FromBroker::Disconnected);
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// `pillbox doctor`: connects (without a will), and answers how it went.
pub async fn check_connection(broker: &Broker, settings: &Settings) -> Result<(), String> {
    let topics = Topics::new(&settings.mqtt.discovery_prefix, &settings.mqtt.base_topic);
    let (mut options, tunnel) = options(broker, &topics, false)?;
    options.set_client_id(format!("{}-doctor-{}", topics.node, std::process::id()));
    let (client, mut events) = AsyncClient::new(options, 8);
    let outcome = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => return Ok(()),
                Ok(_) => {}
                Err(error) => {
                    return Err(match refusal(&error) {
                        Some(why) => why.to_owned(),
                        None => failure(&error, tunnel.as_ref()),
                    });
                }
            }
        }
    })
    .await
    .unwrap_or_else(|_| Err("no answer within 10 s".into()));
    if outcome.is_ok() {
        let _ = client.try_disconnect();
        let _ = tokio::time::timeout(Duration::from_millis(500), events.poll()).await;
    }
    outcome
}
