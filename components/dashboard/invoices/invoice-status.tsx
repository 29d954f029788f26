import { Badge } from '@/components/ui/badge';

/** An invoice's status: open (due), paid or void. */
export function InvoiceStatusBadge({ status }: { status: 'open' | 'paid' | 'void' }) {
  const tone = status === 'paid' ? 'success' : status === 'open' ? 'warning' : 'neutral';
  return (
    <Badge tone={tone} className="capitalize print:border-slate-400">
      {status}
    </Badge>
  );
}
