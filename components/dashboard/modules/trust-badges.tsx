import { Badge } from '@/components/ui/badge';

const TIER_TONE: Record<string, 'success' | 'info' | 'warning' | 'neutral'> = {
  gold: 'warning',
  silver: 'info',
  bronze: 'neutral',
  none: 'neutral',
};

/** The trust score and certification tier exactly as the API reports them. */
export function TrustBadges({ score, tier }: { score: number; tier: string }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      <Badge tone={score >= 70 ? 'success' : score >= 40 ? 'neutral' : 'danger'}>Trust {score}</Badge>
      <Badge tone={TIER_TONE[tier] ?? 'neutral'}>{tier === 'none' ? 'Not certified' : `Certified: ${tier}`}</Badge>
    </span>
  );
}
