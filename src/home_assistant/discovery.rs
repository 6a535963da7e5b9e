//! The messages Home Assistant's MQTT discovery reads, built from what
//! `services::home_assistant` answers: a retained config per entity at
//! `<prefix>/<component>/<node_id>/<object_id>/config`, the retained states they point at, and
//! the event entity's messages. Topic levels are built from ids only, never from names.
//!
//! The payloads use the documented full key names (no abbreviations), a `unique_id` on every
//! entity, the person's device (one per person) and an `origin` block, and the availability
//! topic that the client's will sets to `offline`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::services::home_assistant::{Event, Published, States};

/// Where the messages go.
#[derive(Debug, Clone)]
pub struct Topics {
    /// `mqtt.discovery_prefix`.
    pub prefix: String,
    /// `mqtt.base_topic`.
    pub base: String,
    /// `mqtt.base_topic` as a node id (`[a-zA-Z0-9_-]`): each person's node id is this and
    /// the person's id, and every unique id starts with that.
    pub node: String,
}

impl Topics {
    pub fn new(prefix: &str, base: &str) -> Topics {
        let node = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Topics {
            prefix: prefix.to_owned(),
            base: base.to_owned(),
            node,
        }
    }

    /// Pillbox's availability: `online` while connected, `offline` by the will.
    pub fn availability(&self) -> String {
        format!("{}/status", self.base)
    }

    /// Home Assistant's birth and will messages.
    pub fn home_assistant_status(&self) -> String {
        format!("{}/status", self.prefix)
    }

    fn person_node(&self, person_id: i64) -> String {
        format!("{}_{person_id}", self.node)
    }

    fn config(&self, component: &str, person_id: i64, object_id: &str) -> String {
        format!(
            "{}/{component}/{}/{object_id}/config",
            self.prefix,
            self.person_node(person_id)
        )
    }

    pub fn person_state(&self, person_id: i64) -> String {
        format!("{}/person/{person_id}/state", self.base)
    }

    fn next_dose_attributes(&self, person_id: i64) -> String {
        format!("{}/person/{person_id}/next_dose", self.base)
    }

    pub fn person_events(&self, person_id: i64) -> String {
        format!("{}/person/{person_id}/event", self.base)
    }

    pub fn medication_state(&self, medication_id: i64) -> String {
        format!("{}/medication/{medication_id}/state", self.base)
    }

    /// A button's command topic (`take` or `skip`).
    pub fn command(&self, medication_id: i64, button: &str) -> String {
        format!("{}/medication/{medication_id}/{button}", self.base)
    }

    /// The filters that catch every button's commands.
    pub fn command_filters(&self) -> [String; 2] {
        [
            format!("{}/medication/+/take", self.base),
            format!("{}/medication/+/skip", self.base),
        ]
    }

    /// The medication and button a command topic names, if it is one of ours.
    pub fn parse_command(&self, topic: &str) -> Option<(i64, &'static str)> {
        let rest = topic.strip_prefix(&self.base)?.strip_prefix("/medication/")?;
        let (id, button) = rest.split_once('/')?;
        // Only the canonical spelling of an id: `09` is not medication 9.
        let id = id.parse::<i64>().ok().filter(|n| *n > 0 && n.to_string() == id)?;
        match button {
            "take" => Some((id, "take")),
            "skip" => Some((id, "skip")),
            _ => None,
        }
    }
}

/// What every config says of the app it comes from.
#[derive(Debug, Clone)]
pub struct App {
    pub version: String,
    /// The app's address (`public_url`), the device's `configuration_url`.
    pub url: String,
}

/// The button payload Home Assistant sends (its default `payload_press`).
pub const PRESS: &str = "PRESS";

/// The `event_types` of the person's event entity.
pub const EVENT_TYPES: [&str; 4] = ["taken", "skipped", "missed", "reminder"];

