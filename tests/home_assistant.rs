//! Home Assistant by MQTT discovery (issue 28) against a real broker: Debian's mosquitto,
//! one per test on a free port, read by an MQTT client of its own (rumqttc) as Home Assistant
//! would read it. The discovery configs (retained, with the device, availability and unique
//! ids), the states after a dose, a button press recorded as a dose by "Home Assistant", the
//! re-announce when Home Assistant comes online, unpublishing, a broker restart, a refused
//! login (doctor and log) and a malformed `mqtt.url`.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Server, call, free_port, get_json, post};
use reqwest::{Method, StatusCode};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::{Value, json};

const PUBLIC_URL: &str = "https://pillbox.example.test";
const MOSQUITTO: &str = "/usr/sbin/mosquitto";

/// A mosquitto on 127.0.0.1 without persistence (a restart forgets every retained message),
/// anonymous, or with one login when made by `with_login`.
struct Broker {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Broker {
    fn start() -> Broker {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "listener {} 127.0.0.1\nallow_anonymous true\npersistence false\n",
            free_port()
        );
        Self::start_with(dir, config)
    }

    /// A broker that keeps its retained messages across a stop with SIGTERM.
    fn persistent() -> Broker {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "listener {} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location {}/\n",
            free_port(),
            dir.path().display()
        );
        Self::start_with(dir, config)
    }

    /// A broker with a plain listener (for the readers) and a TLS one at `tls_port` whose
    /// certificate (self-signed for 127.0.0.1, in `cert.pem`) no system trusts.
    fn with_tls() -> (Broker, u16) {
        let dir = tempfile::tempdir().unwrap();
        let made =
            rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
        std::fs::write(dir.path().join("cert.pem"), made.cert.pem()).unwrap();
        std::fs::write(dir.path().join("key.pem"), made.signing_key.serialize_pem()).unwrap();
        let tls_port = free_port();
        let config = format!(
            "listener {plain} 127.0.0.1\nallow_anonymous true\npersistence false\n\
             listener {tls_port} 127.0.0.1\ncertfile {files}/cert.pem\nkeyfile {files}/key.pem\n",
            plain = free_port(),
            files = dir.path().display()
        );
        (Self::start_with(dir, config), tls_port)
    }

    /// A broker that accepts only `user` with `password`.
    fn with_login(user: &str, password: &str) -> Broker {
        let dir = tempfile::tempdir().unwrap();
        let passwords = dir.path().join("passwords");
        let made = Command::new("mosquitto_passwd")
            .args(["-b", "-c"])
            .arg(&passwords)
            .args([user, password])
            .output()
            .expect("mosquitto_passwd (apt-get install mosquitto)");
        assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        let config = format!(
            "listener {} 127.0.0.1\nallow_anonymous false\npassword_file {}\npersistence false\n",
            free_port(),
            passwords.display()
        );
        Self::start_with(dir, config)
    }

    fn start_with(dir: tempfile::TempDir, config: String) -> Broker {
        let port: u16 = config.split_whitespace().nth(1).unwrap().parse().unwrap();
        std::fs::write(dir.path().join("mosquitto.conf"), config).unwrap();
        let mut broker = Broker {
            port,
            dir,
            child: None,
        };
        broker.run();
        broker
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("mosquitto.conf")
    }

    fn run(&mut self) {
        let child = Command::new(MOSQUITTO)
            .arg("-c")
            .arg(self.config())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto (apt-get install mosquitto)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "mosquitto did not start");
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops as systemd would (SIGTERM): a persistent broker saves what it holds.
    fn terminate(&mut self) {
        if let Some(mut child) = self.child.take() {
            Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status()
                .unwrap();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A message as a reader got it.
#[derive(Debug, Clone)]
struct Message {
    topic: String,
    payload: String,
    retained: bool,
}

/// An MQTT client that subscribes to everything and keeps what it gets, as Home Assistant
/// reads the broker; it can also publish (a button press, Home Assistant's birth).
struct Reader {
    client: AsyncClient,
    got: Arc<Mutex<Vec<Message>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Reader {
    async fn connect(broker: &Broker) -> Reader {
        let mut options = MqttOptions::new(format!("reader-{}", free_port()), "127.0.0.1", broker.port);
        options.set_max_packet_size(1 << 20, 1 << 20);
        let (client, mut events) = AsyncClient::new(options, 100);
        let got = Arc::new(Mutex::new(Vec::new()));
        let (ready, subscribed) = tokio::sync::oneshot::channel();
        let mut ready = Some(ready);
        let keep = Arc::clone(&got);
        let task = tokio::spawn(async move {
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::SubAck(_))) => {
                        if let Some(ready) = ready.take() {
                            let _ = ready.send(());
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => keep.lock().unwrap().push(Message {
                        topic: p.topic.clone(),
                        payload: String::from_utf8_lossy(&p.payload).into_owned(),
                        retained: p.retain,
                    }),
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
        client.subscribe("#", QoS::AtLeastOnce).await.unwrap();
        tokio::time::timeout(Duration::from_secs(10), subscribed)
            .await
            .expect("the reader subscribed")
            .unwrap();
        Reader { client, got, task }
    }

    fn messages(&self) -> Vec<Message> {
        self.got.lock().unwrap().clone()
    }

    fn forget(&self) {
        self.got.lock().unwrap().clear();
    }

    /// The last payload of each topic (as a broker would retain it).
    fn latest(&self) -> BTreeMap<String, Message> {
        let mut out = BTreeMap::new();
        for m in self.messages() {
            out.insert(m.topic.clone(), m);
        }
        out
    }

    /// Waits (up to `secs`) until `check` holds for what was received; panics with it else.
    async fn wait_until(&self, secs: u64, what: &str, check: impl Fn(&BTreeMap<String, Message>) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if check(&self.latest()) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {secs} s; got {:#?}",
                self.latest()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn publish(&self, topic: &str, payload: &str) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload.as_bytes().to_vec())
            .await
            .unwrap();
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn json_of(m: &Message) -> Value {
    serde_json::from_str(&m.payload).unwrap_or_else(|_| panic!("{} is not JSON: {}", m.topic, m.payload))
}

fn server_for(broker: &Broker) -> Server {
    let url = broker.url();
    Server::start_with(|c| {
        common::with_clock_start(c, "2026-03-02T06:00:00Z");
        c.env("PILLBOX_PUBLIC_URL", PUBLIC_URL)
            .env("PILLBOX_MQTT_URL", url);
    })
}

/// An account with a scheduled medication that keeps stock (30 tablets), and its ids:
/// `(token, person_id, medication_id)`.
async fn household(server: &Server) -> (String, i64, i64) {
    let token = common::register(server, "dad@example.test").await;
    let medication = common::medication(
        server,
        &token,
        json!({
            "name": "Ibuprofen", "unit": "tablets", "frequency": "twice_daily", "default_quantity": 1,
            "schedule": { "times": ["08:00", "20:00"] },
            "inventory": {
                "enabled": true, "inventory_type": "discrete", "container_type": "blister_pack",
                "container_quantity": 3, "item_quantity": 10, "item_strength": 1, "item_unit": "tablets"
            }
        }),
    )
    .await;
    let (status, people) = get_json(server, "/api/people", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{people}");
    let me = &people["data"][0];
    assert_eq!(me["is_self"], true);
    (token, me["id"].as_i64().unwrap(), medication)
}

async fn publish_person(server: &Server, token: &str, person: i64, on: bool) -> Value {
    let (status, body) = call(
        server,
        Method::PUT,
        &format!("/api/people/{person}"),
        Some(token),
        Some(json!({ "home_assistant": on })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The owner's screen is told that this server publishes (it has mqtt.url).
    assert_eq!(body["data"]["home_assistant_available"], true, "{body}");
    body["data"].clone()
}

fn configs(latest: &BTreeMap<String, Message>) -> BTreeMap<String, Value> {
    latest
        .iter()
        .filter(|(t, m)| t.starts_with("homeassistant/") && t.ends_with("/config") && !m.payload.is_empty())
        .map(|(t, m)| (t.clone(), json_of(m)))
        .collect()
}

/// The entity topics a published person with one stocked medication has.
/// Whether what a reader holds has every discovery config of `person` and `medication`.
fn has_every_config(latest: &BTreeMap<String, Message>, person: i64, medication: i64) -> bool {
    configs(latest).len() == expected_configs(person, medication).len()
}

/// Waits until a reader that connects now finds every config of `person` and `medication`
/// on the broker.
async fn every_config_on(broker: &Broker, person: i64, medication: i64) {
    Reader::connect(broker)
        .await
        .wait_until(5, "the configs", |l| has_every_config(l, person, medication))
        .await;
}

fn expected_configs(person: i64, medication: i64) -> Vec<String> {
    let node = format!("pillbox_{person}");
    let mut topics: Vec<String> = [
        ("sensor", "next_dose".to_owned()),
        ("sensor", "last_taken".to_owned()),
        ("binary_sensor", "dose_due".to_owned()),
        ("sensor", "missed_today".to_owned()),
        ("sensor", "adherence_7d".to_owned()),
        ("event", "doses".to_owned()),
        ("sensor", format!("medication_{medication}_stock")),
        ("sensor", format!("medication_{medication}_days_left")),
        ("binary_sensor", format!("medication_{medication}_low_stock")),
        ("button", format!("medication_{medication}_take")),
        ("button", format!("medication_{medication}_skip")),
    ]
    .into_iter()
    .map(|(component, object)| format!("homeassistant/{component}/{node}/{object}/config"))
    .collect();
    topics.sort();
    topics
}

#[tokio::test]
async fn a_published_person_appears_by_retained_discovery_with_device_availability_and_unique_ids() {
    let broker = Broker::start();
    let server = server_for(&broker);
    let (token, person, medication) = household(&server).await;

    // Off by default: the broker sees Pillbox's availability but nobody's medicines.
    let watcher = Reader::connect(&broker).await;
    watcher
        .wait_until(10, "pillbox/status online", |l| {
            l.get("pillbox/status").is_some_and(|m| m.payload == "online")
        })
        .await;
    let (_, people) = get_json(&server, "/api/people", Some(&token)).await;
    assert_eq!(people["data"][0]["home_assistant"], false, "{people}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        watcher
            .messages()
            .iter()
            .all(|m| !m.topic.starts_with("homeassistant/")),
        "{:#?}",
        watcher.messages()
    );

    let saved = publish_person(&server, &token, person, true).await;
    assert_eq!(saved["home_assistant"], true);
    let (_, people) = get_json(&server, "/api/people", Some(&token)).await;
    assert_eq!(people["data"][0]["home_assistant"], true, "{people}");
    watcher
        .wait_until(5, "the configs", |l| has_every_config(l, person, medication))
        .await;

    // A client that connects later (Home Assistant after a restart) gets them retained.
    let late = Reader::connect(&broker).await;
    // The broker hands over the retained messages one by one: wait for the states and the
    // status read below as well as the configs.
    let states = [
        "pillbox/status".to_owned(),
        format!("pillbox/person/{person}/state"),
        format!("pillbox/person/{person}/next_dose"),
        format!("pillbox/medication/{medication}/state"),
    ];
    late.wait_until(5, "the retained configs and states", |l| {
        has_every_config(l, person, medication) && states.iter().all(|t| l.contains_key(t))
    })
    .await;
    let latest = late.latest();
    let found = configs(&latest);
    assert_eq!(
        found.keys().cloned().collect::<Vec<_>>(),
        expected_configs(person, medication)
    );
    assert!(
        latest
            .values()
            .filter(|m| m.topic.ends_with("/config"))
            .all(|m| m.retained)
    );
    assert!(latest["pillbox/status"].retained);
    assert_eq!(latest["pillbox/status"].payload, "online");
    let mut unique_ids = std::collections::BTreeSet::new();
    for (topic, config) in &found {
        let unique_id = config["unique_id"]
            .as_str()
            .unwrap_or_else(|| panic!("{topic}: no unique_id"));
        assert!(
            unique_ids.insert(unique_id.to_owned()),
            "{topic}: {unique_id} twice"
        );
        assert_eq!(config["availability_topic"], "pillbox/status", "{topic}");
        let device = &config["device"];
        assert_eq!(
            device["identifiers"],
            json!([format!("pillbox_{person}")]),
            "{topic}"
        );
        assert_eq!(device["name"], "dad@example.test", "{topic}");
        assert_eq!(device["model"], "Pillbox");
        assert!(device["sw_version"].as_str().is_some_and(|v| !v.is_empty()));
        assert_eq!(device["configuration_url"], PUBLIC_URL);
        assert_eq!(config["origin"]["name"], "Pillbox");
        assert!(config["name"].as_str().is_some_and(|n| !n.is_empty()), "{topic}");
    }
    let node = format!("homeassistant/sensor/pillbox_{person}");
    assert_eq!(
        found[&format!("{node}/next_dose/config")]["device_class"],
        "timestamp"
    );
    assert_eq!(
        found[&format!("{node}/medication_{medication}_stock/config")]["unit_of_measurement"],
        "tablets"
    );
    assert_eq!(
        found[&format!("{node}/medication_{medication}_stock/config")]["name"],
        "Ibuprofen stock left"
    );
    assert_eq!(
        found[&format!(
            "homeassistant/binary_sensor/pillbox_{person}/medication_{medication}_low_stock/config"
        )]["device_class"],
        "problem"
    );
    let event = &found[&format!("homeassistant/event/pillbox_{person}/doses/config")];
    assert_eq!(
        event["event_types"],
        json!(["taken", "skipped", "missed", "reminder"])
    );
    let take = &found[&format!("homeassistant/button/pillbox_{person}/medication_{medication}_take/config")];
    assert_eq!(
        take["command_topic"],
        format!("pillbox/medication/{medication}/take")
    );
    // States: the next dose is today's 08:00 (the clock says 06:00 UTC, the zone is UTC).
    let state = json_of(&latest[&format!("pillbox/person/{person}/state")]);
    assert_eq!(state["next_dose"], "2026-03-02T08:00:00.000Z", "{state}");
    assert_eq!(state["dose_due"], "OFF");
    let attributes = json_of(&latest[&format!("pillbox/person/{person}/next_dose")]);
    assert_eq!(
        attributes,
        json!({ "medication": "Ibuprofen", "amount": "1 tablets" })
    );
    let stock = json_of(&latest[&format!("pillbox/medication/{medication}/state")]);
    assert_eq!(stock["stock"], 30.0, "{stock}");
    assert_eq!(stock["low_stock"], "OFF");

    // A stock change and a schedule change reach the states within a second.
    let stock_state = format!("pillbox/medication/{medication}/state");
    let (status, body) = post(
        &server,
        &format!("/api/medications/{medication}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": -30 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    watcher
        .wait_until(1, "the stock after an adjustment", |l| {
            l.get(&stock_state).is_some_and(|m| {
                let stock = json_of(m);
                stock["stock"] == 0.0 && stock["low_stock"] == "ON" && stock["days_left"] == 0
            })
        })
        .await;
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{medication}"),
        Some(&token),
        Some(json!({ "schedule": { "times": ["07:00", "20:00"] } })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let person_state = format!("pillbox/person/{person}/state");
    watcher
        .wait_until(1, "the next dose after a schedule change", |l| {
            l.get(&person_state)
                .is_some_and(|m| json_of(m)["next_dose"] == "2026-03-02T07:00:00.000Z")
        })
        .await;

    // With hidden medication names, names and states say "Medication 1".
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&token),
        Some(json!({ "hide_medication_names": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let stock_topic = format!("{node}/medication_{medication}_stock/config");
    watcher
        .wait_until(5, "hidden names", |l| {
            l.get(&stock_topic)
                .is_some_and(|m| json_of(m)["name"] == "Medication 1 stock left")
        })
        .await;
    let latest = watcher.latest();
    assert_eq!(
        json_of(&latest[&format!("pillbox/person/{person}/next_dose")])["medication"],
        "Medication 1"
    );
    assert!(
        latest
            .values()
            .all(|m| !m.payload.contains("Ibuprofen") && !m.topic.contains("Ibuprofen")),
        "a name is still out there"
    );
}

#[tokio::test]
async fn states_follow_a_dose_within_a_second_and_a_button_records_a_dose_by_home_assistant() {
    let broker = Broker::start();
    let server = server_for(&broker);
    let (token, person, medication) = household(&server).await;
    let reader = Reader::connect(&broker).await;
    publish_person(&server, &token, person, true).await;
    let stock_topic = format!("pillbox/medication/{medication}/state");
    let person_topic = format!("pillbox/person/{person}/state");
    let event_topic = format!("pillbox/person/{person}/event");
    // The medication's and the person's states are separate messages: wait for both.
    reader
        .wait_until(5, "the first states", |l| {
            l.get(&stock_topic).is_some_and(|m| json_of(m)["stock"] == 30.0) && l.contains_key(&person_topic)
        })
        .await;
    assert_eq!(
        json_of(&reader.latest()[&person_topic])["last_taken"],
        Value::Null
    );

    // A dose logged in the app: stock, last taken and an event within a second.
    let (status, body) = post(
        &server,
        &format!("/api/medications/{medication}/doses"),
        Some(&token),
        json!({ "quantity": 2, "unit": "tablets", "status": "taken" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    reader
        .wait_until(1, "the stock after a dose", |l| {
            l.get(&stock_topic).is_some_and(|m| json_of(m)["stock"] == 28.0)
        })
        .await;
    reader
        .wait_until(1, "last taken", |l| {
            l.get(&person_topic).is_some_and(|m| {
                json_of(m)["last_taken"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("2026-03-02T06:00:"))
            })
        })
        .await;
    reader
        .wait_until(1, "the taken event", |l| {
            l.get(&event_topic).is_some_and(|m| {
                let event = json_of(m);
                event["event_type"] == "taken" && event["medication"] == "Ibuprofen"
            })
        })
        .await;
    // Events are not retained: Home Assistant restarting must not fire them again.
    let late = Reader::connect(&broker).await;
    late.wait_until(2, "the retained states", |l| l.contains_key(&stock_topic))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!late.latest().contains_key(&event_topic), "an event was retained");

    // The clock reaches 08:00: a dose is due (the minute's look, or the dispatcher's pass).
    common::advance(&server, 2 * 3600 + 60).await;
    reader
        .wait_until(65, "the dose due now", |l| {
            l.get(&person_topic)
                .is_some_and(|m| json_of(m)["dose_due"] == "ON")
        })
        .await;

    // The reminder went out: the event entity tells Home Assistant (the blueprint's trigger),
    // with the medication's id for the button it presses.
    reader
        .wait_until(5, "the reminder event", |l| {
            l.get(&event_topic).is_some_and(|m| {
                let event = json_of(m);
                event["event_type"] == "reminder" && event["medication_id"] == medication
            })
        })
        .await;

    // Home Assistant presses "Take dose": the due dose is recorded by Home Assistant.
    reader
        .publish(&format!("pillbox/medication/{medication}/take"), "PRESS")
        .await;
    reader
        .wait_until(2, "the stock after the button", |l| {
            l.get(&stock_topic).is_some_and(|m| json_of(m)["stock"] == 27.0)
        })
        .await;
    reader
        .wait_until(1, "nothing due", |l| {
            l.get(&person_topic).is_some_and(|m| {
                let state = json_of(m);
                state["dose_due"] == "OFF" && state["next_dose"] == "2026-03-02T20:00:00.000Z"
            })
        })
        .await;
    let (status, history) = get_json(
        &server,
        &format!("/api/medications/history?person_id={person}"),
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{history}");
    let newest = &history["data"][0];
    assert_eq!(newest["logged_by"]["name"], "Home Assistant", "{history}");
    assert_eq!(newest["logged_by"]["user_id"], Value::Null);
    assert_eq!(newest["status"], "taken");
    assert_eq!(history["data"].as_array().unwrap().len(), 2);
    let (status, today) = get_json(&server, "/api/medications/today", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{today}");
    let morning = today["data"]["doses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["scheduled_time"] == "2026-03-02T08:00:00.000Z")
        .unwrap_or_else(|| panic!("{today}"))
        .clone();
    assert_eq!(
        morning["status"], "taken",
        "the button answered the due dose: {today}"
    );
    let (status, audit) = get_json(&server, &format!("/api/people/{person}/audit"), Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{audit}");
    assert_eq!(audit["data"][0]["actor_name"], "Home Assistant", "{audit}");
    assert_eq!(audit["data"][0]["action"], "dose.logged");
    assert_eq!(audit["data"][0]["subject"], "Ibuprofen");

    // "Skip dose" records the next one (tonight's) as skipped.
    reader
        .publish(&format!("pillbox/medication/{medication}/skip"), "PRESS")
        .await;
    reader
        .wait_until(2, "the skipped event", |l| {
            l.get(&event_topic)
                .is_some_and(|m| json_of(m)["event_type"] == "skipped")
        })
        .await;

    // A wrong payload, an unknown medication and a foreign topic are ignored and logged.
    reader
        .publish(&format!("pillbox/medication/{medication}/take"), "press")
        .await;
    reader.publish("pillbox/medication/99999/take", "PRESS").await;
    assert!(
        server.logged("whose payload is not PRESS").await,
        "{}",
        server.log()
    );
    assert!(server.logged("not published").await, "{}", server.log());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, history) = get_json(
        &server,
        &format!("/api/medications/history?person_id={person}"),
        Some(&token),
    )
    .await;
    assert_eq!(history["data"].as_array().unwrap().len(), 3, "{history}");
}

#[tokio::test]
async fn a_dose_missed_past_its_grace_is_counted_and_told() {
    let broker = Broker::start();
    let server = server_for(&broker);
    let token = common::register(&server, "gran@example.test").await;
    let medication = common::medication(
        &server,
        &token,
        json!({ "name": "Digoxin", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": ["06:30"], "grace_minutes": 30 } }),
    )
    .await;
    let (_, people) = get_json(&server, "/api/people", Some(&token)).await;
    let person = people["data"][0]["id"].as_i64().unwrap();
    let reader = Reader::connect(&broker).await;
    publish_person(&server, &token, person, true).await;
    let person_topic = format!("pillbox/person/{person}/state");
    let event_topic = format!("pillbox/person/{person}/event");
    reader
        .wait_until(5, "nothing missed yet", |l| {
            l.get(&person_topic)
                .is_some_and(|m| json_of(m)["missed_today"] == 0)
        })
        .await;
    // A dose added when its reminder's time (15 minutes ahead) has passed is told at once.
    let soon = common::medication(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": ["06:10"], "grace_minutes": 30 } }),
    )
    .await;
    let reminded = |l: &BTreeMap<String, Message>, id: i64| {
        l.get(&event_topic).is_some_and(|m| {
            let event = json_of(m);
            event["event_type"] == "reminder" && event["medication_id"] == id
        })
    };
    reader
        .wait_until(5, "the reminder of a dose added late", |l| reminded(l, soon))
        .await;
    // Digoxin's reminder comes at 06:15 (15 minutes ahead, the default), the dose at 06:30,
    // then its 30 minutes of grace pass (Aspirin's too).
    common::advance(&server, 16 * 60).await;
    reader
        .wait_until(5, "the reminder", |l| reminded(l, medication))
        .await;
    common::advance(&server, 15 * 60).await;
    common::advance(&server, 31 * 60).await;
    reader
        .wait_until(5, "the missed doses", |l| {
            l.get(&person_topic)
                .is_some_and(|m| json_of(m)["missed_today"] == 2)
                && l.get(&event_topic)
                    .is_some_and(|m| json_of(m)["event_type"] == "missed")
        })
        .await;
    let adherence = json_of(&reader.latest()[&person_topic])["adherence_7d"].clone();
    assert_eq!(adherence, 0.0, "two doses, both missed");
}

#[tokio::test]
async fn configs_and_states_are_announced_again_when_home_assistant_comes_online() {
    let broker = Broker::start();
    let server = server_for(&broker);
    let (token, person, medication) = household(&server).await;
    let reader = Reader::connect(&broker).await;
    publish_person(&server, &token, person, true).await;
    let expected = expected_configs(person, medication).len();
    reader
        .wait_until(5, "the configs", |l| configs(l).len() == expected)
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    reader.forget();
    // Nothing changed: nothing is sent again by itself.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        reader.messages().iter().all(|m| !m.topic.ends_with("/config")),
        "{:#?}",
        reader.messages()
    );
    reader.publish("homeassistant/status", "online").await;
    reader
        .wait_until(3, "configs and states again", |l| {
            configs(l).len() == expected && l.contains_key(&format!("pillbox/person/{person}/state"))
        })
        .await;
    // Home Assistant going offline changes nothing.
    reader.forget();
    reader.publish("homeassistant/status", "offline").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        reader.messages().iter().all(|m| !m.topic.ends_with("/config")),
        "{:#?}",
        reader.messages()
    );
}

#[tokio::test]
async fn unpublishing_a_person_or_deleting_a_medication_empties_their_retained_configs() {
    let broker = Broker::start();
    let server = server_for(&broker);
    let (token, person, medication) = household(&server).await;
    let second = common::medication(
        &server,
        &token,
        json!({ "name": "Vitamin D", "unit": "drops", "frequency": "daily", "schedule": { "times": ["09:00"] } }),
    )
    .await;
    let reader = Reader::connect(&broker).await;
    publish_person(&server, &token, person, true).await;
    let take_second = format!("homeassistant/button/pillbox_{person}/medication_{second}_take/config");
    reader
        .wait_until(5, "both medications", |l| configs(l).contains_key(&take_second))
        .await;
    // Without stock kept, the second has buttons but no stock entities.
    assert!(!configs(&reader.latest()).contains_key(&format!(
        "homeassistant/sensor/pillbox_{person}/medication_{second}_stock/config"
    )));

    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{second}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    reader
        .wait_until(2, "the deleted medication's configs emptied", |l| {
            l.get(&take_second).is_some_and(|m| m.payload.is_empty())
        })
        .await;
    assert_eq!(
        configs(&reader.latest()).len(),
        expected_configs(person, medication).len()
    );

    publish_person(&server, &token, person, false).await;
    reader
        .wait_until(2, "every config emptied", |l| configs(l).is_empty())
        .await;
    // The broker holds none of them any more: a new client gets no config.
    // Nor their states: a new client gets only Pillbox's availability.
    let late = Reader::connect(&broker).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let held: Vec<_> = late
        .messages()
        .into_iter()
        .filter(|m| m.topic != "pillbox/status")
        .collect();
    assert!(held.is_empty(), "{held:#?}");
    // And the person's buttons no longer record anything.
    late.publish(&format!("pillbox/medication/{medication}/take"), "PRESS")
        .await;
    assert!(server.logged("not published").await, "{}", server.log());
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(history["data"].as_array().unwrap().len(), 0, "{history}");
}

#[tokio::test]
async fn a_broker_restart_is_survived_and_nothing_waits_for_the_broker_meanwhile() {
    let mut broker = Broker::start();
    let server = server_for(&broker);
    let (token, person, medication) = household(&server).await;
    publish_person(&server, &token, person, true).await;
    every_config_on(&broker, person, medication).await;
    broker.stop();
    // The app does not wait for the broker: a dose is answered at once.
    let started = Instant::now();
    let (status, body) = post(
        &server,
        &format!("/api/medications/{medication}/doses"),
        Some(&token),
        json!({ "status": "taken" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(server.logged("lost the broker").await, "{}", server.log());

    // A broker that comes back empty (no persistence) is given everything again.
    broker.run();
    let reader = Reader::connect(&broker).await;
    reader
        .wait_until(20, "configs, states and online after the restart", |l| {
            has_every_config(l, person, medication)
                && l.get("pillbox/status").is_some_and(|m| m.payload == "online")
                && l.get(&format!("pillbox/medication/{medication}/state"))
                    .is_some_and(|m| json_of(m)["stock"] == 29.0)
        })
        .await;
    // Stopping says offline (retained) on the way out.
    let (status, _) = server.terminate();
    assert!(status.success());
    reader
        .wait_until(5, "offline", |l| {
            l.get("pillbox/status").is_some_and(|m| m.payload == "offline")
        })
        .await;
}

#[tokio::test]
async fn a_person_unpublished_while_the_broker_was_away_is_removed_once_it_is_back() {
    let mut broker = Broker::persistent();
    let server = server_for(&broker);
    let (token, person, medication) = household(&server).await;
    publish_person(&server, &token, person, true).await;
    every_config_on(&broker, person, medication).await;
    broker.terminate();
    publish_person(&server, &token, person, false).await;
    broker.run();
    // The broker kept the configs; Pillbox empties them when it reconnects.
    let reader = Reader::connect(&broker).await;
    reader
        .wait_until(20, "the configs emptied", |l| {
            l.get("pillbox/status").is_some_and(|m| m.payload == "online")
                && l.keys().any(|t| t.ends_with("/config"))
                && configs(l).is_empty()
        })
        .await;
    let late = Reader::connect(&broker).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        late.messages().iter().all(|m| m.topic == "pillbox/status"),
        "{:#?}",
        late.messages()
    );
}

#[tokio::test]
async fn a_refused_login_is_reported_by_doctor_and_the_log_without_a_tight_loop() {
    let broker = Broker::with_login("pillbox", "right");
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let doctor = |password: &str| {
        common::pillbox(&data)
            .arg("doctor")
            .env(
                "PILLBOX_MQTT_URL",
                format!("mqtt://pillbox:{password}@127.0.0.1:{}", broker.port),
            )
            .output()
            .unwrap()
    };
    let out = doctor("right");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("mqtt"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.starts_with("ok"), "{text}");
    assert!(line.contains("logged in as pillbox"), "{text}");
    assert!(!text.contains("right"), "the password is never shown: {text}");
    let out = doctor("wrong");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("mqtt"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.starts_with("FAIL"), "{text}");
    assert!(line.contains("refused the login"), "{text}");
    assert!(!out.status.success());

    let url = format!("mqtt://pillbox:wrong@127.0.0.1:{}", broker.port);
    let server = Server::start_with(|c| {
        c.env("PILLBOX_MQTT_URL", url);
    });
    assert!(server.logged("refused the login").await, "{}", server.log());
    tokio::time::sleep(Duration::from_secs(3)).await;
    let refusals = server.log().matches("refused the login").count();
    assert_eq!(refusals, 1, "retried in a tight loop: {}", server.log());
    assert!(!server.log().contains("wrong"), "the password is never logged");
    // The app serves meanwhile.
    let (status, _) = get_json(&server, "/health", None).await;
    assert!(status.is_success() || status == StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn mqtts_checks_the_brokers_certificate_against_the_trusted_roots() {
    let (broker, tls_port) = Broker::with_tls();
    let dir = tempfile::tempdir().unwrap();
    let ours = broker.dir.path().join("cert.pem");
    // Another self-signed certificate stands for the system's roots, which do not know ours.
    let other = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let strangers = dir.path().join("strangers.pem");
    std::fs::write(&strangers, other.cert.pem()).unwrap();
    let url = format!("mqtts://127.0.0.1:{tls_port}");
    // The TLS tunnel's private socket goes to the temporary directory: one of the test's own.
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let tunnels = || -> Vec<PathBuf> {
        std::fs::read_dir(&temp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("pillbox-mqtt-")
            })
            .collect()
    };
    let doctor = |roots: &std::path::Path| {
        common::pillbox(&dir.path().join("data"))
            .arg("doctor")
            .env("PILLBOX_MQTT_URL", &url)
            .env("SSL_CERT_FILE", roots)
            .env("TMPDIR", &temp)
            .output()
            .unwrap()
    };
    let out = doctor(&strangers);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("mqtt"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.starts_with("FAIL"), "{text}");
    assert!(line.to_lowercase().contains("certificate"), "{text}");
    let out = doctor(&ours);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("mqtt"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.starts_with("ok"), "{text}");
    assert!(
        line.contains(&format!("mqtts://127.0.0.1:{tls_port}: connected")),
        "{text}"
    );

    assert!(
        tunnels().is_empty(),
        "doctor leaves no socket behind: {:?}",
        tunnels()
    );

    // The server publishes over TLS; a reader on the plain listener sees it.
    let server = Server::start_with(|c| {
        c.env("PILLBOX_MQTT_URL", &url)
            .env("SSL_CERT_FILE", &ours)
            .env("TMPDIR", &temp);
    });
    let reader = Reader::connect(&broker).await;
    reader
        .wait_until(10, "online over mqtts", |l| {
            l.get("pillbox/status").is_some_and(|m| m.payload == "online")
        })
        .await;

    // The client reaches the tunnel by a socket only Pillbox's own user can open, and the
    // tunnel carries nothing for another process: a CONNECT from here gets no answer.
    let found = tunnels();
    assert_eq!(found.len(), 1, "{found:?}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&found[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the tunnel's directory is private");
    let mut stranger = std::os::unix::net::UnixStream::connect(found[0].join("broker.sock")).unwrap();
    stranger.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    use std::io::{Read, Write};
    // MQTT 3.1.1 CONNECT, client id "x", clean session, keep-alive 30 s.
    let connect = [0x10, 13, 0, 4, b'M', b'Q', b'T', b'T', 4, 2, 0, 30, 0, 1, b'x'];
    let _ = stranger.write_all(&connect);
    let mut answer = [0u8; 4];
    assert_eq!(
        stranger.read(&mut answer).unwrap_or(0),
        0,
        "a stranger got an answer"
    );
    assert!(
        server
            .logged("refused a connection to the TLS tunnel from another process")
            .await,
        "{}",
        server.log()
    );
    drop(server);
}

/// Without `mqtt.url` the choice is kept but the person's view says nothing is published, so
/// the screen does not claim the person is shown in Home Assistant.
#[tokio::test]
async fn without_a_broker_the_choice_is_kept_and_the_view_says_nothing_is_published() {
    let server = Server::start();
    let (token, person, _) = household(&server).await;
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/people/{person}"),
        Some(&token),
        Some(json!({ "home_assistant": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["home_assistant"], true, "{body}");
    assert_eq!(body["data"]["home_assistant_available"], false, "{body}");
    let (_, listed) = get_json(&server, "/api/people", Some(&token)).await;
    let listed = listed["data"].as_array().unwrap();
    assert!(
        listed.iter().all(|p| p["home_assistant_available"] == false),
        "{listed:?}"
    );
}

#[test]
fn a_malformed_mqtt_url_stops_serve_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::pillbox(&dir.path().join("data"))
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("PILLBOX_MQTT_URL", "http://broker.lan:1883")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("mqtt.url"), "{text}");
}

/// The blueprint in examples/home-assistant reads what Pillbox publishes: the event entity's
/// `reminder` with `medication` and `medication_id`, and the Take button's command topic
/// and payload.
#[test]
fn the_blueprint_uses_the_event_and_the_button_pillbox_publishes() {
    let blueprint = include_str!("../examples/home-assistant/pillbox_reminder_notification.yaml");
    for needed in [
        "domain: automation",
        "attributes.event_type == 'reminder'",
        "trigger.to_state.attributes.medication }}",
        "trigger.to_state.attributes.medication_id",
        "topic: \"{{ base_topic }}/medication/{{ medication_id }}/take\"",
        "payload: PRESS",
        "default: pillbox",
        "event_type: mobile_app_notification_action",
    ] {
        assert!(blueprint.contains(needed), "the blueprint lacks {needed}");
    }
}
