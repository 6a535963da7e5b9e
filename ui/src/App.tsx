import type { QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ComponentType } from 'react';
import { matchPath, Navigate, Route, Routes } from 'react-router-dom';
import { AuthProvider } from './auth/AuthProvider';
import { RequireAuth } from './auth/RequireAuth';
import { InstallBanner } from './components/InstallBanner';
import { RouteErrorBoundary } from './components/RouteErrorBoundary';
import { RouteLoading } from './components/RouteLoading';
import { SCREEN_TEXTS, SIGNED_IN_ROUTES, type ScreenName } from './firstScreens';
import { loadNamespaces } from './i18n';
// The account-linking page (back from the identity provider) comes with the app's own code:
// split off, it made Today's first download larger, not smaller (what it shares with the
// signed-in screens then moved into their files).
import { OidcLinkScreen } from './screens/OidcLinkScreen';
import { holdBackgroundRequests } from './queries/backgroundRequests';
import { prefetchFirstScreen } from './queries/firstScreen';
import { checkSessionEarly } from './queries/sessionCheck';
import { QueryProvider, SessionCacheGuard } from './queries/QueryProvider';
import { loadUnitCatalogue } from './queries/units';
import { SettingsProvider } from './settings/SettingsProvider';

/** The screens and their texts, each fetched on its route's first visit. */
const routeScreens: (() => Promise<unknown>)[] = [];

/**
 * A screen fetched with its route, together with the texts of every namespace its code uses
 * beyond the shell's: the first screen downloads only what it shows, and no part of it waits
 * for its texts after it appears. Once fetched, it renders at once on later visits.
 */
type RouteScreen = ComponentType & { preload: () => Promise<unknown> };

function routeScreen(load: () => Promise<ComponentType>, name: ScreenName): RouteScreen {
  const namespaces = SCREEN_TEXTS[name];
  let loaded: ComponentType | undefined;
  const fetchScreen = async () => {
    const [screen] = await Promise.all([load(), loadNamespaces(namespaces)]);
    loaded = screen;
    return { default: screen };
  };
  routeScreens.push(fetchScreen);
  const Pending = lazy(fetchScreen);
  function RouteScreen() {
    const Screen = loaded ?? Pending;
    return <Screen />;
  }
  return Object.assign(RouteScreen, { preload: fetchScreen });
}

/** Fetches every screen now (tests, which then render any route without waiting). */
export async function preloadRouteScreens(): Promise<void> {
  await Promise.all(routeScreens.map((fetchScreen) => fetchScreen()));
}

// Its own chunk, so that a signed-in start (Today) does not download it; a signed-out start
// fetches it at once (main.tsx), beside the rest of the start.
const LoginScreen = routeScreen(() => import('./screens/LoginScreen').then((m) => m.LoginScreen), 'LoginScreen');

const RegisterScreen = routeScreen(() => import('./screens/RegisterScreen').then((m) => m.RegisterScreen), 'RegisterScreen');
const ForgotPasswordScreen = routeScreen(() => import('./screens/ForgotPasswordScreen').then((m) => m.ForgotPasswordScreen), 'ForgotPasswordScreen');
const ResetPasswordScreen = routeScreen(() => import('./screens/ResetPasswordScreen').then((m) => m.ResetPasswordScreen), 'ResetPasswordScreen');
const EmailConfirmationScreen = routeScreen(() =>
  import('./screens/EmailConfirmationScreen').then((m) => m.EmailConfirmationScreen), 'EmailConfirmationScreen');
const VerifyEmailScreen = routeScreen(() => import('./screens/VerifyEmailScreen').then((m) => m.VerifyEmailScreen), 'VerifyEmailScreen');
const PrivacyPolicyScreen = routeScreen(() => import('./screens/PrivacyPolicyScreen').then((m) => m.PrivacyPolicyScreen), 'PrivacyPolicyScreen');
const InvitationScreen = routeScreen(() => import('./screens/InvitationScreen').then((m) => m.InvitationScreen), 'InvitationScreen');
const TakeDoseRoute = routeScreen(() => import('./screens/TakeDoseRoute').then((m) => m.TakeDoseRoute), 'TakeDoseRoute');
const SignedInLayout = routeScreen(() => import('./screens/SignedInLayout').then((m) => m.SignedInLayout), 'SignedInLayout');
const MedicationsScreen = routeScreen(() => import('./screens/MedicationsScreen').then((m) => m.MedicationsScreen), 'MedicationsScreen');
// What Today opens only now and then fetches its own code and texts: the preferences dialog
// (components/medications/DeliveryWarning), the push and e-mail fixes of a delivery warning
// (DeliveryWarningNote) and the refill notice (RefillNotice).
const TodayScreen = routeScreen(() => import('./screens/TodayScreen').then((m) => m.TodayScreen), 'TodayScreen');
const NotificationsScreen = routeScreen(() => import('./screens/NotificationsScreen').then((m) => m.NotificationsScreen), 'NotificationsScreen');
const HistoryScreen = routeScreen(() => import('./screens/HistoryScreen').then((m) => m.HistoryScreen), 'HistoryScreen');
const PeopleScreen = routeScreen(() => import('./screens/PeopleScreen').then((m) => m.PeopleScreen), 'PeopleScreen');
const PersonScreen = routeScreen(() => import('./screens/PersonScreen').then((m) => m.PersonScreen), 'PersonScreen');
const SettingsScreen = routeScreen(() => import('./screens/SettingsScreen').then((m) => m.SettingsScreen), 'SettingsScreen');
const ReportScreen = routeScreen(() => import('./screens/ReportScreen').then((m) => m.ReportScreen), 'ReportScreen');