/// Every discovery config of a published person, by topic.
pub fn configs(topics: &Topics, app: &App, person: &Published) -> BTreeMap<String, String> {
    let pid = person.person_id;
    let node = topics.person_node(pid);
    let device = json!({
        "identifiers": [node],
        "name": person.name,
        "manufacturer": "Pillbox",
        "model": "Pillbox",
        "sw_version": app.version,
        "configuration_url": app.url,
    });
    let origin = json!({
        "name": "Pillbox",
        "sw_version": app.version,
        "support_url": "https://github.com/pillbox-app/pillbox",
    });
    let entity = |object_id: &str, name: &str, extra: Value| -> Value {
        let mut config = json!({
            "name": name,
            "unique_id": format!("{node}_{object_id}"),
            "availability_topic": topics.availability(),
            "payload_available": "online",
            "payload_not_available": "offline",
            "device": device,
            "origin": origin,
        });
        if let (Value::Object(config), Value::Object(extra)) = (&mut config, extra) {
            config.extend(extra);
        }
        config
    };
    let state = topics.person_state(pid);
    let mut out = BTreeMap::new();
    let mut put = |component: &str, object_id: &str, config: Value| {
        out.insert(topics.config(component, pid, object_id), config.to_string());
    };
    put(
        "sensor",
        "next_dose",
        entity(
            "next_dose",
            "Next dose",
            json!({
                "state_topic": state,
                "value_template": "{{ value_json.next_dose }}",
                "device_class": "timestamp",
                "json_attributes_topic": topics.next_dose_attributes(pid),
                "icon": "mdi:pill",
            }),
        ),
    );
    put(
        "sensor",
        "last_taken",
        entity(
            "last_taken",
            "Last taken",
            json!({
                "state_topic": state,
                "value_template": "{{ value_json.last_taken }}",
                "device_class": "timestamp",
                "icon": "mdi:check-circle-outline",
            }),
        ),
    );
    put(
        "binary_sensor",
        "dose_due",
        entity(
            "dose_due",
            "Dose due now",
            json!({
                "state_topic": state,
                "value_template": "{{ value_json.dose_due }}",
                "payload_on": "ON",
                "payload_off": "OFF",
                "icon": "mdi:alarm",
            }),
        ),
    );
    put(
        "sensor",
        "missed_today",
        entity(
            "missed_today",
            "Doses missed today",
            json!({
                "state_topic": state,
                "value_template": "{{ value_json.missed_today }}",
                "state_class": "measurement",
                "icon": "mdi:alert-circle-outline",
            }),
        ),
    );
    put(
        "sensor",
        "adherence_7d",
        entity(
            "adherence_7d",
            "Adherence 7 days",
            json!({
                "state_topic": state,
                "value_template": "{{ value_json.adherence_7d }}",
                "unit_of_measurement": "%",
                "state_class": "measurement",
                "icon": "mdi:chart-line",
            }),
        ),
    );
    put(
        "event",
        "doses",
        entity(
            "doses",
            "Doses",
            json!({
                "state_topic": topics.person_events(pid),
                "event_types": EVENT_TYPES,
                "icon": "mdi:pill",
            }),
        ),
    );
    for m in &person.medications {
        let mid = m.id;
        let med_state = topics.medication_state(mid);
        if let Some(unit) = &m.stock_unit {
            put(
                "sensor",
                &format!("medication_{mid}_stock"),
                entity(
                    &format!("medication_{mid}_stock"),
                    &format!("{} stock left", m.label),
                    json!({
                        "state_topic": med_state,
                        "value_template": "{{ value_json.stock }}",
                        "unit_of_measurement": unit,
                        "state_class": "measurement",
                        "icon": "mdi:package-variant",
                    }),
                ),
            );
            put(
                "sensor",
                &format!("medication_{mid}_days_left"),
                entity(
                    &format!("medication_{mid}_days_left"),
                    &format!("{} days of stock left", m.label),
                    json!({
                        "state_topic": med_state,
                        "value_template": "{{ value_json.days_left }}",
                        "device_class": "duration",
                        "unit_of_measurement": "d",
                        "state_class": "measurement",
                    }),
                ),
            );
            put(
                "binary_sensor",
                &format!("medication_{mid}_low_stock"),
                entity(
                    &format!("medication_{mid}_low_stock"),
                    &format!("{} low stock", m.label),
                    json!({
                        "state_topic": med_state,
                        "value_template": "{{ value_json.low_stock }}",
                        "payload_on": "ON",
                        "payload_off": "OFF",
                        "device_class": "problem",
                    }),
                ),
            );
        }
        for (button, name, icon) in [
            ("take", "take dose", "mdi:check"),
            ("skip", "skip dose", "mdi:debug-step-over"),
        ] {
            put(
                "button",
                &format!("medication_{mid}_{button}"),
                entity(
                    &format!("medication_{mid}_{button}"),
                    &format!("{} {name}", m.label),
                    json!({
                        "command_topic": topics.command(mid, button),
                        "payload_press": PRESS,
                        "qos": 1,
                        "icon": icon,
                    }),
                ),
            );
        }
    }
    out
}

