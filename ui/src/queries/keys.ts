// Stable query keys. A key's first part names the resource, so invalidating that prefix
// reaches every view of it (a medication's inventory and ledger sit under "medications").
import type { ReportPeriod } from '../api/data';

export const queryKeys = {
  medications: ['medications'] as const,
  /** Every medication list; one per person scope below it. */
  medicationList: ['medications', 'list'] as const,
  medicationListFor: (personId: number | null) => ['medications', 'list', personId ?? 'all'] as const,
  inventory: (id: number) => ['medications', id, 'inventory'] as const,
  ledger: (id: number) => ['medications', id, 'ledger'] as const,
  batches: (id: number) => ['medications', id, 'batches'] as const,
  today: ['today'] as const,
  todayFor: (personId: number | null) => ['today', personId ?? 'all'] as const,
  history: ['history'] as const,
  historyPage: (query: string) => ['history', query] as const,
  adherence: ['adherence'] as const,
  adherenceFor: (personId: number | null) => ['adherence', personId ?? 'all'] as const,
  report: ['report'] as const,
  reportFor: (period: ReportPeriod) => ['report', period.from ?? '', period.to ?? ''] as const,
  notifications: ['notifications'] as const,
  scheduledNotifications: ['notifications', 'scheduled'] as const,
  deliveries: ['notifications', 'deliveries'] as const,
  preferences: ['notification-preferences'] as const,
  globalPreferences: ['notification-preferences', 'global'] as const,
  medicationPreferences: (id: number) => ['notification-preferences', 'medication', id] as const,
  notificationSettings: ['notification-settings'] as const,
  /** The person's channels (ntfy, Gotify, Telegram, webhooks). */
  channels: ['channels'] as const,
  timeZone: ['settings', 'timezone'] as const,
  calendarFeed: ['calendar-feed'] as const,
  twoFactorStatus: ['two-factor', 'status'] as const,
  /** The account's API tokens (never their secrets). */
  apiTokens: ['api-tokens'] as const,
  /** The account's passkeys. */
  passkeys: ['passkeys'] as const,
  dataSettings: ['data-settings'] as const,
  backups: ['backups'] as const,
  version: ['version'] as const,
  take: (token: string) => ['take', token] as const,
  /** People, and under each their carers and audit list. */
  people: ['people'] as const,
  carers: (personId: number) => ['people', personId, 'carers'] as const,
  audit: (personId: number, page: number) => ['people', personId, 'audit', page] as const,
  invitation: (token: string) => ['invitation', token] as const,
  invitationPreview: (token: string) => ['invitation', token, 'preview'] as const,
  /** A verification link's answer: the link works once. */
  emailVerification: (token: string) => ['email-verification', token] as const,
  /** The identity provider's sign-ins linked to the account. */
  oidcIdentities: ['oidc-identities'] as const,
  /** A linking page opened with its one-time code (the code works once: never asked again). */
  oidcLink: (code: string) => ['oidc-link', code] as const,
  /** Whether sign-ups are open (asked before sign-in). */
  registration: ['registration'] as const,
  signInProviders: ['signInProviders'] as const,
};
