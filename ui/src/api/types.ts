/** The signed-in person, as GET /api/auth/me describes them. */
export interface User {
  id: number | string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  created_at?: string;
}

/** A token and the user it belongs to, as login and registration return them. */
export interface AuthSession {
  token: string;
  user: User;
}

export type RegisterResult =
  | { kind: 'signedIn'; session: AuthSession }
  | { kind: 'verificationRequired'; user: User };
