//! A software passkey authenticator for the tests, written here from the WebAuthn and CTAP2
//! specifications (not from the server's code): an ES256 (P-256) key, real CBOR and COSE,
//! `none` attestation, and signatures the server checks like a browser's. What a browser adds
//! (the client data with the challenge and origin) it makes too, so a test can answer with
//! another origin or another challenge.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{DerSignature, SigningKey};
use rand_core::{OsRng, RngCore};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Flags of the authenticator data: user present, user verified, attested credential data.
const UP: u8 = 0x01;
const UV: u8 = 0x04;
const AT: u8 = 0x40;

pub struct Authenticator {
    key: SigningKey,
    pub credential_id: Vec<u8>,
    /// The user handle the relying party gave at creation (kept: a discoverable credential).
    pub user_handle: Vec<u8>,
    rp_id: String,
    /// The signature counter: raised before each assertion.
    pub counter: u32,
    /// Whether the user is verified (a PIN or a fingerprint) at each use.
    pub verifies_user: bool,
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(text: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .unwrap_or_else(|e| panic!("{text:?} is not base64url: {e}"))
}

impl Authenticator {
    pub fn new(rp_id: &str) -> Authenticator {
        let mut credential_id = vec![0u8; 16];
        OsRng.fill_bytes(&mut credential_id);
        Authenticator {
            key: SigningKey::random(&mut OsRng),
            credential_id,
            user_handle: Vec::new(),
            rp_id: rp_id.to_owned(),
            counter: 0,
            verifies_user: true,
        }
    }

    fn flags(&self) -> u8 {
        if self.verifies_user { UP | UV } else { UP }
    }

    fn client_data(kind: &str, challenge: &str, origin: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "type": kind,
            "challenge": challenge,
            "origin": origin,
            "crossOrigin": false,
        }))
        .unwrap()
    }

    /// `navigator.credentials.create()` for `options` (the server's `publicKey`), as the page at
    /// `origin` would call it: the credential as JSON.
    pub fn create(&mut self, options: &Value, origin: &str) -> Value {
        let challenge = options["challenge"].as_str().expect("a challenge");
        assert_eq!(
            options["rp"]["id"].as_str(),
            Some(self.rp_id.as_str()),
            "the relying party is the public_url's host"
        );
        self.user_handle = unb64(options["user"]["id"].as_str().expect("a user handle"));
        let client_data = Self::client_data("webauthn.create", challenge, origin);
        let point = self.key.verifying_key().to_encoded_point(false);
        let mut cose = Cbor::default();
        cose.map(5);
        cose.int(1).int(2); // kty: EC2
        cose.int(3).int(-7); // alg: ES256
        cose.int(-1).int(1); // crv: P-256
        cose.int(-2).bytes(point.x().unwrap());
        cose.int(-3).bytes(point.y().unwrap());
        let mut auth_data = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        auth_data.push(self.flags() | AT);
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        auth_data.extend_from_slice(&[0u8; 16]); // AAGUID
        auth_data.extend_from_slice(&(self.credential_id.len() as u16).to_be_bytes());
        auth_data.extend_from_slice(&self.credential_id);
        auth_data.extend_from_slice(&cose.0);
        let mut attestation = Cbor::default();
        attestation.map(3);
        attestation.text("fmt").text("none");
        attestation.text("attStmt").map(0);
        attestation.text("authData").bytes(&auth_data);
        json!({
            "id": b64(&self.credential_id),
            "rawId": b64(&self.credential_id),
            "type": "public-key",
            "response": {
                "attestationObject": b64(&attestation.0),
                "clientDataJSON": b64(&client_data),
            },
            "extensions": {},
        })
    }

    /// `navigator.credentials.get()` for `options`, as the page at `origin` would call it.
    pub fn get(&mut self, options: &Value, origin: &str) -> Value {
        let challenge = options["challenge"].as_str().expect("a challenge");
        self.assert_for(challenge, origin)
    }

    /// An assertion over `challenge` (base64url) from `origin`.
    pub fn assert_for(&mut self, challenge: &str, origin: &str) -> Value {
        self.counter += 1;
        let client_data = Self::client_data("webauthn.get", challenge, origin);
        let mut auth_data = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        auth_data.push(self.flags());
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&Sha256::digest(&client_data));
        let signature: DerSignature = self.key.sign(&signed);
        json!({
            "id": b64(&self.credential_id),
            "rawId": b64(&self.credential_id),
            "type": "public-key",
            "response": {
                "authenticatorData": b64(&auth_data),
                "clientDataJSON": b64(&client_data),
                "signature": b64(signature.as_bytes()),
                "userHandle": b64(&self.user_handle),
            },
            "extensions": {},
        })
    }
}

/// Just enough CBOR (RFC 8949) for an attestation object and a COSE key.
#[derive(Default)]
struct Cbor(Vec<u8>);

impl Cbor {
    fn head(&mut self, major: u8, n: u64) -> &mut Self {
        let major = major << 5;
        match n {
            0..=23 => self.0.push(major | n as u8),
            24..=0xff => self.0.extend_from_slice(&[major | 24, n as u8]),
            0x100..=0xffff => {
                self.0.push(major | 25);
                self.0.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                self.0.push(major | 26);
                self.0.extend_from_slice(&(n as u32).to_be_bytes());
            }
        }
        self
    }

    fn int(&mut self, n: i64) -> &mut Self {
        if n >= 0 {
            self.head(0, n as u64)
        } else {
            self.head(1, (-1 - n) as u64)
        }
    }

    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.head(2, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }

    fn text(&mut self, t: &str) -> &mut Self {
        self.head(3, t.len() as u64);
        self.0.extend_from_slice(t.as_bytes());
        self
    }

    fn map(&mut self, pairs: u64) -> &mut Self {
        self.head(5, pairs)
    }
}
