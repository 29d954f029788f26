import type { Metadata } from 'next';
import { updatePasswordWithRecovery } from '@/app/_lib/actions';
import { ResetUpdateForm } from '@/components/auth/reset-update-form';

export const metadata: Metadata = { title: 'Choose a new password', referrer: 'no-referrer' };

export default function ResetPasswordUpdatePage() {
  return <ResetUpdateForm updatePasswordWithRecovery={updatePasswordWithRecovery} />;
}
