import type { Metadata } from 'next';
import { requestPasswordReset } from '@/app/_lib/actions';
import { ResetRequestForm } from '@/components/auth/reset-request-form';

export const metadata: Metadata = { title: 'Reset your password' };

export default function ResetPasswordPage() {
  return <ResetRequestForm requestPasswordReset={requestPasswordReset} />;
}