/// The retained states of a published person and their medications, by topic.
pub fn states(topics: &Topics, person: &Published, states: &States) -> BTreeMap<String, String> {
    let pid = person.person_id;
    let on_off = |on: bool| if on { "ON" } else { "OFF" };
    let mut out = BTreeMap::new();
    out.insert(
        topics.person_state(pid),
        json!({
            "next_dose": states.next_dose.as_ref().map(|n| n.at.to_string()),
            "last_taken": states.last_taken.as_ref().map(ToString::to_string),
            "dose_due": on_off(states.due_now),
            "missed_today": states.missed_today,
            "adherence_7d": states.adherence_7d,
        })
        .to_string(),
    );
    out.insert(
        topics.next_dose_attributes(pid),
        json!({
            "medication": states.next_dose.as_ref().map(|n| n.medication.clone()),
            "amount": states.next_dose.as_ref().map(|n| n.amount.clone()),
        })
        .to_string(),
    );
    for stock in &states.stock {
        out.insert(
            topics.medication_state(stock.medication_id),
            json!({
                "stock": stock.left,
                "days_left": stock.days_left,
                "low_stock": on_off(stock.low),
            })
            .to_string(),
        );
    }
    out
}

/// An event entity's message: `event_type` and the medication as attributes.
pub fn event(topics: &Topics, event: &Event) -> (String, String) {
    (
        topics.person_events(event.person_id),
        json!({
            "event_type": event.kind.as_str(),
            "medication": event.medication,
            "medication_id": event.medication_id,
            "at": event.at.to_string(),
        })
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::home_assistant::ShownMedication;

    fn dad() -> Published {
        Published {
            person_id: 4,
            owner_id: 1,
            name: "Dad".into(),
            medications: vec![ShownMedication {
                id: 9,
                label: "Medication 1".into(),
                stock_unit: Some("tablet".into()),
            }],
        }
    }

    #[test]
    fn topics_are_built_from_ids_and_commands_parse_only_our_own() {
        let topics = Topics::new("homeassistant", "home/pillbox");
        assert_eq!(topics.node, "home_pillbox");
        let app = App {
            version: "1.0".into(),
            url: "https://pills.example".into(),
        };
        let configs = configs(&topics, &app, &dad());
        assert!(configs.contains_key("homeassistant/sensor/home_pillbox_4/next_dose/config"));
        assert!(configs.contains_key("homeassistant/button/home_pillbox_4/medication_9_take/config"));
        assert!(
            configs
                .keys()
                .all(|t| !t.contains("Dad") && !t.contains("Medication"))
        );
        for config in configs.values() {
            let config: Value = serde_json::from_str(config).unwrap();
            assert!(
                config["unique_id"]
                    .as_str()
                    .unwrap()
                    .starts_with("home_pillbox_4_")
            );
        }
        assert_eq!(
            topics.parse_command("home/pillbox/medication/9/take"),
            Some((9, "take"))
        );
        for foreign in [
            "home/pillbox/medication/09/take",
            "home/pillbox/medication/x/take",
            "home/pillbox/medication/9/press",
            "other/medication/9/take",
            "home/pillbox/medication/-1/skip",
        ] {
            assert_eq!(topics.parse_command(foreign), None, "{foreign}");
        }
    }
}
