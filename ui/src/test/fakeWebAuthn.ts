// A browser with WebAuthn for jsdom, which has none: navigator.credentials answers with the
// ArrayBuffers a real authenticator would give (their bytes chosen by the test), or refuses
// as a browser does when the person cancels.
import { vi } from 'vitest';

export const bytes = (...values: number[]) => new Uint8Array(values).buffer;

/** What `create` and `get` were called with, and the mocks to change their answers. */
export function fakeWebAuthn() {
  const create = vi.fn((options?: CredentialCreationOptions) =>
    Promise.resolve({
      id: 'AQID',
      rawId: bytes(1, 2, 3),
      type: 'public-key',
      response: { attestationObject: bytes(4, 5), clientDataJSON: bytes(6, 7) },
      options,
    } as unknown as Credential),
  );
  const get = vi.fn((options?: CredentialRequestOptions) =>
    Promise.resolve({
      id: 'AQID',
      rawId: bytes(1, 2, 3),
      type: 'public-key',
      response: {
        authenticatorData: bytes(8),
        clientDataJSON: bytes(9),
        signature: bytes(10, 11),
        userHandle: bytes(12, 13, 14),
      },
      options,
    } as unknown as Credential),
  );
  Object.defineProperty(window, 'isSecureContext', { value: true, configurable: true });
  Object.defineProperty(window, 'PublicKeyCredential', { value: function PublicKeyCredential() {}, configurable: true });
  Object.defineProperty(navigator, 'credentials', { value: { create, get }, configurable: true });
  return { create, get };
}

/** The browser's refusal when the person cancels the prompt or it times out. */
export const cancelled = () => new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');

/** Takes the fake away again (test files share one window: `isolate: false`). */
export function removeFakeWebAuthn() {
  for (const [target, name] of [
    [window, 'isSecureContext'],
    [window, 'PublicKeyCredential'],
    [navigator, 'credentials'],
  ] as const) {
    Reflect.deleteProperty(target, name);
  }
}
