// What the signed-in screens need to appear, as data both the app and its build read: App.tsx
// (which screen a route opens, and which texts come with it) and vite.config.ts (whose
// start-up script fetches a signed-in start's screen, frame and English texts while the app's
// own code downloads). No imports: the build's config loads this file on its own.

/** The app's namespaces and the folder of each one's `{en,es,fr,de}.json`. */
export const NAMESPACE_FOLDERS = {
  translation: 'locales',
  meds: 'medications',
  notify: 'notify',
  notifyPrefs: 'notifyPrefs',
  data: 'data',
  circle: 'circle',
  // Settings → Security's cards of passkeys, API tokens and linked sign-ins: with Settings,
  // not in the shell every first screen downloads.
  security: 'security',
  // A medication's prescription (its form section and its card's line): with the Medications
  // screen, not with Today.
  prescriptions: 'prescriptions',
} as const;

export type Namespace = keyof typeof NAMESPACE_FOLDERS;

const MEDS = ['meds', 'circle'] as const satisfies readonly Namespace[];
const REMINDERS = [...MEDS, 'notify', 'notifyPrefs'] as const satisfies readonly Namespace[];

/**
 * The namespaces each screen's code uses beyond the shell's, fetched with it (`screens/` by
 * file name): the first screen downloads only what it shows, and no part of it waits for its
 * texts after it appears.
 */
export const SCREEN_TEXTS = {
  LoginScreen: [],
  RegisterScreen: [],
  ForgotPasswordScreen: [],
  ResetPasswordScreen: [],
  EmailConfirmationScreen: [],
  VerifyEmailScreen: [],
  PrivacyPolicyScreen: ['data'],
  InvitationScreen: MEDS,
  TakeDoseRoute: [...MEDS, 'notify'],
  SignedInLayout: MEDS,
  MedicationsScreen: [...REMINDERS, 'prescriptions'],
  TodayScreen: MEDS,
  NotificationsScreen: REMINDERS,
  HistoryScreen: MEDS,
  PeopleScreen: MEDS,
  PersonScreen: MEDS,
  SettingsScreen: [...REMINDERS, 'data', 'security'],
  ReportScreen: ['meds', 'data'],
} as const satisfies Record<string, readonly Namespace[]>;

export type ScreenName = keyof typeof SCREEN_TEXTS;

/** The signed-in screens by the route that opens them (spec §2), inside the signed-in frame. */
export const SIGNED_IN_ROUTES = {
  '/': 'MedicationsScreen',
  '/medications': 'MedicationsScreen',
  '/today': 'TodayScreen',
  '/notifications': 'NotificationsScreen',
  '/history': 'HistoryScreen',
  '/people': 'PeopleScreen',
  '/people/:personId': 'PersonScreen',
  '/settings': 'SettingsScreen',
  '/report': 'ReportScreen',
} as const satisfies Record<string, ScreenName>;

/** The frame around every signed-in screen (sidebar, top bar), fetched with the first one. */
export const SIGNED_IN_FRAME: ScreenName = 'SignedInLayout';
