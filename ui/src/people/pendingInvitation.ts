// An invitation opened while signed out: kept on this device through sign-in, registration
// and e-mail verification, so the person comes back to it afterwards.
const STORAGE_KEY = 'pillbox_invitation';
const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

export function rememberInvitation(token: string): void {
  if (!TOKEN.test(token)) return;
  try {
    localStorage.setItem(STORAGE_KEY, token);
  } catch {
    // Storage blocked: the link in the e-mail still works after signing in.
  }
}

export function forgetInvitation(): void {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was kept.
  }
}

/** The invitation waiting on this device, if any: registering sends it, since on a server
 *  whose sign-ups closed after the first account only an invitation's link opens them. */
export function keptInvitation(): string | null {
  try {
    const token = localStorage.getItem(STORAGE_KEY);
    return token !== null && TOKEN.test(token) ? token : null;
  } catch {
    return null;
  }
}

/** Where to go after signing in: the invitation waiting, else the page that sent the person
 *  to sign in (`from`, a path of this app), else the medications. */
export function pathAfterSignIn(from?: string): string {
  const token = keptInvitation();
  if (token !== null) return `/invite/${token}`;
  const inApp =
    from !== undefined && from.startsWith('/') && !/^\/[/\\]/.test(from) && !from.startsWith('/login');
  return inApp ? from : '/medications';
}
