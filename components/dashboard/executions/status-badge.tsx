import { Badge } from '@/components/ui/badge';

/** An execution's status as text and colour (the text carries the meaning). */
export function ExecutionStatusBadge({ status }: { status: 'running' | 'success' | 'failed' }) {
  const tone = status === 'success' ? 'success' : status === 'failed' ? 'danger' : 'info';
  const label = status === 'success' ? 'Succeeded' : status === 'failed' ? 'Failed' : 'Running';
  return <Badge tone={tone}>{label}</Badge>;
}
