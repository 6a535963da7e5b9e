import { afterEach, describe, expect, it, vi } from 'vitest';
import { getMe, getTwoFactorStatus, getVersion, login, register, setUnauthorizedHandler } from '.';
import { jsonResponse, mockFetch, sentJson } from '../test/fetchMock';

function setApiBase(content: string | null) {
  document.querySelector('meta[name="pillbox-api-base"]')?.remove();
  if (content === null) return;
  const meta = document.createElement('meta');
  meta.name = 'pillbox-api-base';
  meta.content = content;
  document.head.appendChild(meta);
}

function headersOf(fetchMock: ReturnType<typeof mockFetch>, call = 0): Record<string, string> {
  const init = fetchMock.mock.calls[call]?.[1];
  return (init?.headers ?? {}) as Record<string, string>;
}

afterEach(() => setApiBase(null));

describe('API client errors', () => {
  it('reports the status when a failed response has no body', async () => {
    mockFetch({ 'GET /api/version': () => new Response(null, { status: 500 }) });
    await expect(getVersion()).rejects.toThrow('HTTP error! status: 500');
  });

  it('uses the server message when the error body has one', async () => {
    mockFetch({
      'POST /api/auth/login': () =>
        jsonResponse({ success: false, code: 'invalid_credentials', message: 'Invalid email or password' }, 401),
    });
    await expect(login('a@example.com', 'wrong')).rejects.toThrow('Invalid email or password');
  });

  it('says "Network error occurred" when the request cannot be made', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(getVersion()).rejects.toThrow('Network error occurred');
  });
});

describe('API client requests', () => {
  it('sends a bearer token only when one is stored', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': () => jsonResponse({ success: true, data: { version: '1.2.3' } }),
    });
    await getVersion();
    expect(headersOf(fetchMock, 0).Authorization).toBeUndefined();

    localStorage.setItem('token', 'abc.def');
    await getVersion();
    expect(headersOf(fetchMock, 1).Authorization).toBe('Bearer abc.def');
  });

  it('sends JSON bodies', async () => {
    const fetchMock = mockFetch({
      'POST /api/auth/login': () =>
        jsonResponse({ success: true, data: { token: 't', user: { id: 1, email: 'a@example.com' } } }),
    });
    await login('a@example.com', 'secret1');
    const init = fetchMock.mock.calls[0]?.[1];
    expect(headersOf(fetchMock)['Content-Type']).toBe('application/json');
    expect(sentJson(init)).toEqual({ email: 'a@example.com', password: 'secret1' });
  });

  it('uses the same origin when the base URL meta tag is empty or missing', async () => {
    const fetchMock = mockFetch({
      'GET /api/version': () => jsonResponse({ success: true, data: { version: '1' } }),
    });
    await getVersion();
    setApiBase('');
    await getVersion();
    expect(fetchMock.mock.calls.map((call) => call[0])).toEqual(['/api/version', '/api/version']);
  });

  it('takes the base URL from the pillbox-api-base meta tag', async () => {
    setApiBase('https://pillbox.example.org/');
    const fetchMock = mockFetch({
      'GET /api/version': () => jsonResponse({ success: true, data: { version: '1' } }),
    });
    await getVersion();
    expect(fetchMock.mock.calls[0]?.[0]).toBe('https://pillbox.example.org/api/version');
  });
});

