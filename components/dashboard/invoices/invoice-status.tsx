import { Badge } from '@/components/ui/badge';
import { invoiceStatusLabel } from '@/src/contract/invoice-document';

/** An invoice's status: open (due), paid or void. */
export function InvoiceStatusBadge({ status }: { status: 'open' | 'paid' | 'void' }) {
  const tone = status === 'paid' ? 'success' : status === 'open' ? 'warning' : 'neutral';
  return (
    <Badge tone={tone} className="print:border-slate-400" data-testid="invoice-status">
      {invoiceStatusLabel(status)}
    </Badge>
  );
}
