import type { ReactNode } from 'react';

/** The sign-in pages: one narrow column, centred. The OAuth consent pages reuse it. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main id="main" className="mx-auto flex w-full max-w-md flex-col gap-6 px-4 py-10 sm:py-16">
      {children}
    </main>
  );
}