/** The code of each signed-in screen (firstScreens.ts's SIGNED_IN_ROUTES names them). */
const SIGNED_IN_SCREEN_CODE: Record<(typeof SIGNED_IN_ROUTES)[keyof typeof SIGNED_IN_ROUTES], RouteScreen> = {
  MedicationsScreen,
  TodayScreen,
  NotificationsScreen,
  HistoryScreen,
  PeopleScreen,
  PersonScreen,
  SettingsScreen,
  ReportScreen,
};

/** The signed-in screens by the route that opens them (spec §2): the route table's and the preload's. */
const SIGNED_IN_SCREENS: Record<string, RouteScreen> = Object.fromEntries(
  Object.entries(SIGNED_IN_ROUTES).map(([path, name]) => [path, SIGNED_IN_SCREEN_CODE[name]]),
);

/**
 * Starts the session check, and fetching the screen the app opens at, the signed-in frame
 * around it, the unit catalogue the frame waits for (public, asked once per start anyway) and
 * the screen's first data (into `client`, the app's cache), while the app's own code starts:
 * otherwise each would wait for the one before it (code, then the session check, then the
 * frame, then the catalogue, then the screen, then its data).
 */
export function preloadFirstScreen(pathname: string, signedIn: boolean, client: QueryClient): void {
  if (!signedIn) {
    // Without a session the first screen is the sign-in page (or a public page beside it).
    LoginScreen.preload().catch(() => undefined);
    return;
  }
  const [route, screen] = Object.entries(SIGNED_IN_SCREENS).find(([path]) => matchPath(path, pathname)) ?? [];
  if (!route || !screen) return;
  // What the screen does not show (the session's refresh, the server's settings and version)
  // is asked once it has been painted, not beside its own requests. Only here: a start at a
  // page outside the signed-in frame (a take link, an invitation) paints no such screen.
  holdBackgroundRequests(client);
  // The session check, which the frame waits for, goes with the screen's requests.
  checkSessionEarly(client);
  // A fetch that fails here is tried again when the route renders, which shows its error.
  const ignore = () => undefined;
  SignedInLayout.preload().catch(ignore);
  screen.preload().catch(ignore);
  loadUnitCatalogue().catch(ignore);
  prefetchFirstScreen(client, route);
}

/** The route table of spec §2. */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<LoginScreen />} />
      <Route path="/login/link" element={<OidcLinkScreen />} />
      <Route path="/register" element={<RegisterScreen />} />
      <Route path="/forgot-password" element={<ForgotPasswordScreen />} />
      <Route path="/reset-password/:token" element={<ResetPasswordScreen />} />
      <Route path="/email-confirmation" element={<EmailConfirmationScreen />} />
      <Route path="/verify-email" element={<VerifyEmailScreen />} />
      <Route path="/verify-email/:token" element={<VerifyEmailScreen />} />
      <Route path="/notifications/take/:token" element={<TakeDoseRoute />} />
      <Route path="/privacy-policy" element={<PrivacyPolicyScreen />} />
      <Route path="/invite/:token" element={<InvitationScreen />} />
      <Route
        element={
          <RequireAuth>
            <SignedInLayout />
          </RequireAuth>
        }
      >
        {Object.entries(SIGNED_IN_SCREENS).map(([path, Screen]) => (
          <Route key={path} path={path} element={<Screen />} />
        ))}
      </Route>
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
}

/**
 * The whole app, minus the router (main.tsx uses BrowserRouter, tests MemoryRouter). Tests
 * pass their own query client.
 */
export function App({ queryClient }: { queryClient?: QueryClient }) {
  return (
    <QueryProvider client={queryClient}>
      <SettingsProvider>
        <AuthProvider>
          <SessionCacheGuard />
          <RouteErrorBoundary>
            <Suspense fallback={<RouteLoading />}>
              <AppRoutes />
            </Suspense>
          </RouteErrorBoundary>
          {/* Outside the routes' boundary: in another language it waits for its texts alone. */}
          <Suspense fallback={null}>
            <InstallBanner />
          </Suspense>
        </AuthProvider>
      </SettingsProvider>
    </QueryProvider>
  );
}
