// The browser's side of a passkey ceremony: the server's options (JSON, binary fields in
// unpadded base64url) become the ArrayBuffers navigator.credentials wants, and its answer
// becomes JSON again. What the browser refuses is told apart, so the screens can say it.

import { PasskeyCeremonyError, type PasskeyProblem } from './passkeyCeremonyError';

export { PasskeyCeremonyError, type PasskeyProblem } from './passkeyCeremonyError';

type Json = Record<string, unknown>;

/** Whether this page can use passkeys at all (a secure context with WebAuthn). */
export function passkeysSupported(): boolean {
  return window.isSecureContext && 'PublicKeyCredential' in window && 'credentials' in navigator;
}

export function fromBase64Url(text: string): ArrayBuffer {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

export function toBase64Url(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new PasskeyCeremonyError('failed');
  return value;
}

function descriptors(list: unknown): PublicKeyCredentialDescriptor[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((item: Json) => ({ ...item, id: fromBase64Url(text(item.id)) }) as PublicKeyCredentialDescriptor);
}

/** The server's creation options as navigator.credentials.create() takes them. */
export function creationOptions(json: Json): PublicKeyCredentialCreationOptions {
  const user = json.user as Json;
  return {
    ...json,
    challenge: fromBase64Url(text(json.challenge)),
    user: { ...user, id: fromBase64Url(text(user.id)) },
    excludeCredentials: descriptors(json.excludeCredentials),
  } as unknown as PublicKeyCredentialCreationOptions;
}

/** The server's request options as navigator.credentials.get() takes them. */
export function requestOptions(json: Json): PublicKeyCredentialRequestOptions {
  return {
    ...json,
    challenge: fromBase64Url(text(json.challenge)),
    allowCredentials: descriptors(json.allowCredentials),
  };
}

function problemOf(error: unknown): PasskeyProblem {
  if (error instanceof PasskeyCeremonyError) return error.problem;
  // A DOMException (not an Error everywhere): its name says why.
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return 'cancelled';
  if (name === 'InvalidStateError') return 'exists';
  if (name === 'NotSupportedError' || name === 'SecurityError') return 'unsupported';
  return 'failed';
}

async function ask<T>(call: () => Promise<Credential | null>, read: (credential: PublicKeyCredential) => T): Promise<T> {
  if (!passkeysSupported()) throw new PasskeyCeremonyError('unsupported');
  let credential: Credential | null;
  try {
    credential = await call();
  } catch (error) {
    throw new PasskeyCeremonyError(problemOf(error), error);
  }
  if (credential === null) throw new PasskeyCeremonyError('cancelled');
  return read(credential as PublicKeyCredential);
}

/** navigator.credentials.create() for the server's options: the new credential as JSON. */
export function createPasskey(options: Json): Promise<Json> {
  const publicKey = creationOptions(options);
  return ask(
    () => navigator.credentials.create({ publicKey }),
    (credential) => {
      const response = credential.response as AuthenticatorAttestationResponse;
      return {
        id: credential.id,
        rawId: toBase64Url(credential.rawId),
        type: credential.type,
        response: {
          attestationObject: toBase64Url(response.attestationObject),
          clientDataJSON: toBase64Url(response.clientDataJSON),
        },
        extensions: {},
      };
    },
  );
}

/** navigator.credentials.get() for the server's options: the assertion as JSON. */
export function getPasskey(options: Json): Promise<Json> {
  const publicKey = requestOptions(options);
  return ask(
    () => navigator.credentials.get({ publicKey }),
    (credential) => {
      const response = credential.response as AuthenticatorAssertionResponse;
      return {
        id: credential.id,
        rawId: toBase64Url(credential.rawId),
        type: credential.type,
        response: {
          authenticatorData: toBase64Url(response.authenticatorData),
          clientDataJSON: toBase64Url(response.clientDataJSON),
          signature: toBase64Url(response.signature),
          ...(response.userHandle ? { userHandle: toBase64Url(response.userHandle) } : {}),
        },
        extensions: {},
      };
    },
  );
}