describe('a refused session', () => {
  it('is reported when a signed-in call answers 401, not when a sign-in does', async () => {
    const onUnauthorized = vi.fn();
    setUnauthorizedHandler(onUnauthorized);
    localStorage.setItem('token', 'old-token');
    const fetchMock = mockFetch({
      'POST /api/auth/login': () => jsonResponse({ success: false, code: 'invalid_credentials', message: 'Invalid email or password' }, 401),
      'GET /api/auth/2fa/status': () => jsonResponse({ success: false, code: 'session_expired', message: 'Invalid or expired session' }, 401),
    });
    try {
      await expect(login('a@example.com', 'wrong')).rejects.toThrow('Invalid email or password');
      // Sign-in calls carry no bearer token and say nothing about the session.
      expect(headersOf(fetchMock, 0).Authorization).toBeUndefined();
      expect(onUnauthorized).not.toHaveBeenCalled();

      await expect(getTwoFactorStatus()).rejects.toThrow('Invalid or expired session');
      expect(onUnauthorized).toHaveBeenCalledTimes(1);
    } finally {
      setUnauthorizedHandler(null);
    }
  });

  it('is not reported when the token was replaced while the call was under way', async () => {
    const onUnauthorized = vi.fn();
    setUnauthorizedHandler(onUnauthorized);
    localStorage.setItem('token', 'old-token');
    mockFetch({
      'GET /api/auth/2fa/status': () => {
        localStorage.setItem('token', 'new-token');
        return jsonResponse({ success: false, code: 'session_expired', message: 'Invalid or expired session' }, 401);
      },
    });
    try {
      await expect(getTwoFactorStatus()).rejects.toThrow();
      expect(onUnauthorized).not.toHaveBeenCalled();
    } finally {
      setUnauthorizedHandler(null);
    }
  });
});

describe('typed calls', () => {
  it('getVersion returns data.version', async () => {
    mockFetch({
      'GET /api/version': () => jsonResponse({ success: true, data: { version: '0.4.1' } }),
    });
    await expect(getVersion()).resolves.toBe('0.4.1');
  });

  it('getMe returns the profile in data', async () => {
    const user = { id: 7, email: 'sam@example.com', firstName: 'Sam', lastName: null };
    mockFetch({ 'GET /api/auth/me': () => jsonResponse({ success: true, data: user }) });
    await expect(getMe()).resolves.toMatchObject(user);
  });

  it('fails an OK answer without the body the document promises', async () => {
    mockFetch({ 'GET /api/auth/me': () => new Response(null, { status: 200 }) });
    await expect(getMe()).rejects.toThrow("The server's answer has no body");
  });

  it('login returns the user and token in data', async () => {
    const user = { id: 'u1', email: 'a@example.com' };
    mockFetch({ 'POST /api/auth/login': () => jsonResponse({ success: true, data: { user, token: 'tok' } }) });
    await expect(login('a@example.com', 'pw')).resolves.toEqual({ user, token: 'tok' });
  });

  it('register tells when e-mail verification is required', async () => {
    const user = { id: 3, email: 'new@example.com' };
    mockFetch({
      'POST /api/auth/register': () =>
        jsonResponse({ success: true, data: { user, requiresEmailVerification: true } }, 201),
    });
    await expect(register('new@example.com', 'secret1', 'en')).resolves.toEqual({
      kind: 'verificationRequired',
      user,
    });

    mockFetch({
      'POST /api/auth/register': () => jsonResponse({ success: true, data: { user, token: 'x' } }, 201),
    });
    await expect(register('new@example.com', 'secret1', 'en')).resolves.toEqual({
      kind: 'signedIn',
      session: { user, token: 'x' },
    });
  });

  it('register sends the page\'s language, and the invitation kept on this device, which opens closed sign-ups', async () => {
    const user = { id: 4, email: 'kim@example.com' };
    const respond = () => jsonResponse({ success: true, data: { user, token: 'x' } }, 201);
    let fetchMock = mockFetch({ 'POST /api/auth/register': respond });
    await register('kim@example.com', 'secret1', 'de');
    expect(sentJson(fetchMock.mock.calls[0]?.[1])).toEqual({ email: 'kim@example.com', password: 'secret1', language: 'de' });

    localStorage.setItem('pillbox_invitation', 'tok_123');
    fetchMock = mockFetch({ 'POST /api/auth/register': respond });
    await register('kim@example.com', 'secret1', 'de');
    expect(sentJson(fetchMock.mock.calls[0]?.[1])).toEqual({
      email: 'kim@example.com',
      password: 'secret1',
      language: 'de',
      invitation: 'tok_123',
    });
    localStorage.removeItem('pillbox_invitation');
  });
});
