/** Display formats shared by the dashboard's pages (numbers themselves come from the API as they are). */

const dateTime = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });
const dateOnly = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });
const integer = new Intl.NumberFormat('en');

/** An ISO instant as a UTC date and time ("Nov 24, 2026, 6:41:02 PM UTC"). */
export function formatDateTime(iso: string | null | undefined): string {
  return iso ? `${dateTime.format(new Date(iso))} UTC` : '—';
}

/** An ISO instant's UTC date ("Nov 24, 2026"). */
export function formatDate(iso: string | null | undefined): string {
  return iso ? dateOnly.format(new Date(iso)) : '—';
}

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n);
}

/** Bytes in B / KB / MB (1 KB = 1024 B). */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatMs(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : `${integer.format(ms)} ms`;
}

/** "5 minutes ago" for recent instants, the date beyond a week. */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days <= 7 ? `${days} days ago` : formatDate(iso);
}
