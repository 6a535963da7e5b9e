import type { QueryClient } from '@tanstack/react-query';
import { Navigate, Route, Routes } from 'react-router-dom';
import { AuthProvider } from './auth/AuthProvider';
import { RequireAuth } from './auth/RequireAuth';
import { AppShell } from './components/AppShell';
import { InstallBanner } from './components/InstallBanner';
import { UnitCatalogueGate } from './components/medications/UnitCatalogueGate';
import { EmailConfirmationScreen } from './screens/EmailConfirmationScreen';
import { ForgotPasswordScreen } from './screens/ForgotPasswordScreen';
import { HistoryScreen } from './screens/HistoryScreen';
import { InvitationScreen } from './screens/InvitationScreen';
import { LoginScreen } from './screens/LoginScreen';
import { MedicationsScreen } from './screens/MedicationsScreen';
import { NotificationsScreen } from './screens/NotificationsScreen';
import { PeopleScreen } from './screens/PeopleScreen';
import { PersonScreen } from './screens/PersonScreen';
import { PrivacyPolicyScreen } from './screens/PrivacyPolicyScreen';
import { RegisterScreen } from './screens/RegisterScreen';
import { ReportScreen } from './screens/ReportScreen';
import { ResetPasswordScreen } from './screens/ResetPasswordScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { TakeDoseScreen } from './screens/TakeDoseScreen';
import { TodayScreen } from './screens/TodayScreen';
import { VerifyEmailScreen } from './screens/VerifyEmailScreen';
import { QueryProvider, SessionCacheGuard } from './queries/QueryProvider';
import { SettingsProvider } from './settings/SettingsProvider';

/** The route table of spec §2. */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<LoginScreen />} />
      <Route path="/register" element={<RegisterScreen />} />
      <Route path="/forgot-password" element={<ForgotPasswordScreen />} />
      <Route path="/reset-password/:token" element={<ResetPasswordScreen />} />
      <Route path="/email-confirmation" element={<EmailConfirmationScreen />} />
      <Route path="/verify-email" element={<VerifyEmailScreen />} />
      <Route path="/verify-email/:token" element={<VerifyEmailScreen />} />
      <Route
        path="/notifications/take/:token"
        element={
          <UnitCatalogueGate>
            <TakeDoseScreen />
          </UnitCatalogueGate>
        }
      />
      <Route path="/privacy-policy" element={<PrivacyPolicyScreen />} />
      <Route path="/invite/:token" element={<InvitationScreen />} />
      <Route
        element={
          <RequireAuth>
            <UnitCatalogueGate>
              <AppShell />
            </UnitCatalogueGate>
          </RequireAuth>
        }
      >
        <Route path="/" element={<MedicationsScreen />} />
        <Route path="/medications" element={<MedicationsScreen />} />
        <Route path="/today" element={<TodayScreen />} />
        <Route path="/notifications" element={<NotificationsScreen />} />
        <Route path="/history" element={<HistoryScreen />} />
        <Route path="/people" element={<PeopleScreen />} />
        <Route path="/people/:personId" element={<PersonScreen />} />
        <Route path="/settings" element={<SettingsScreen />} />
        <Route path="/report" element={<ReportScreen />} />
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
          <AppRoutes />
          <InstallBanner />
        </AuthProvider>
      </SettingsProvider>
    </QueryProvider>
  );
}
